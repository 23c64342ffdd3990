"""Window listing, activation and closing through EWMH, and screenshots seeing windows."""

from __future__ import annotations

import numpy as np
import pytest

from desktop_gym.guest.client import GuestClient
from desktop_gym.guest.types import GuestError


def test_window_drawing_changes_pixels(guest: GuestClient, wait_until) -> None:
    before = guest.screenshot()
    app = guest.launch_app("terminal")
    window = next(w for w in guest.windows() if w.window_id == app.window_id)
    region = (slice(window.y, window.y + window.height), slice(window.x, window.x + window.width))

    def changed() -> bool:
        return bool(np.any(guest.screenshot()[region] != before[region]))

    wait_until(changed, what="the xterm window to appear in a screenshot")


def test_windows_list_activate_close(guest: GuestClient, wait_until) -> None:
    first = guest.launch_app("terminal")
    second = guest.launch_app("terminal")
    windows = {w.window_id: w for w in guest.windows()}
    assert {first.window_id, second.window_id} <= set(windows)
    info = windows[first.window_id]
    assert info.app == "xterm" and info.pid == first.pid and info.width > 0 and info.height > 0
    assert 0 <= info.x < 1280 and 0 <= info.y < 720

    guest.activate_window(first.window_id)
    assert guest.focused_window().window_id == first.window_id
    guest.activate_window(second.window_id)
    assert guest.focused_window().window_id == second.window_id

    guest.close_window(second.window_id)
    wait_until(
        lambda: second.window_id not in {w.window_id for w in guest.windows()},
        what="the closed xterm window to disappear",
    )
    wait_until(
        lambda: not next(a for a in guest.apps() if a.pid == second.pid).alive,
        what="the closed xterm to exit",
    )


def test_unknown_window_is_an_error(guest: GuestClient) -> None:
    with pytest.raises(GuestError, match="no managed window with id 0x7"):
        guest.activate_window(7)
