"""Commands and file transfer in the session (HOME = the session home)."""

from __future__ import annotations

import time

import pytest

from desktop_gym.guest.client import GuestClient
from desktop_gym.guest.types import GuestError


def test_exec_runs_in_session_home(guest: GuestClient) -> None:
    home = guest.ping()["home"]
    result = guest.exec(["sh", "-c", 'echo "$HOME"; pwd; echo err >&2; exit 3'])
    assert result.stdout.split() == [home, home]
    assert (result.stderr, result.returncode, result.timed_out) == ("err\n", 3, False)
    assert guest.exec("echo a | tr a b", shell=True).stdout == "b\n"
    assert guest.exec("printf '%s' 'x y'").stdout == "x y"  # a string without shell is split like a shell
    assert guest.exec(["pwd"], cwd="/tmp").stdout == "/tmp\n"


def test_exec_timeout_kills_the_process_group(guest: GuestClient) -> None:
    started = time.monotonic()
    # An unusual duration, so that no other process on the machine matches it.
    result = guest.exec("sleep 10.3141 & sleep 10.3141; echo never", shell=True, timeout=0.5)
    assert result.timed_out and result.returncode == -9 and "never" not in result.stdout
    assert time.monotonic() - started < 3.0
    assert "sleep 10.3141" not in guest.exec(["ps", "-eo", "args"]).stdout.splitlines()


def test_exec_missing_program_is_an_error(guest: GuestClient) -> None:
    with pytest.raises(GuestError, match="no-such-program"):
        guest.exec(["no-such-program"])


def test_put_get_roundtrip_with_home_and_parents(guest: GuestClient) -> None:
    home = guest.ping()["home"]
    data = bytes(range(256)) * 100
    path = guest.put_file("~/deep/er/file.bin", data, mode=0o600)
    assert path == f"{home}/deep/er/file.bin"
    assert guest.get_file(path) == data and guest.get_file("~/deep/er/file.bin") == data
    assert guest.exec(["stat", "-c", "%a", path]).stdout.strip() == "600"


def test_get_missing_or_relative_path_is_an_error(guest: GuestClient) -> None:
    with pytest.raises(GuestError, match="no such file in the guest: .*/home/missing.txt"):
        guest.get_file("~/missing.txt")
    with pytest.raises(GuestError, match="must be absolute"):
        guest.put_file("relative.txt", b"")
