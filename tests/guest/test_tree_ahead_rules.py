"""The rules of ``TreeAhead``: when a walk begins, what drops it, and what is forgiven.

The walk here is a function that returns a numbered text once released, and the draws a counter
the test moves; the real walk and X DAMAGE are in tests/env/test_tree_ahead.py.
"""

from __future__ import annotations

import threading

from desktop_gym.guest.tree_ahead import MAX_STARTS, START_QUIET_S, TreeAhead
from desktop_gym.polling import poll_until


class Desktop:
    """Draws counted by the test; each walk returns ``walk N`` once ``release`` is set."""

    def __init__(self) -> None:
        self.drawn = 0
        self.walks = 0
        self.stopped: list[int] = []
        self.release = threading.Event()

    def draws(self) -> int:
        return self.drawn

    def read(self, stop: threading.Event) -> str:
        self.walks += 1
        number = self.walks
        self.release.wait(5)
        if stop.is_set():
            self.stopped.append(number)
        return f"walk {number}"


def test_a_walk_begins_once_the_screen_is_still_and_is_kept_without_draws() -> None:
    desktop = Desktop()
    ahead = TreeAhead(desktop.read, desktop.draws)
    ahead.on_look(False, START_QUIET_S / 2)
    assert not ahead.running  # not still long enough yet
    ahead.on_look(False, START_QUIET_S)
    assert ahead.running
    desktop.release.set()
    assert ahead.finish(5) == "walk 1"


def test_a_draw_drops_the_walk_and_a_still_screen_begins_another() -> None:
    desktop = Desktop()
    ahead = TreeAhead(desktop.read, desktop.draws)
    ahead.on_look(False, START_QUIET_S)
    poll_until(lambda: desktop.walks == 1 or None, 5, "walk 1 to begin")  # so the walks are numbered in order
    desktop.drawn += 1
    ahead.on_look(True, 0.0)
    assert not ahead.running
    ahead.on_look(False, START_QUIET_S)
    desktop.release.set()
    assert ahead.finish(5) == "walk 2"
    # the dropped walk was told to stop (its thread may still be ending when walk 2 is returned)
    assert poll_until(lambda: desktop.stopped == [1] or None, 5, "the dropped walk to stop")


def test_a_draw_seen_by_another_look_drops_the_walk_at_the_checkpoint() -> None:
    desktop = Desktop()
    ahead = TreeAhead(desktop.read, desktop.draws)
    ahead.on_look(False, START_QUIET_S)
    desktop.drawn += 1  # drawn while the office worked off its events (no on_look saw it)
    ahead.checkpoint()
    desktop.release.set()
    assert ahead.finish(5) is None


def test_only_the_repaint_between_checkpoint_and_rebase_is_forgiven() -> None:
    desktop = Desktop()
    ahead = TreeAhead(desktop.read, desktop.draws)
    ahead.on_look(False, START_QUIET_S)
    ahead.checkpoint()
    desktop.drawn += 1  # the repaint the settle asked for
    ahead.rebase()
    desktop.release.set()
    assert ahead.finish(5) == "walk 1"

    later = TreeAhead(desktop.read, desktop.draws)
    later.on_look(False, START_QUIET_S)
    later.checkpoint()
    later.rebase()
    desktop.drawn += 1  # drawn after the forgiven repaint, before the walk ended
    assert later.finish(5) is None


def test_a_screen_that_keeps_drawing_gets_at_most_max_starts_walks() -> None:
    desktop = Desktop()
    desktop.release.set()
    ahead = TreeAhead(desktop.read, desktop.draws)
    for _ in range(MAX_STARTS + 3):
        ahead.on_look(False, START_QUIET_S)
        desktop.drawn += 1
        ahead.on_look(True, 0.0)
    ahead.on_look(False, 1.0)
    assert ahead.starts == MAX_STARTS and not ahead.running
    assert ahead.finish(5) is None


def test_a_walk_that_fails_or_outlasts_its_timeout_gives_no_text() -> None:
    def failing(stop: threading.Event) -> str:
        raise RuntimeError("the bus went away")

    ahead = TreeAhead(failing, lambda: 0)
    ahead.on_look(False, START_QUIET_S)
    assert ahead.finish(5) is None

    desktop = Desktop()  # never released: the walk outlasts the wait
    slow = TreeAhead(desktop.read, desktop.draws)
    slow.on_look(False, START_QUIET_S)
    assert slow.finish(0.05) is None
    desktop.release.set()


def test_a_cancelled_walk_is_told_to_stop_and_gives_no_text() -> None:
    desktop = Desktop()
    ahead = TreeAhead(desktop.read, desktop.draws)
    ahead.on_look(False, START_QUIET_S)
    ahead.cancel()  # the settle failed (a hung app)
    desktop.release.set()
    assert ahead.finish(5) is None and not ahead.running
    assert poll_until(lambda: desktop.stopped == [1] or None, 5, "the cancelled walk to stop")
