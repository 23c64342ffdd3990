"""WaitSettled: the guest's one-call settle on X DAMAGE (quiet screen, idle apps, the input's repaint)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import numpy as np
import pytest
from Xlib import X

from desktop_gym.guest.client import GuestClient
from desktop_gym.settle import wait_until_stable

from .conftest import EventProbe

PAINT_LAG = 0.1  # seconds between a key press and the probe's repaint (LibreOffice: 25-140 ms)


class Painter:
    """Paints the probe window: ``PAINT_LAG`` after each key press, or all the time when animating."""

    def __init__(self, probe: EventProbe, animate: bool = False) -> None:
        self.probe, self.animate = probe, animate
        self.colour = 0
        self._stop = threading.Event()
        self._gc = probe.window.create_gc(foreground=0)
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _paint(self) -> None:
        self.colour = (self.colour + 0x3F1F0F) & 0xFFFFFF
        self._gc.change(foreground=self.colour)
        self.probe.window.fill_rectangle(self._gc, 0, 0, 300, 300)
        self.probe.display.sync()

    def _run(self) -> None:
        while not self._stop.wait(0.01):  # a test painter's own frame clock
            if self.animate:
                self._paint()
            elif self.probe.of_type(X.KeyPress):
                self.probe.events.clear()
                time.sleep(PAINT_LAG)  # the app's repaint lag under test
                self._paint()

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)


@pytest.fixture
def painter(probe: EventProbe, guest: GuestClient) -> Iterator[Painter]:
    guest.kill_apps()  # a still screen: nothing else draws
    probe.clear()
    painter = Painter(probe)
    yield painter
    painter.close()


def test_settle_waits_for_the_repaint_an_input_causes(painter: Painter, guest: GuestClient) -> None:
    for key in ("a", "b", "c"):
        colour = painter.colour
        guest.press(key)
        assert guest.wait_settled(quiet=0.06, timeout=1.0)
        settled = guest.screenshot()
        assert painter.colour != colour, "the settle returned before the input's repaint"
        wait_until_stable(guest.screenshot, timeout=3.0, quiet=0.5)
        assert np.array_equal(settled, guest.screenshot())


def test_settle_on_a_still_screen_takes_about_the_quiet_span(painter: Painter, guest: GuestClient) -> None:
    started = time.monotonic()
    assert guest.wait_settled(quiet=0.06, timeout=2.0)
    assert time.monotonic() - started < 1.0


def test_an_animation_ends_the_settle_at_its_timeout(probe: EventProbe, guest: GuestClient) -> None:
    guest.kill_apps()
    animation = Painter(probe, animate=True)
    try:
        started = time.monotonic()
        assert not guest.wait_settled(quiet=0.06, timeout=0.4)
        waited = time.monotonic() - started
    finally:
        animation.close()
    assert 0.4 <= waited < 2.0
