"""The wiped session home looks like a fresh desktop account's: the standard XDG folders exist."""

from __future__ import annotations

import pytest

from desktop_gym.guest.client import XDG_USER_DIRS


@pytest.mark.slow
def test_a_wiped_home_has_the_standard_folders_and_nothing_else(guest) -> None:
    guest.put_file("~/leftover/from/last/episode.txt", b"x")
    guest.clear_session()
    listing = guest.exec('ls -A "$HOME"', shell=True, timeout=10)
    assert listing.returncode == 0
    assert sorted(listing.stdout.split()) == sorted(XDG_USER_DIRS)
    saved = guest.put_file("~/Documents/x.txt", b"saved")
    assert saved.endswith("/Documents/x.txt")
