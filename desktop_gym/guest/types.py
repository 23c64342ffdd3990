"""Plain data types and errors shared by the guest agent and its client."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from ..errors import GuestError, GuestUnavailableError

__all__ = ["AppFocus", "AppInfo", "ExecResult", "GuestError", "GuestUnavailableError", "WindowInfo"]


@dataclass(frozen=True)
class WindowInfo:
    """A top-level window managed by the window manager.

    Attributes:
        window_id: X window id.
        title: ``_NET_WM_NAME`` (or ``WM_NAME``).
        app: WM_CLASS class, lowercased (e.g. ``"libreoffice-calc"``, ``"xterm"``).
        pid: ``_NET_WM_PID`` when the client sets it.
        x: Left edge in root coordinates.
        y: Top edge in root coordinates.
        width: Width in pixels.
        height: Height in pixels.
        focused: Whether it is ``_NET_ACTIVE_WINDOW``.
    """

    window_id: int
    title: str
    app: str
    pid: int | None
    x: int
    y: int
    width: int
    height: int
    focused: bool


@dataclass(frozen=True)
class ExecResult:
    """The outcome of a command run in the desktop session."""

    returncode: int
    stdout: str
    stderr: str
    timed_out: bool


@dataclass(frozen=True)
class AppInfo:
    """An application started by the guest's launcher.

    Attributes:
        app: ``"calc"``, ``"writer"``, ``"impress"``, ``"terminal"`` or ``"editor"``.
        pid: Process id of the launched process (leader of its own process group).
        alive: Whether the process is still running.
        window_id: Its main window, once seen.
        file: Absolute path (inside the guest) of the file it opened, if any.
    """

    app: str
    pid: int
    alive: bool
    window_id: int | None
    file: str | None


@dataclass(frozen=True)
class AppFocus:
    """An app as the guest's API side sees it: which one, its API, its summary, unsaved changes.

    Attributes:
        app: The app key (``"calc"``); ``""`` when the focused window belongs to no launched app.
        tool_class: Its API's class name (``"CalcTools"``); ``""`` for apps without an API.
        summary: Its API summary (the observation's ``app_info``); ``""`` when not asked for.
        window_id: Its main window, or None.
        modified: Whether its document has unsaved changes (False unless asked for).
    """

    app: str
    tool_class: str
    summary: str
    window_id: int | None
    modified: bool

    def __getitem__(self, key: str) -> Any:
        """``focus["app"]``: reads like the dict ``app_info`` returned before it was typed."""
        if key not in self.__dataclass_fields__:
            raise KeyError(key)
        return getattr(self, key)

    def get(self, key: str, default: Any = None) -> Any:
        """Dict-style access with a default (see :meth:`__getitem__`)."""
        return getattr(self, key, default) if key in self.__dataclass_fields__ else default

    def to_dict(self) -> dict[str, Any]:
        """A JSON-friendly dict."""
        return asdict(self)
