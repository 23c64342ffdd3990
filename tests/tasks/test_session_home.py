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


@pytest.mark.slow
def test_artifacts_that_are_folders_or_links_out_of_the_home_are_not_read(guest) -> None:
    from desktop_gym.errors import GuestError

    guest.clear_session()
    made = guest.exec(
        'ln -s /etc/hostname "$HOME/report.txt" && echo inside > "$HOME/Documents/real.txt" '
        '&& ln -s "$HOME/Documents/real.txt" "$HOME/alias.txt"',
        shell=True,
        timeout=10,
    )
    assert made.returncode == 0, made.stderr
    with pytest.raises(GuestError, match="symlink out of the session home"):
        guest.get_file("~/report.txt")
    with pytest.raises(GuestError):
        guest.get_file("~/Documents")  # a folder where a file is expected
    assert guest.get_file("~/alias.txt") == b"inside\n"  # a link that stays in the home is fine
