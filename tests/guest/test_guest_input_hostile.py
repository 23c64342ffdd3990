"""Input cannot be used to hold the desktop: caps in the guest, and a reset stops input in flight."""

from __future__ import annotations

import threading
import time

import pytest

from desktop_gym.guest.client import GuestClient
from desktop_gym.guest.input import MAX_REPEATS, MAX_TEXT_CHARS
from desktop_gym.guest.types import GuestError


@pytest.mark.parametrize(
    "call",
    [
        lambda g: g.press("a", presses=MAX_REPEATS + 1),
        lambda g: g.press("a", presses=2_147_483_647),  # grew the guest by ~28 MiB/s without bound
        lambda g: g.scroll(10, 10, dy=MAX_REPEATS + 1),
        lambda g: g.type_text("x" * (MAX_TEXT_CHARS + 1)),
    ],
    ids=["presses", "int32 presses", "scroll", "text"],
)
def test_the_guest_refuses_input_beyond_its_caps(guest: GuestClient, call) -> None:
    started = time.monotonic()
    with pytest.raises(GuestError, match="at most|must be 0 to"):
        call(guest)
    assert time.monotonic() - started < 2.0


def test_kill_apps_stops_a_long_type_text_in_flight(guest: GuestClient) -> None:
    outcome: dict[str, BaseException | None] = {}

    def type_a_lot() -> None:
        try:
            guest.type_text("x" * MAX_TEXT_CHARS)
            outcome["error"] = None
        except GuestError as error:
            outcome["error"] = error

    worker = threading.Thread(target=type_a_lot)
    started = time.monotonic()
    worker.start()
    # KillApps may reach the guest before the Input call does: repeat it until typing stops.
    while worker.is_alive() and time.monotonic() - started < 30:
        guest.kill_apps()
        worker.join(timeout=0.05)
    worker.join(timeout=5)
    assert not worker.is_alive()
    assert outcome["error"] is not None and "input stopped" in str(outcome["error"])
    # The input lock is free again: the next action is delivered at once.
    started = time.monotonic()
    guest.press("shift")
    assert time.monotonic() - started < 2.0
