"""``put_file`` never follows a link planted in the session home (issue 32): a ``run`` setup step, or an
agent's shell, can make any folder or file of ``~`` a symlink before the next write lands."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from desktop_gym.guest import files
from desktop_gym.guest.client import GuestClient
from desktop_gym.guest.types import GuestError


@pytest.fixture
def home_and_outside(tmp_path: Path) -> tuple[Path, Path]:
    home, outside = tmp_path / "home", tmp_path / "outside"
    home.mkdir()
    outside.mkdir()
    return home, outside


def test_a_folder_of_the_home_that_links_out_is_not_written_through(home_and_outside: tuple[Path, Path]) -> None:
    home, outside = home_and_outside
    (home / "Documents").symlink_to(outside)
    with pytest.raises(PermissionError, match="Documents.*symbolic link"):
        files.put_file("~/Documents/report.txt", b"x", home)
    assert list(outside.iterdir()) == []


def test_a_deeper_folder_that_links_out_is_not_written_through(home_and_outside: tuple[Path, Path]) -> None:
    home, outside = home_and_outside
    (home / "a").mkdir()
    (home / "a" / "b").symlink_to(outside)
    with pytest.raises(PermissionError):
        files.put_file("~/a/b/c/new.txt", b"x", home)  # would also have created outside/c
    assert list(outside.iterdir()) == []


def test_a_planted_part_file_link_is_not_written_through(home_and_outside: tuple[Path, Path]) -> None:
    home, outside = home_and_outside
    victim = outside / "victim"
    victim.write_bytes(b"kept")
    (home / ".note.txt.part").symlink_to(victim)  # the name put_file writes first
    assert files.put_file("~/note.txt", b"new", home) == str(home / "note.txt")
    assert victim.read_bytes() == b"kept"
    assert (home / "note.txt").read_bytes() == b"new" and not (home / "note.txt").is_symlink()


def test_a_target_that_is_a_link_is_replaced_not_followed(home_and_outside: tuple[Path, Path]) -> None:
    home, outside = home_and_outside
    victim = outside / "victim"
    victim.write_bytes(b"kept")
    (home / "note.txt").symlink_to(victim)
    files.put_file("~/note.txt", b"new", home, mode=0o600)
    assert victim.read_bytes() == b"kept"
    assert (home / "note.txt").read_bytes() == b"new" and os.stat(home / "note.txt").st_mode & 0o777 == 0o600


def test_dot_dot_cannot_leave_the_home(home_and_outside: tuple[Path, Path]) -> None:
    home, outside = home_and_outside
    with pytest.raises(PermissionError, match="leaves the session home"):
        files.put_file("~/../outside/x", b"x", home)
    assert list(outside.iterdir()) == []


def test_ordinary_writes_create_folders_and_keep_the_mode(home_and_outside: tuple[Path, Path]) -> None:
    home, _outside = home_and_outside
    written = files.put_file("~/a/b/run.sh", b"#!/bin/sh\n", home, mode=0o755)
    assert written == str(home / "a" / "b" / "run.sh")
    assert os.stat(written).st_mode & 0o777 == 0o755
    files.put_file("~/a/b/run.sh", b"again", home)  # over an existing file
    assert Path(written).read_bytes() == b"again"


@pytest.fixture
def shared_folder() -> Iterator[Path]:
    """A folder the session user may write (as /tmp or a shared mount would be), removed after."""
    folder = Path(tempfile.mkdtemp(prefix="dg-outside-"))
    os.chmod(folder, 0o777)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def test_a_link_planted_by_a_command_in_the_desktop_is_refused(guest: GuestClient, shared_folder: Path) -> None:
    result = guest.exec(f"rm -rf ~/planted && ln -s {shared_folder} ~/planted", shell=True)
    assert result.returncode == 0, result.stderr
    try:
        with pytest.raises(GuestError, match="symbolic link"):
            guest.put_file("~/planted/x.txt", b"x")
        assert list(shared_folder.iterdir()) == []
    finally:
        guest.exec("rm -f ~/planted", shell=True)
