"""Launch readiness (issue 32): every app kind has a check; 'drawn' and 'repaint shown' are real X facts."""

from __future__ import annotations

import time

import numpy as np
import pytest

from desktop_gym.apps.spec import APP_SPECS
from desktop_gym.guest.apps import readiness
from desktop_gym.guest.apps.launcher import APPS
from desktop_gym.guest.client import GuestClient
from desktop_gym.guest.screen import DamageWatch
from desktop_gym.settle import wait_until_stable
from desktop_gym.testing import cpu_load, screen_difference

from .conftest import EventProbe


def test_every_launchable_app_has_a_readiness_check() -> None:
    kinds = {key: readiness.readiness_kind(APP_SPECS[key]) for key in APPS}
    assert kinds["calc"] == kinds["writer"] == kinds["impress"] == "uno"
    assert kinds["terminal"] == "marker" and kinds["editor"] == "window"
    assert set(kinds.values()) <= set(readiness.READINESS)


def test_a_flat_window_counts_as_undrawn_and_one_with_text_as_drawn() -> None:
    screen = np.full((720, 1280, 3), 60, dtype=np.uint8)
    screen[:25] = 200  # a title bar outside the window's box
    box = (0, 25, 1280, 695)
    assert readiness.drawn_pixels(screen, box) == 0  # the empty grey Calc window of issue 32
    screen[40:52, 10:18] = 255  # a lone cursor block: not yet drawn
    assert readiness.drawn_pixels(screen, box) < readiness.MIN_DRAWN_PIXELS
    screen[40:52, 20:120:3] = 255  # a prompt's worth of glyph columns
    assert readiness.drawn_pixels(screen, box) >= readiness.MIN_DRAWN_PIXELS


def test_a_window_damage_watch_sees_what_is_drawn_into_that_window_only(
    probe: EventProbe, guest: GuestClient, desktop, monkeypatch: pytest.MonkeyPatch
) -> None:
    xauthority = desktop.start().info.get("xauthority")
    if xauthority:
        monkeypatch.setenv("XAUTHORITY", xauthority)  # the guest's own X connections have it in their env
    display = guest.ping()["display"]
    watch = DamageWatch(display, window_id=probe.window.id)
    try:
        watch.mark()
        assert not watch.wait_drawn(0.3)  # nothing drawn into it yet
        gc = probe.window.create_gc(foreground=0)
        probe.window.fill_rectangle(gc, 0, 0, 10, 10)
        probe.display.sync()
        started = time.monotonic()
        assert watch.wait_drawn(5.0)
        assert time.monotonic() - started < 2.0
        watch.mark()
        assert not watch.wait_drawn(0.2)  # that draw was seen; nothing new since
    finally:
        watch.close()


def test_the_quiet_only_baseline_is_switched_by_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(readiness.READINESS_VARIABLE, "quiet")
    assert readiness.quiet_only()
    monkeypatch.delenv(readiness.READINESS_VARIABLE)
    assert not readiness.quiet_only()


@pytest.mark.slow
@pytest.mark.timeout(240)
def test_under_load_a_launched_office_is_drawn_when_launch_app_returns(guest: GuestClient) -> None:
    guest.put_file("~/ready.csv", b"Item,Q1\nApples,12\n")
    late = []
    with cpu_load(seconds=180) as load:
        for attempt in range(3):
            guest.kill_apps()
            guest.launch_app("calc", "~/ready.csv")
            at_return = guest.screenshot()
            window = next(w for w in guest.windows() if "ready.csv" in w.title)
            box = (window.x, window.y, window.width, window.height)
            assert readiness.drawn_pixels(at_return, box) > 10_000, "an unpainted office window"
            assert wait_until_stable(guest.screenshot, timeout=20.0, quiet=1.0)
            later = screen_difference(at_return, guest.screenshot())
            if not later.within_caret_mask:
                late.append(f"launch {attempt}: {later}")
    assert not late, (
        f"the office was still being drawn after launch_app returned (load {load.load_average:.1f}): {late}"
    )
