"""When a launched app counts as drawn and usable: a semantic condition per kind of app, then a quiet screen.

A screen unchanged for 0.2 s is no proof on a loaded machine: an office whose main thread waits
for the CPU leaves its freshly mapped window an empty grey rectangle for longer than that (issue
32: two resets with one seed 650k pixels apart, one a grey Calc window). So each kind of app
adds a condition that only a drawn, usable app meets. :data:`READINESS` maps the app spec's
``readiness`` kind (:func:`readiness_kind`) to its check:

- ``"uno"`` (a LibreOffice document): the document's node (``document spreadsheet``/``text``/
  ``presentation``) is showing in the accessibility tree (one Collection query, answered inside
  the office); the office has sent the new frame's controls (toolbars, status bar, ruler,
  sidebar) their states (``office_state_watch``: until then Writer's ruler sits at the screen's
  edge and Impress shows another zoom); then the office lays out and repaints its frames in one
  UNO call (under its own lock, so the paint is of the loaded, laid-out document), and the app's
  window must receive that repaint (X DAMAGE on the window, after the call).
- ``"marker"``: the app's own ready signal (the terminal's shell marker, awaited by the launcher).
- ``"window"``: an app on the accessibility bus (mousepad) shows its frame there, named as its
  window; an app not on the bus (xmessage) waits only for what every kind waits for.

Every kind then waits until its window shows more than one flat colour (its first frame was
drawn: GTK draws a whole window per frame; xterm's prompt is text) and the screen stays unchanged
for the quiet span. Each wait is capped and its timeout names what it waited for. After an
action, :func:`wait_office_presented` asks each office for the same proof of a paint.
``DESKTOP_GYM_READINESS=quiet`` keeps only the quiet screen (the check before issue 32: the
baseline the tests and benchmarks compare); ``DESKTOP_GYM_READINESS=no-states`` keeps everything
but the control states (the baseline of ``bench/bench_reset_readiness.py --final``).
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...polling import poll_until
from ...settle import wait_until_stable

log = logging.getLogger(__name__)

READINESS_VARIABLE = "DESKTOP_GYM_READINESS"  # "quiet": only the quiet screen (the baseline before issue 32)
NO_STATES = "no-states"  # the readiness and settle of issue 32 without waiting for control states (a baseline)
QUIET_S = 0.2  # how long the screen must stay unchanged once the app is drawn
QUIET_TIMEOUT_S = 3.0  # an app that keeps repainting (an animation) is handed over after this
REPAINT_TIMEOUT_S = 15.0  # how long an office's window may take to show the repaint it was asked for
CONTENT_TIMEOUT_S = 15.0  # how long a document may take to reach the accessibility tree
DRAWN_TIMEOUT_S = 15.0  # how long a window may stay one flat colour
MIN_DRAWN_PIXELS = 150  # pixels off the window's main colour that count as drawn (a prompt; a lone cursor is ~80)
POLL_INTERVAL_S = 0.02


@dataclass
class ReadyContext:
    """What a readiness check may look at.

    Attributes:
        launched: The ``LaunchedApp`` (its ``uno`` connection for an office).
        window: Its ``WindowInfo`` when it mapped (id, title, box on the screen).
        describe: Returns its ``WindowInfo`` now (the title can change while the document loads).
        grab_screen: Takes a screenshot (``HxWx3`` uint8).
        display_name: The X display, for a DAMAGE watch on the window.
        deadline: ``time.monotonic()`` instant by which the launch must be done.
        phases: A ``PhaseClock`` whose phases the checks end (``a11y_content``, ``repaint``, ...), or None.
    """

    launched: Any
    window: Any
    describe: Callable[[], Any]
    grab_screen: Callable[[], np.ndarray]
    display_name: str | None
    deadline: float
    phases: Any = None

    def done(self, phase: str) -> None:
        """End ``phase`` on the launch's phase clock (if there is one)."""
        if self.phases is not None:
            self.phases.done(phase)

    def current(self) -> Any:
        """The window's ``WindowInfo`` now, or as it was when it mapped if it cannot be read."""
        return self.describe() or self.window

    def left(self, cap: float) -> float:
        """Seconds left for one wait: ``cap``, or less near the launch's deadline."""
        return max(0.1, min(cap, self.deadline - time.monotonic()))


def readiness_kind(spec: Any) -> str:
    """The readiness kind of an app spec (its ``readiness`` field; derived from ``launch`` where it has none)."""
    kind = getattr(spec, "readiness", "")
    if kind:
        return kind
    if getattr(spec, "ready_marker", False):
        return "marker"
    return "uno" if spec.launch == "libreoffice" else "window"


def quiet_only() -> bool:
    """Whether ``DESKTOP_GYM_READINESS=quiet`` asks for the old quiet-screen-only check."""
    return os.environ.get(READINESS_VARIABLE, "") == "quiet"


def states_watched() -> bool:
    """Whether readiness and settle wait for an office's control states (not with ``no-states`` or ``quiet``)."""
    return os.environ.get(READINESS_VARIABLE, "") not in ("quiet", NO_STATES)


# ---------------------------------------------------------------------------------------- office
def _showing_document(title: str) -> bool:
    """Whether a frame named ``title`` shows a document node in the accessibility tree."""
    from ..a11y import locked_bus

    with locked_bus() as atspi:
        desktop = atspi.get_desktop(0)
        for index in range(desktop.get_child_count()):
            app = desktop.get_child_at_index(index)
            if app is None or (app.get_name() or "") != "soffice":
                continue
            for frame_index in range(app.get_child_count()):
                frame = app.get_child_at_index(frame_index)
                if frame is not None and (frame.get_name() or "") == title and _has_document(frame, atspi):
                    return True
        return False


def _has_document(frame: Any, atspi: Any) -> bool:
    """One Collection query, answered inside the office (a walk over D-Bus costs ~1 s under load)."""
    roles = [atspi.Role.DOCUMENT_SPREADSHEET, atspi.Role.DOCUMENT_TEXT, atspi.Role.DOCUMENT_PRESENTATION]
    rule = atspi.MatchRule.new(
        atspi.StateSet.new([atspi.StateType.SHOWING]),
        atspi.CollectionMatchType.ALL,
        {},
        atspi.CollectionMatchType.NONE,
        roles,
        atspi.CollectionMatchType.ANY,
        [],
        atspi.CollectionMatchType.NONE,
        False,
    )
    matches = frame.get_collection_iface().get_matches(rule, atspi.CollectionSortOrder.CANONICAL, 1, True)
    return bool(matches)


def office_idle(connection: Any, timeout: float) -> bool:
    """Let the office's main thread work off every pending event, timer and idle handler; whether it did in time.

    ``processEventsToIdle`` called from this process runs on one of the office's bridge threads,
    where it returns at once while the main thread sits in its event loop. So it is called from
    inside an ``AsyncCallback``, which the main thread runs: a call made back from the callback
    runs on that same thread (UNO keeps a call chain on one thread).
    """
    import threading

    import unohelper
    from com.sun.star.awt import XCallback

    done = threading.Event()
    context = connection.context
    toolkit = context.ServiceManager.createInstanceWithContext("com.sun.star.awt.Toolkit", context)

    class WorkOffEvents(unohelper.Base, XCallback):
        def notify(self, data: Any) -> None:
            try:
                toolkit.processEventsToIdle()
            finally:
                done.set()

    callback = context.ServiceManager.createInstanceWithContext("com.sun.star.awt.AsyncCallback", context)
    callback.addCallback(WorkOffEvents(), None)
    return done.wait(timeout)


def _lay_out_and_repaint(connection: Any) -> int:
    """In the office: lay out every frame, then repaint its window and children now; how many frames."""
    import uno

    flags = uno.getConstantByName("com.sun.star.awt.InvalidateStyle.CHILDREN") | uno.getConstantByName(
        "com.sun.star.awt.InvalidateStyle.UPDATE"
    )
    frames = connection.desktop.getFrames()
    for index in range(frames.getCount()):
        frame = frames.getByIndex(index)
        layout = frame.LayoutManager
        if layout is not None:
            layout.doLayout()
        frame.getContainerWindow().invalidate(flags)
    return frames.getCount()


def _flush_paint(connection: Any) -> int:
    """In the office: paint now whatever its frames have pending (plus one pixel, so a paint always follows)."""
    import uno

    flags = uno.getConstantByName("com.sun.star.awt.InvalidateStyle.CHILDREN") | uno.getConstantByName(
        "com.sun.star.awt.InvalidateStyle.UPDATE"
    )
    pixel = uno.createUnoStruct("com.sun.star.awt.Rectangle", 0, 0, 1, 1)
    frames = connection.desktop.getFrames()
    for index in range(frames.getCount()):
        window = frames.getByIndex(index).getComponentWindow()
        if window is not None:
            window.invalidateRect(pixel, flags)
    return frames.getCount()


def wait_office_presented(
    launched: Any, display_name: str | None, timeout: float, before_flush: Callable[[], None] | None = None
) -> bool:
    """After an action: the office works off its pending events, paints, and its window shows that paint.

    A quiet screen after input can be an office that has not been given the CPU yet. Its main
    thread working off every pending event (:func:`office_idle`: the input, the timers and idle
    handlers it queued) and then a paint it is asked for reaching its window prove that what it
    drew for the action is on the screen. Toolbar and status bar states are sent on a timer, so
    where the frame's :class:`~.office_state_watch.StateWatch` sees one not sent yet, it waits for
    the update and works off its repaint first.

    ``before_flush`` is called once the pending work is done, just before the repaint is asked for.

    Returns:
        Whether the window showed the paint within ``timeout`` (False: it may be covered or hung) and
        no control state was sent late. The office sends a large update in chunks 20 ms apart, so
        after a late one the caller waits for a quiet screen once more.
    """
    from ..screen import DamageWatch

    if launched.uno is None or launched.window_id is None:
        return True
    started = time.monotonic()
    watch = DamageWatch(display_name, window_id=launched.window_id)
    try:
        connection = launched.uno
        if not connection.call(office_idle, connection, timeout, timeout=timeout + 1.0, what="work off pending events"):
            return False
        late = False  # whether toolbar or status bar states were sent after the screen went quiet
        states = launched.extra.get("state_watch")
        if states is not None:
            left = max(0.1, timeout - (time.monotonic() - started))
            lagged = connection.call(states.wait_sent, left, timeout=left + 1.0, what="toolbar and status bar states")
            if lagged:  # the controls got new states: what they repaint for them must be worked off too
                left = max(0.1, timeout - (time.monotonic() - started))
                connection.call(office_idle, connection, left, timeout=left + 1.0, what="work off the state update")
                late = True
        if before_flush is not None:
            before_flush()
        watch.mark()
        left = max(0.1, timeout - (time.monotonic() - started))
        connection.call(_flush_paint, connection, timeout=left, what=f"{launched.app} paint flush")
        return watch.wait_drawn(max(0.0, timeout - (time.monotonic() - started))) and not late
    finally:
        watch.close()


def watch_office_states(connection: Any, deadline: float) -> Any:
    """Listen to the new document frame's toolbar and status bar states (``office_state_watch``); or None."""
    from .office_state_watch import StateWatch

    if not states_watched():
        return None
    try:
        return connection.call(
            StateWatch.attach, connection, timeout=max(0.5, min(5.0, deadline - time.monotonic())), what="watch states"
        )
    except Exception as error:  # noqa: BLE001 - the settle then works as before, without the state check
        log.info("no state watch for the office frame: %s", error)
        return None


def office_ready(ctx: ReadyContext) -> None:
    """The document is in the accessibility tree, laid out and repainted, and its window shows that paint.

    Raises:
        TimeoutError: the document did not reach the tree, or the window did not show the repaint.
    """
    from ...errors import WaitTimeoutError
    from ..screen import DamageWatch

    connection = ctx.launched.uno
    # Attached first, so the office's update pass for the new frame's controls runs during the waits below.
    states = ctx.launched.extra["state_watch"] = watch_office_states(connection, ctx.deadline)
    try:
        poll_until(
            lambda: _showing_document(ctx.current().title),
            ctx.left(CONTENT_TIMEOUT_S),
            f"the document of the window {ctx.current().title!r} in the accessibility tree",
            interval=POLL_INTERVAL_S,
            retry_on=(Exception,),
        )
    except ImportError:  # a guest without accessibility support: the repaint below still proves the paint
        pass
    ctx.done("a11y_content")
    if states is not None:  # the frame's controls (the ruler, the status bar) get their states in a pass
        waited = ctx.left(REPAINT_TIMEOUT_S)
        connection.call(states.wait_update_pass, timeout=waited + 1.0, what="the controls' states")
        ctx.done("control_states")
    waited = ctx.left(REPAINT_TIMEOUT_S)
    if not connection.call(office_idle, connection, waited, timeout=waited + 1.0, what="work off pending events"):
        raise WaitTimeoutError(f"timed out after {waited:.1f} s waiting for the office to work off its pending events")
    ctx.done("office_idle")
    title = ctx.current().title
    watch = DamageWatch(ctx.display_name, window_id=ctx.window.window_id)
    try:
        watch.mark()
        connection.call(
            _lay_out_and_repaint, connection, timeout=ctx.left(REPAINT_TIMEOUT_S), what=f"repaint {title!r}"
        )
        ctx.done("repaint")
        waited = ctx.left(REPAINT_TIMEOUT_S)
        if not watch.wait_drawn(waited):
            raise WaitTimeoutError(
                f"timed out after {waited:.1f} s waiting for the window {title!r} to show its repaint"
            )
        ctx.done("repaint_shown")
    finally:
        watch.close()


def _accessible_frame(pid: int | None, title: str) -> bool | None:
    """Whether the app of ``pid`` shows a frame named ``title`` in the accessibility tree; None: it is not there."""
    from ..a11y import locked_bus

    if pid is None:
        return None
    with locked_bus() as atspi:
        desktop = atspi.get_desktop(0)
        for index in range(desktop.get_child_count()):
            app = desktop.get_child_at_index(index)
            if app is None or app.get_process_id() != pid:
                continue
            return bool(title) and any(
                (frame := app.get_child_at_index(child)) is not None and (frame.get_name() or "") == title
                for child in range(app.get_child_count())
            )
        return None


def window_ready(ctx: ReadyContext) -> None:
    """An app on the accessibility bus shows its frame there, named as its window (its toolkit answers).

    A GTK app joins the bus while it starts, before it maps a window; an app not on the bus
    (xmessage) has nothing to wait for here.

    Raises:
        TimeoutError: its frame did not appear (or not under the window's title) in time.
    """
    from ...errors import WaitTimeoutError

    try:
        on_bus = _accessible_frame(ctx.current().pid, ctx.current().title)
    except Exception:  # noqa: BLE001 - no accessibility bus: nothing to wait for
        on_bus = None
    if on_bus is not None:
        poll_until(
            lambda: _accessible_frame(ctx.current().pid, ctx.current().title),
            ctx.left(CONTENT_TIMEOUT_S),
            f"the frame {ctx.current().title!r} in the accessibility tree",
            interval=POLL_INTERVAL_S,
            retry_on=(Exception,),
            error=WaitTimeoutError,
        )
    ctx.done("a11y_frame")


def no_condition(ctx: ReadyContext) -> None:
    """Nothing beyond the drawn window and quiet screen (``"marker"``: the launcher awaited the marker)."""


#: Readiness kind (an app spec's ``readiness``) -> its semantic check.
READINESS: dict[str, Callable[[ReadyContext], None]] = {
    "uno": office_ready,
    "marker": no_condition,
    "window": window_ready,
}


# ---------------------------------------------------------------------------------------- all kinds
def drawn_pixels(screen: np.ndarray, box: tuple[int, int, int, int]) -> int:
    """How many pixels of ``box`` (x, y, width, height) differ from its most common colour."""
    x, y, width, height = box
    region = screen[max(0, y) : max(0, y + height), max(0, x) : max(0, x + width)]
    if region.size == 0:
        return 0
    packed = (region[..., 0].astype(np.uint32) << 16) | (region[..., 1].astype(np.uint32) << 8) | region[..., 2]
    colours, counts = np.unique(packed.ravel()[::97], return_counts=True)
    return int(np.count_nonzero(packed != colours[np.argmax(counts)]))


def wait_drawn(ctx: ReadyContext) -> None:
    """Wait until the window shows more than one flat colour (its first frame was drawn).

    Raises:
        TimeoutError: it stayed flat for the whole wait.
    """

    def drawn() -> bool:
        window = ctx.current()
        return drawn_pixels(ctx.grab_screen(), (window.x, window.y, window.width, window.height)) >= MIN_DRAWN_PIXELS

    poll_until(
        drawn,
        ctx.left(DRAWN_TIMEOUT_S),
        f"the window {ctx.current().title!r} to show more than one flat colour",
        interval=POLL_INTERVAL_S,
    )


def wait_ready(kind: str, ctx: ReadyContext) -> None:
    """Run the kind's semantic check, wait until the window is drawn, then for a quiet screen.

    Args:
        kind: The app's readiness kind (a key of :data:`READINESS`; others get no semantic check).
        ctx: What the checks look at (its phase clock gets one phase per condition).

    Raises:
        TimeoutError: a condition did not hold in time (the message names it).
    """
    check = READINESS.get(kind, no_condition)  # a kind with no check of its own ("none") waits for the rest
    if not quiet_only():
        check(ctx)
        wait_drawn(ctx)
        ctx.done("drawn")
    if not wait_until_stable(ctx.grab_screen, timeout=ctx.left(QUIET_TIMEOUT_S), quiet=QUIET_S):
        log.info("the screen kept changing after %s started (handed over anyway)", ctx.window.title)
    ctx.done("screen_quiet")
