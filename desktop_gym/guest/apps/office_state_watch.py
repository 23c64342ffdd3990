"""Whether an office's toolbars and status bar already show what its document state is now.

LibreOffice does not update its toolbar buttons and status bar fields when a command changes the
document: it marks their states dirty and sends the new states ``SfxBindings``' timer later (300 ms
after the first change, later under load). A screenshot taken when the screen first goes quiet after
typing into Calc therefore still shows Undo greyed out and the document unmodified (issue 32:
176 pixels in the toolbar and status bar, at every load).

:class:`StateWatch` listens to a few of those states on the document's frame, as the toolbar does
(a ``com.sun.star.frame.XStatusListener`` on the frame's dispatch for each command). A listener
added and removed at once gets the state computed now, while the kept listener holds the state last
sent to the controls. Where they differ, an update is still due; :meth:`StateWatch.wait_sent`
waits for it (on the listener's events, bounded), so the settle after an action can then wait for
its paint. A command whose states never agree (some states are computed differently on demand) is
dropped from the watch after its first timeout, so it cannot slow every later step; when the
frame's document closes (its controller is disposed), the watch stops.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

log = logging.getLogger(__name__)

#: Commands whose state the standard toolbars and status bars show (unknown ones are skipped).
WATCHED_COMMANDS = (
    ".uno:Undo",
    ".uno:Redo",
    ".uno:ModifiedStatus",
    ".uno:Bold",
    ".uno:Italic",
    ".uno:Underline",
    ".uno:StateTableCell",  # Calc: the status bar's "Sum" field
    ".uno:StatusDocPos",  # Calc: "Sheet 1 of 1"
    ".uno:StatePageNumber",  # Writer: "Page 1 of 1"
    ".uno:StateWordCount",  # Writer: the word and character count
    ".uno:Context",  # Impress: the status bar's context ("TextEdit: Paragraph 1, Row 1, Column 12")
    ".uno:Position",  # Impress: the selection's position
    ".uno:Size",  # Impress: the selection's size
    ".uno:PageStatus",  # Impress: "Slide 1 of 2"
)
MAX_WAIT_S = 2.0  # the longest wait for the timer's update; past it the lagging commands are dropped
#: How long after attaching a new frame's first update pass is waited for. The office sends it 300 ms
#: after the load; under load it can come before the watch is attached, and then none follows.
PASS_WAIT_S = 1.0


def _state_key(event: Any) -> tuple[bool, str]:
    return (bool(event.IsEnabled), repr(event.State))


class StateWatch:
    """Listeners on one office frame's command states: the states sent to its controls, and the true ones.

    Build it with :meth:`attach` inside an office call (``UnoConnection.call``); its other methods
    also make UNO calls and belong inside one.
    """

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._sent: dict[str, tuple[bool, str] | None] = {}
        self._events: dict[str, int] = {}  # states sent per command since the watch began
        self._dispatches: dict[str, tuple[Any, Any]] = {}
        self._listener: Any = None
        self._closed = False  # the frame's dispatches were disposed (its document closed): nothing to watch
        self.attached_at = time.monotonic()
        self._attach_events: dict[str, int] = {}

    @classmethod
    def attach(cls, connection: Any, commands: tuple[str, ...] = WATCHED_COMMANDS) -> StateWatch | None:
        """Watch the current frame of ``connection``'s office (None when it has no frame)."""
        import uno
        import unohelper
        from com.sun.star.frame import XStatusListener

        frame = connection.desktop.getCurrentFrame()
        if frame is None:
            return None
        watch = cls()

        class Sent(unohelper.Base, XStatusListener):
            def statusChanged(self, event: Any) -> None:  # noqa: N802 - UNO's name
                with watch._changed:
                    watch._sent[event.FeatureURL.Complete] = _state_key(event)
                    watch._events[event.FeatureURL.Complete] = watch._events.get(event.FeatureURL.Complete, 0) + 1
                    watch._changed.notify_all()

            def disposing(self, source: Any) -> None:
                with watch._changed:
                    watch._closed = True
                    watch._changed.notify_all()

        transformer = connection.context.ServiceManager.createInstanceWithContext(
            "com.sun.star.util.URLTransformer", connection.context
        )
        watch._listener = Sent()
        controller = frame.getController()
        if controller is not None:  # disposed when its document closes (the dispatches are not)
            controller.addEventListener(watch._listener)
        for command in commands:
            _, url = transformer.parseStrict(uno.createUnoStruct("com.sun.star.util.URL", Complete=command))
            dispatch = frame.queryDispatch(url, "", 0)
            if dispatch is None:
                continue
            watch._dispatches[command] = (dispatch, url)
            dispatch.addStatusListener(watch._listener, url)
        with watch._changed:
            watch._attach_events = dict(watch._events)  # the states sent on attaching; later ones are a pass
        return watch

    def _now(self, command: str) -> tuple[bool, str] | None:
        import unohelper
        from com.sun.star.frame import XStatusListener

        dispatch, url = self._dispatches[command]
        seen: list[tuple[bool, str]] = []

        class Now(unohelper.Base, XStatusListener):
            def statusChanged(self, event: Any) -> None:  # noqa: N802 - UNO's name
                seen.append(_state_key(event))

            def disposing(self, source: Any) -> None:
                pass

        listener = Now()
        dispatch.addStatusListener(listener, url)  # a new listener is sent the state computed now
        dispatch.removeStatusListener(listener, url)
        return seen[-1] if seen else None

    def current(self) -> dict[str, tuple[bool, str]]:
        """Each watched command's state computed now."""
        states = {}
        for command in list(self._dispatches):
            if self._closed:
                return {}
            try:
                now = self._now(command)
            except Exception as error:  # noqa: BLE001 - a disposed dispatch (the frame closed): stop watching it
                log.info("no state for %s (%s); no longer watched", command, type(error).__name__)
                self._dispatches.pop(command, None)
                continue
            if now is not None:
                states[command] = now
        return states

    def lagging(self, states: dict[str, tuple[bool, str]] | None = None) -> list[str]:
        """Commands whose controls were not sent their current state (``states``, or computed now) yet."""
        states = self.current() if states is None else states
        with self._changed:
            return [command for command, now in states.items() if self._sent.get(command) != now]

    def wait_sent(self, timeout: float = MAX_WAIT_S) -> list[str]:
        """Wait until every control was sent its current state; the commands that lagged at first.

        Waits on the kept listener's events for the states computed at the start. Commands still
        lagging after ``timeout`` (checked against their states computed again then) are dropped
        from the watch (logged).
        """
        states = self.current()
        with self._changed:
            first = self.lagging(states)
            before = {command: self._sent.get(command) for command in first}

            def sent() -> bool:  # each lagging control was sent a state since (the one computed, or a later one)
                return self._closed or all(self._sent.get(command) != old for command, old in before.items())

            self._changed.wait_for(sent, max(0.0, min(timeout, MAX_WAIT_S)))
        lagging = [command for command in first if command in self.lagging()] if not sent() else []
        for command in lagging:
            log.info("the office never sent %s its current state; no longer watched", command)
            self._dispatches.pop(command, None)
        return first

    def wait_update_pass(self) -> bool:
        """Wait until the office sent a watched state again after attaching, at most until ``PASS_WAIT_S`` after it.

        A new frame's controls (the ruler among them) get their states in an update pass a moment
        after the document loads; that the pass ran shows in a watched state being sent again (not
        every command is sent in every app, and a large pass is sent in chunks 20 ms apart, which the
        caller's wait for a quiet screen covers). A pass that ran before the watch was attached
        (under load the launch's other waits can outlast its timer) sends nothing more, so the wait
        ends ``PASS_WAIT_S`` after attaching. Returns whether a pass was seen.
        """
        with self._changed:
            attached = self._attach_events
            return self._changed.wait_for(
                lambda: (
                    self._closed
                    or any(self._events.get(command, 0) > attached.get(command, 0) for command in self._dispatches)
                ),
                max(0.0, self.attached_at + PASS_WAIT_S - time.monotonic()),
            )
