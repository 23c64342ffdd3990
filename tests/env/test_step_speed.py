"""The cheap step: a kept screenshot frame is reused only while X DAMAGE reports nothing drawn.

Drawing is done by a real X client on the session desktop (a window mapped, filled, unmapped),
and every kept frame is compared with a fresh grab of the same screen.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest
from Xlib import display as xdisplay

from desktop_gym import DesktopEnv
from desktop_gym.guest.client import GuestClient
from desktop_gym.guest.screen import ScreenCapture


@pytest.fixture
def display_name(guest: GuestClient, desktop, monkeypatch: pytest.MonkeyPatch) -> str:
    """The session desktop's display, which this process may open (its X cookie in XAUTHORITY)."""
    guest.kill_apps()  # a still screen: no app blinks a cursor
    xauthority = desktop.start().info.get("xauthority")
    if xauthority:
        monkeypatch.setenv("XAUTHORITY", xauthority)
    return guest.ping()["display"]


@pytest.fixture
def painter(display_name: str) -> Iterator[xdisplay.Display]:
    connection = xdisplay.Display(display_name)
    yield connection
    connection.close()


@pytest.fixture
def capture(display_name: str) -> Iterator[ScreenCapture]:
    capture = ScreenCapture(display_name)
    yield capture
    capture.close()


def _still_kept_frame(capture: ScreenCapture, wait_until) -> np.ndarray:
    """A frame kept under ``"kept"``: the first look grabs it, then wait for a look that reuses it."""
    kept = np.zeros((*capture.size[::-1], 3), dtype=np.uint8)
    assert capture.refresh(kept, key="kept") is True  # the first look always grabs
    wait_until(lambda: capture.refresh(kept, key="kept") is False, 5.0, "a still screen to keep its frame")
    return kept


def _window(painter: xdisplay.Display, x: int, y: int):
    screen = painter.screen()
    window = screen.root.create_window(
        x, y, 160, 90, 0, screen.root_depth, background_pixel=screen.white_pixel, override_redirect=True
    )
    window.map()
    painter.sync()
    return window


def _wait_frame(capture: ScreenCapture, kept: np.ndarray, wait_until, what: str) -> None:
    """Refresh ``kept`` until it equals a fresh grab (the server draws asynchronously)."""
    wait_until(
        lambda: capture.refresh(kept, key="kept") is not None and np.array_equal(kept, capture.grab()), 5.0, what
    )


def test_kept_frame_is_reused_while_nothing_is_drawn_and_regrabbed_after_drawing(
    capture: ScreenCapture, painter: xdisplay.Display, wait_until
) -> None:
    kept = _still_kept_frame(capture, wait_until)
    window = _window(painter, 40, 40)
    _wait_frame(capture, kept, wait_until, "the kept frame to show the mapped white window")
    assert kept[60, 60].tolist() == [255, 255, 255]
    gc = window.create_gc(foreground=painter.screen().black_pixel)
    window.fill_rectangle(gc, 0, 0, 40, 40)
    painter.sync()
    _wait_frame(capture, kept, wait_until, "the kept frame to show the black square")
    assert kept[50, 50].tolist() == [0, 0, 0]
    assert capture.refresh(np.zeros_like(kept), key="other") is True  # another frame is not the kept one
    window.unmap()
    painter.sync()
    _wait_frame(capture, kept, wait_until, "the kept frame to lose the unmapped window")


def _shared_frame_equals_fresh_grab(client: GuestClient) -> bool:
    """Whether the screenshot over the shared frame equals one grabbed afresh over the channel."""
    client._try_shared_frame = True
    kept = client.screenshot()
    client._try_shared_frame = False
    try:
        return np.array_equal(kept, client.screenshot())
    finally:
        client._try_shared_frame = True


def test_shared_frame_screenshots_follow_drawing(
    guest: GuestClient, display_name: str, painter: xdisplay.Display, wait_until
) -> None:
    def matches_fresh_bytes() -> bool:
        return _shared_frame_equals_fresh_grab(guest)

    assert matches_fresh_bytes()
    window = _window(painter, 300, 200)
    for colour in (painter.screen().black_pixel, painter.screen().white_pixel, painter.screen().black_pixel):
        gc = window.create_gc(foreground=colour)
        window.fill_rectangle(gc, 0, 0, 160, 90)
        painter.sync()
        wait_until(matches_fresh_bytes, 5.0, "the shared-frame screenshot to equal a fresh grab after drawing")
        expected = [0, 0, 0] if colour == painter.screen().black_pixel else [255, 255, 255]
        assert guest.screenshot()[240, 380].tolist() == expected
    window.destroy()
    painter.sync()
    wait_until(matches_fresh_bytes, 5.0, "the shared-frame screenshot to equal a fresh grab after the window went")


@pytest.mark.slow
def test_step_screenshots_show_typed_values_in_calc_and_stay_fresh(desktop, wait_until) -> None:
    """Real Calc on the session desktop: each step's screenshot shows what was typed, and the next
    shared-frame screenshot equals a fresh grab (sent as bytes) once Calc stops repainting."""
    env = DesktopEnv(observation=("screenshot",), action_mode="gui", backend=desktop)
    try:
        before, _ = env.reset(seed=0, options={"task_id": "starter.calc_fill_totals"})
        client = env.client
        previous = before["screenshot"]
        for action in ("type(text='98765\\n')", "hotkey(keys=['ctrl', 'Home'])", "type(text='4321\\n')"):
            observation, *_ = env.step(action)
            assert not np.array_equal(observation["screenshot"], previous), f"{action} left the screenshot as it was"
            previous = observation["screenshot"]

            def kept_equals_fresh() -> bool:
                return _shared_frame_equals_fresh_grab(client)

            wait_until(kept_equals_fresh, 10.0, f"the kept frame to equal a fresh grab after {action}")
    finally:
        env.close()


def test_a_settle_that_saw_drawing_leaves_the_kept_frame_to_be_grabbed_anew(
    capture: ScreenCapture, painter: xdisplay.Display, wait_until
) -> None:
    """The settle and the kept frame share one damage watch: damage the settle consumed still counts."""
    kept = _still_kept_frame(capture, wait_until)
    window = _window(painter, 40, 40)
    assert capture.wait_quiet(quiet=0.06, timeout=2.0)  # sees (and clears) the window's damage
    assert capture.refresh(kept, key="kept") is True
    assert np.array_equal(kept, capture.grab()) and kept[60, 60].tolist() == [255, 255, 255]
    window.destroy()
    painter.sync()
