"""Top-level windows through EWMH (the window manager's view), via python-xlib."""

from __future__ import annotations

import threading
from collections.abc import Callable

from Xlib import X, Xatom
from Xlib import display as xdisplay
from Xlib import error as xerror
from Xlib.protocol import event as xevent

from desktop_gym.errors import WindowNotFoundError

from ..polling import poll_until
from .types import WindowInfo

SOURCE_PAGER = 2  # EWMH source indication: a pager/tool, so the WM does not refuse the request
POLL_INTERVAL = 0.02


class WindowManager:
    """Reads and drives the window manager's client list.

    Args:
        display_name: X display such as ``":5"``; ``None`` uses ``$DISPLAY``.
    """

    def __init__(self, display_name: str | None = None) -> None:
        self._display = xdisplay.Display(display_name)
        self._root = self._display.screen().root
        self._lock = threading.Lock()
        self._atoms: dict[str, int] = {}

    def close(self) -> None:
        """Close the X connection."""
        with self._lock:
            self._display.close()

    def _atom(self, name: str) -> int:
        if name not in self._atoms:
            self._atoms[name] = self._display.intern_atom(name)
        return self._atoms[name]

    def _property(self, window, name: str, kind: int):
        prop = window.get_full_property(self._atom(name), kind)
        return prop.value if prop is not None else None

    def _client_ids(self) -> list[int]:
        value = self._property(self._root, "_NET_CLIENT_LIST", Xatom.WINDOW)
        return list(value) if value is not None else []

    def _active_id(self) -> int | None:
        value = self._property(self._root, "_NET_ACTIVE_WINDOW", Xatom.WINDOW)
        return int(value[0]) if value is not None and len(value) and value[0] else None

    def _describe(self, window_id: int, active: int | None) -> WindowInfo:
        window = self._display.create_resource_object("window", window_id)
        title = self._property(window, "_NET_WM_NAME", self._atom("UTF8_STRING"))
        if title is None:
            title = self._property(window, "WM_NAME", X.AnyPropertyType)
        if isinstance(title, bytes):
            title = title.decode("utf-8", "replace")
        wm_class = window.get_wm_class()
        pid = self._property(window, "_NET_WM_PID", Xatom.CARDINAL)
        geometry = window.get_geometry()
        origin = window.translate_coords(self._root, 0, 0)
        return WindowInfo(
            window_id=window_id,
            title=title or "",
            app=(wm_class[1] if wm_class else "").lower(),
            pid=int(pid[0]) if pid is not None and len(pid) else None,
            x=-origin.x,
            y=-origin.y,
            width=geometry.width,
            height=geometry.height,
            focused=window_id == active,
        )

    def list_windows(self) -> list[WindowInfo]:
        """Return the managed windows in mapping order (windows that vanish meanwhile are skipped)."""
        with self._lock:
            active = self._active_id()
            windows = []
            for window_id in self._client_ids():
                try:
                    windows.append(self._describe(window_id, active))
                except (xerror.BadWindow, xerror.BadDrawable, xerror.BadMatch):
                    continue
            return windows

    def focus_key(self) -> tuple[object, ...]:
        """What changes whenever another window (or document in it) takes the focus: two X round trips.

        ``(active window id, its title)``: a new window, a dialog, a switch, or a document loaded
        into the focused window (its title changes) all change it.
        """
        with self._lock:
            active = self._active_id()
            title = None
            if active is not None:
                try:
                    window = self._display.create_resource_object("window", active)
                    title = self._property(window, "_NET_WM_NAME", self._atom("UTF8_STRING"))
                except (xerror.BadWindow, xerror.BadDrawable, xerror.BadMatch):
                    title = None
            return active, title

    def focused_window(self) -> WindowInfo | None:
        """Return the active window, if any (a managed one: in the client list)."""
        with self._lock:  # only the active window is described: a step asks this every time
            active = self._active_id()
            if active is None or active not in self._client_ids():
                return None
            try:
                return self._describe(active, active)
            except (xerror.BadWindow, xerror.BadDrawable, xerror.BadMatch):
                return None

    def _send(self, window_id: int, message: str, data: list[int]) -> None:
        with self._lock:
            if window_id not in self._client_ids():
                raise WindowNotFoundError(f"no managed window with id {window_id:#x}")
            window = self._display.create_resource_object("window", window_id)
            event = xevent.ClientMessage(
                window=window, client_type=self._atom(message), data=(32, data + [0] * (5 - len(data)))
            )
            self._root.send_event(event, event_mask=X.SubstructureRedirectMask | X.SubstructureNotifyMask)
            self._display.sync()

    def activate(self, window_id: int, timeout: float = 2.0) -> None:
        """Raise and focus a window, and wait until the WM reports it active.

        Raises:
            WindowNotFoundError: the id is not a managed window.
            TimeoutError: the WM did not make it active within ``timeout``.
        """
        self._send(window_id, "_NET_ACTIVE_WINDOW", [SOURCE_PAGER, X.CurrentTime, 0])

        def active() -> bool:
            with self._lock:
                return self._active_id() == window_id

        poll_until(active, timeout, f"window {window_id:#x} to become active", interval=POLL_INTERVAL)

    def close_window(self, window_id: int) -> None:
        """Ask the WM to close a window politely (``_NET_CLOSE_WINDOW``); the app may refuse."""
        self._send(window_id, "_NET_CLOSE_WINDOW", [X.CurrentTime, SOURCE_PAGER])

    def wait_for_window(
        self, predicate: Callable[[WindowInfo], bool], timeout: float, description: str = "a window"
    ) -> WindowInfo:
        """Poll the client list until a window satisfies ``predicate``.

        Raises:
            TimeoutError: naming ``description`` when none appears within ``timeout``.
        """
        return poll_until(
            lambda: next((window for window in self.list_windows() if predicate(window)), None),
            timeout,
            description,
            interval=POLL_INTERVAL,
        )
