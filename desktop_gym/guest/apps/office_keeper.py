"""The one LibreOffice kept between episodes (``reuse_office``): what it looked like, parking, handing out.

A cold-started office records its UI layout and settings right after its launch; at the end of the
episode :func:`office_reuse.park` must prove it clean against that record, or it is killed (the
cold path). The next launch of the same app takes the parked office; a reused office must again
show the recorded layout, or the launch falls back to a cold start.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..processes import process_group
from ..types import WindowInfo
from . import office_reuse
from .office_launch import remove_stale_lock

log = logging.getLogger(__name__)
ACCESSIBLE_JOIN_SLACK_S = 1.5  # past the accessibility wait's own cap, how long joining its thread may take


class OfficeKeeper:
    """Holds at most one parked office and counts cold, reused and refused launches.

    Args:
        list_windows: The desktop's top-level windows (``WindowManager.list_windows``).
        display_name: The X display (the parked office's selections are released on it).
        kill: Kills an office that is not kept (``AppLauncher``'s kill-and-forget).
    """

    def __init__(
        self, list_windows: Callable[[], list[WindowInfo]], display_name: str | None, kill: Callable[[Any], None]
    ) -> None:
        self._list_windows = list_windows
        self._display_name = display_name
        self._kill = kill
        self._lock = threading.Lock()
        self._parked: Any = None  # a LaunchedApp proven clean at the end of the previous episode
        self.counts = {"reused": 0, "cold": 0, "refused": 0}

    def take(self, app: str) -> Any:
        """The parked office if it serves ``app`` (now the caller's); a parked office of another app is killed."""
        with self._lock:
            parked, self._parked = self._parked, None
        if parked is None:
            return None
        if parked.app == app and parked.alive:
            return parked
        self._kill(parked)
        return None

    def refused(self, office: Any, error: BaseException) -> None:
        """A taken office failed its reuse: count it and kill it."""
        log.warning("reusing the %s office failed, starting a fresh one: %s", office.app, error)
        self.counts["refused"] += 1
        self._kill(office)

    def watch_accessible(self, title: str) -> Callable[[], bool]:
        """Start waiting for a reused office's frame ``title`` in the accessibility tree, beside the launch.

        The wait runs while the launch waits for the layout and a quiet screen; the returned call
        joins it (capped) and says whether the frame was shown.
        """
        shown: list[bool] = []
        watcher = threading.Thread(
            target=lambda: shown.append(office_reuse.wait_until_accessible(title)), name="a11y-frame", daemon=True
        )
        watcher.start()

        def joined() -> bool:
            watcher.join(office_reuse.A11Y_TIMEOUT_S + ACCESSIBLE_JOIN_SLACK_S)
            return bool(shown and shown[0])

        return joined

    def check_or_record(
        self, launched: Any, reused: bool, deadline: float, accessible: Callable[[], bool] | None = None
    ) -> None:
        """A cold office records its UI layout and settings; a reused one must show the same layout.

        ``accessible`` (from :meth:`watch_accessible`) is joined instead of waiting for the frame here.

        Raises:
            office_reuse.NotClean: the reused office's layout differs from its launch's.
        """
        timeout = max(0.5, min(office_reuse.PARK_TIMEOUT_S, deadline - time.monotonic()))
        if not reused:
            self.counts["cold"] += 1
            launched.extra["reuse"] = office_reuse.ReuseState(
                fingerprint=office_reuse.ui_fingerprint(launched.uno, timeout=timeout),
                settings=office_reuse.settings_snapshot(launched.uno, launched.launch_dir, timeout=timeout),
            )
            return
        state = launched.extra["reuse"]
        fingerprint = office_reuse.ui_fingerprint(launched.uno, timeout=timeout)
        if fingerprint != state.fingerprint:
            raise office_reuse.NotClean(f"the reused office's layout {fingerprint} != {state.fingerprint}")
        if accessible is None:
            window = next((w for w in self._list_windows() if w.window_id == launched.window_id), None)
            title = window.title if window is not None else None
            accessible = (lambda: office_reuse.wait_until_accessible(title)) if title is not None else (lambda: True)
        if not accessible():
            log.info("the reused %s window is not in the accessibility tree yet", launched.app)
        state.uses += 1
        self.counts["reused"] += 1

    def park(self, launched_apps: list[Any]) -> Any:
        """Keep the episode's one office if ``office_reuse.park`` proves it clean; it, or None.

        A previously parked office (none should be left) is killed.
        """
        office = self._clean_office(launched_apps)
        if office is None:
            return None
        with self._lock:
            previous, self._parked = self._parked, office
        if previous is not None:
            self._kill(previous)
        return office

    def release(self) -> Any:
        """The parked office, no longer kept (the caller kills it)."""
        with self._lock:
            parked, self._parked = self._parked, None
        return parked

    def _clean_office(self, launched_apps: list[Any]) -> Any:
        offices = [launched for launched in launched_apps if "reuse" in launched.extra and launched.alive]
        if len(offices) != 1 or len([a for a in launched_apps if a.proc is offices[0].proc]) != 1:
            return None
        office = offices[0]
        state = office.extra["reuse"]
        if state.uses >= office_reuse.MAX_REUSES:
            return None
        pgid = office.proc.pid

        def office_windows() -> list[WindowInfo]:
            return [w for w in self._list_windows() if w.pid is None or process_group(w.pid) == pgid]

        try:
            office_reuse.park(
                office.uno, office.launch_dir, office_windows, state.fingerprint, state.settings, self._display_name
            )
        except Exception as error:  # noqa: BLE001 - not provably clean: the caller kills it (the cold path)
            log.info("not reusing the %s office: %s", office.app, error)
            self.counts["refused"] += 1
            return None
        if office.file is not None:
            remove_stale_lock(Path(office.file))
        return office
