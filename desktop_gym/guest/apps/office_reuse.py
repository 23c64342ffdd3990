"""Warm-office reuse: keep the previous episode's LibreOffice for the next one, once it is proven clean.

A cold office start costs ~0.7-1 s of CPU; loading the next task's file into the running office
(whose module is already loaded) costs a fraction of that. At the end of an episode the launcher
asks :func:`park` to clean the office; it is kept only if every check below holds, and killed
(today's cold path) otherwise or on any error:

- **No dialogs or extra windows**: the office's top-level windows are exactly its document frames.
- **Same UI layout**: the frame's visible toolbars/bars and window geometry equal what they were
  right after the launch (:func:`ui_fingerprint`); a hidden toolbar or a moved window would reach
  the next episode through the settings written when the document closes.
- **Every document closed** (unsaved changes discarded), so the next file loads with a fresh undo
  stack; afterwards no document, frame or window of the office remains.
- **No changed options**: after a configuration flush, the profile's settings
  (``registrymodifications.xcu``) equal the ones flushed right after the launch
  (:func:`settings_snapshot`), apart from the recent-files list (emptied) and window layout state
  (covered by the fingerprint).
- **No clipboard**: the X ``CLIPBOARD`` and ``PRIMARY`` selections are released, as a killed
  office would have released them.

State held only in the office's memory outside these (e.g. the Find & Replace dialog's last
search term) is not checked; set ``reuse_office=False`` where that matters.
"""

from __future__ import annotations

import logging
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from Xlib import X
from Xlib import display as xdisplay
from Xlib.protocol import request

from ...polling import poll_until
from ..types import WindowInfo
from .launch_phases import PhaseClock

log = logging.getLogger(__name__)

MAX_REUSES = 50  # an office serves at most this many episodes before a cold start (leaks stay bounded)
PARK_TIMEOUT_S = 5.0  # the whole clean-up; past it the office is killed
WINDOWS_GONE_TIMEOUT_S = 2.0
POLL_INTERVAL_S = 0.02
A11Y_TIMEOUT_S = 3.0  # how long a reused office's new frame may take to reach the accessibility tree
PICK_LIST = "/org.openoffice.Office.Histories/Histories/org.openoffice.Office.Histories:HistoryInfo['PickList']"
#: Settings paths that change with window layout (checked by the UI fingerprint) or recent files (emptied).
LAYOUT_PATHS = re.compile(
    r'oor:path="/org\.openoffice\.(Office\.UI\.|Office\.Views|Office\.Histories|Setup/Office/Factories)'
)
ITEM = re.compile(r"<item .*?</item>", re.S)


class NotClean(Exception):
    """The office could not be proven clean; the message says which check failed."""


@dataclass
class ReuseState:
    """What a cold-started office looked like right after its launch, and how often it was reused."""

    fingerprint: tuple  # ui_fingerprint
    settings: frozenset[str]  # settings_snapshot
    uses: int = 0


def settings_file(launch_dir: Path) -> Path:
    """The profile's settings file of an office launched in ``launch_dir``."""
    return launch_dir / "profile" / "user" / "registrymodifications.xcu"


def _flush_settings(connection: Any) -> None:
    provider = connection.context.ServiceManager.createInstanceWithContext(
        "com.sun.star.configuration.ConfigurationProvider", connection.context
    )
    provider.flush()


def settings_snapshot(connection: Any, launch_dir: Path, timeout: float = 2.0) -> frozenset[str]:
    """The office's settings items (flushed to disk first), minus layout and recent-files items."""
    connection.call(_flush_settings, connection, timeout=timeout, what="flush settings")
    text = settings_file(launch_dir).read_text(errors="replace")
    return frozenset(item for item in ITEM.findall(text) if not LAYOUT_PATHS.search(item))


def _frame_fingerprint(frame: Any) -> tuple:
    layout = frame.LayoutManager
    visible = sorted(
        element.ResourceURL for element in layout.getElements() if layout.isElementVisible(element.ResourceURL)
    )
    rect = frame.getContainerWindow().getPosSize()
    return (tuple(visible), (rect.X, rect.Y, rect.Width, rect.Height))


def _frames(connection: Any) -> list[Any]:
    frames = connection.desktop.getFrames()
    return [frames.getByIndex(index) for index in range(frames.getCount())]


def ui_fingerprint(connection: Any, timeout: float = 2.0) -> tuple:
    """Visible UI elements and geometry of each document frame, in the desktop's frame order."""
    return connection.call(
        lambda: tuple(_frame_fingerprint(frame) for frame in _frames(connection)), timeout=timeout, what="UI state"
    )


def _close_documents(connection: Any) -> None:
    enumeration = connection.desktop.getComponents().createEnumeration()
    components = []
    while enumeration.hasMoreElements():
        components.append(enumeration.nextElement())
    for component in components:
        if hasattr(component, "setModified"):
            component.setModified(False)  # discard unsaved changes: no "Save changes?" dialog
        component.close(True)


def _clear_pick_list(connection: Any) -> None:
    provider = connection.context.ServiceManager.createInstanceWithContext(
        "com.sun.star.configuration.ConfigurationProvider", connection.context
    )
    from . import uno_bridge

    for part in ("ItemList", "OrderList"):
        access = provider.createInstanceWithArguments(
            "com.sun.star.configuration.ConfigurationUpdateAccess",
            uno_bridge.property_values(nodepath=f"{PICK_LIST}/{part}"),
        )
        for name in access.getElementNames():
            access.removeByName(name)
        access.commitChanges()


def clear_recent_files(connection: Any, timeout: float = 2.0) -> None:
    """Empty the recent-files list (a fresh profile has none; the next load adds its own file)."""
    connection.call(_clear_pick_list, connection, timeout=timeout, what="clear recent files")


def wait_until_accessible(title: str, timeout: float = A11Y_TIMEOUT_S) -> bool:
    """Wait until this process's accessibility view shows a frame named ``title``; whether it did.

    A reused office's new frame reaches the guest's AT-SPI cache by an event, a moment after the
    window maps (measured: the first tree read after a reused load was empty about half the time).
    """
    try:
        from .. import a11y
    except ImportError:  # a guest without accessibility support has no tree to wait for
        return False

    def shown() -> bool:
        return bool(a11y.find_nodes(role="frame", name=title, limit=1, timeout=min(1.0, timeout)))

    try:
        poll_until(shown, timeout, f"the frame {title!r} in the accessibility tree", interval=POLL_INTERVAL_S)
    except Exception:  # noqa: BLE001 - not shown in time (WaitTimeoutError), or no accessibility bus
        return False
    return True


def release_selections(display_name: str | None) -> None:
    """Give up the X ``CLIPBOARD`` and ``PRIMARY`` selections, whoever owns them."""
    display = xdisplay.Display(display_name)
    try:
        for name in ("CLIPBOARD", "PRIMARY"):
            request.SetSelectionOwner(
                display=display.display, window=X.NONE, selection=display.intern_atom(name), time=X.CurrentTime
            )
        display.sync()
    finally:
        display.close()


def park(
    connection: Any,
    launch_dir: Path,
    office_windows: Any,
    launched_fingerprint: tuple,
    launched_settings: frozenset[str],
    display_name: str | None,
) -> None:
    """Clean a running office for the next episode, or raise :class:`NotClean` naming what is dirty.

    Args:
        connection: The office's ``UnoConnection``.
        launch_dir: Its launch folder (holds the profile).
        office_windows: Returns the office's top-level windows (``list[WindowInfo]``).
        launched_fingerprint: :func:`ui_fingerprint` right after its launch.
        launched_settings: :func:`settings_snapshot` right after its launch.
        display_name: The X display (for the selections).
    """
    deadline = time.monotonic() + PARK_TIMEOUT_S
    phases = PhaseClock()

    def left() -> float:
        return max(0.1, deadline - time.monotonic())

    windows: list[WindowInfo] = office_windows()
    frames = connection.call(lambda: len(_frames(connection)), timeout=left(), what="count frames")
    if len(windows) != frames:
        raise NotClean(f"{len(windows)} office windows for {frames} document frames (a dialog is open)")
    phases.done("frames")
    fingerprint = ui_fingerprint(connection, timeout=left())
    if fingerprint != launched_fingerprint:
        raise NotClean(f"the UI layout changed: {fingerprint} != {launched_fingerprint}")
    phases.done("fingerprint")
    connection.call(_close_documents, connection, timeout=left(), what="close documents")
    remaining = connection.documents(timeout=left())
    if remaining:
        raise NotClean(f"{len(remaining)} documents stayed open after closing")
    phases.done("close")
    poll_until(
        lambda: not office_windows(),
        min(WINDOWS_GONE_TIMEOUT_S, left()),
        "the office windows to close after every document closed",
        interval=POLL_INTERVAL_S,
        error=NotClean,
    )
    phases.done("windows_gone")
    clear_recent_files(connection, timeout=left())
    phases.done("recent")
    settings = settings_snapshot(connection, launch_dir, timeout=left())
    if settings != launched_settings:
        changed = sorted(settings ^ launched_settings)
        raise NotClean(f"{len(changed)} settings changed, e.g. {changed[0][:200]}")
    phases.done("settings")
    release_selections(display_name)
    phases.done("selections")
    log.info("parked the office in %s", phases.summary())
