"""Reading the accessibility tree while the settle wait runs, kept only if nothing was drawn since.

A step with the default observation waited for the screen to settle (~90-120 ms on Calc) and then
walked the accessibility tree (~150 ms). Most of the settle is the quiet span itself, spent waiting.
:class:`TreeAhead` starts the walk once the screen has been still for ``START_QUIET_S`` and keeps
it only if nothing is drawn from its start to its end (the settle's end included): an app that changes what the
tree shows repaints too, so the tree read during an unchanged screen is the settled one. A draw
stops the walk, and one begins again once the screen is still (at most ``MAX_STARTS`` per settle);
when no walk survives, the caller reads the tree after the settle, as before.

One draw is expected, not a change: the settle asks each office to repaint and waits until its
window shows it (``readiness.wait_office_presented``). :meth:`TreeAhead.checkpoint` before that
paint drops a walk that saw a real draw, and :meth:`TreeAhead.rebase` after it forgives only it.
``DESKTOP_GYM_TREE_AHEAD=0`` (read on the host) turns it off: the baseline and the proof that
tests fail without the draw check.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

log = logging.getLogger(__name__)

START_QUIET_S = 0.01  # how long the screen must be still before a walk begins
MAX_STARTS = 3  # walks begun in one settle; a screen that keeps drawing is read after it instead


class TreeAhead:
    """One settle's walk ahead of time.

    Args:
        read: walks the tree; stops early once its event is set (the text is then dropped).
        draws: looks at the screen and returns how many draws were seen so far (``DamageWatch.draws``).
    """

    def __init__(self, read: Callable[[threading.Event], str], draws: Callable[[], int]) -> None:
        self._read, self._draws = read, draws
        self._walk: threading.Thread | None = None
        self._stop = threading.Event()
        self._text: list[str] = []
        self._draws_at_start = 0
        self.starts = 0

    @property
    def running(self) -> bool:
        """Whether a walk was begun and no draw has been seen since."""
        return self._walk is not None

    def on_look(self, drawn: bool, quiet_for: float) -> None:
        """Hook for ``wait_quiet``: a draw drops the walk; a still screen begins one."""
        if drawn:
            self._drop()
        elif self._walk is None and quiet_for >= START_QUIET_S and self.starts < MAX_STARTS:
            self._begin()

    def checkpoint(self) -> None:
        """Drop the walk if anything was drawn since it began (call before an expected repaint)."""
        if self._walk is not None and self._draws() != self._draws_at_start:
            self._drop()

    def rebase(self) -> None:
        """Forgive what was drawn since the last :meth:`checkpoint` (the expected repaint)."""
        if self._walk is not None:
            self._draws_at_start = self._draws()

    def finish(self, timeout: float) -> str | None:
        """The text of a walk that saw nothing drawn from its start to its end (waiting for it), else None.

        A draw after the settle but before the walk ended drops it too: the walk may have read part
        of the tree before that change and part after.
        """
        self.checkpoint()
        walk, text = self._walk, self._text
        if walk is None:
            return None
        walk.join(timeout)
        if walk.is_alive() or not text:
            self._drop()
            return None
        self.checkpoint()
        return text[0] if self._walk is walk else None

    def _begin(self) -> None:
        self.starts += 1
        self._draws_at_start = self._draws()
        stop, text = threading.Event(), []
        self._stop, self._text = stop, text
        self._walk = threading.Thread(target=self._run, args=(stop, text), name="tree-ahead", daemon=True)
        self._walk.start()

    def _run(self, stop: threading.Event, text: list[str]) -> None:
        try:
            text.append(self._read(stop))
        except Exception as error:  # noqa: BLE001 - the tree is then read after the settle, which reports it
            log.info("the tree read ahead failed: %s", error)

    def cancel(self) -> None:
        """Stop the walk (the settle failed): it ends at its next node and its text is dropped."""
        self._drop()

    def _drop(self) -> None:
        if self._walk is not None:
            self._stop.set()
            self._walk = None
