"""Launching apps, tracking them, detecting dead ones and killing them."""

from __future__ import annotations

import time

import pytest

from desktop_gym.guest.client import GuestClient
from desktop_gym.guest.types import GuestError


def _group_members(guest: GuestClient, pgid: int) -> list[str]:
    out = guest.exec(["ps", "-eo", "pgid=,stat=,pid="]).stdout
    return [line for line in out.splitlines() if line.split()[0] == str(pgid) and not line.split()[1].startswith("Z")]


def test_launch_track_and_kill(guest: GuestClient) -> None:
    path = guest.put_file("~/hello.txt", b"hello\n")
    editor = guest.launch_app("editor", file=path)
    terminal = guest.launch_app("terminal")
    assert editor.file == path and editor.alive and editor.window_id
    assert [(a.app, a.alive) for a in guest.apps()] == [("editor", True), ("terminal", True)]
    assert any(w.window_id == editor.window_id and w.app == "mousepad" for w in guest.windows())
    guest.kill_apps()
    assert guest.apps() == []
    for app in (editor, terminal):
        assert _group_members(guest, app.pid) == []
    assert not {editor.window_id, terminal.window_id} & {w.window_id for w in guest.windows()}


def test_dead_app_is_reported(guest: GuestClient, wait_until) -> None:
    app = guest.launch_app("terminal")
    guest.exec(["kill", "-9", str(app.pid)])
    wait_until(lambda: not guest.apps()[0].alive, what="the killed xterm to be reported dead")


def test_launch_errors_name_the_problem(guest: GuestClient) -> None:
    with pytest.raises(GuestError, match="unknown app 'paint'"):
        guest.launch_app("paint")
    with pytest.raises(GuestError, match="no such file"):
        guest.launch_app("editor", file="~/does-not-exist.txt")


@pytest.mark.slow
def test_launch_calc_in_place_and_relaunch_after_kill(guest: GuestClient) -> None:
    source = guest.put_file("~/Documents/book.csv", b"a,b\n1,2\n")
    first = guest.launch_app("calc", file=source, timeout=60)
    assert first.alive and first.window_id and first.file == source
    window = next(w for w in guest.windows() if w.window_id == first.window_id)
    assert "libreoffice" in window.app
    assert guest.exec(["ls", "-a", "~/Documents".replace("~", guest.ping()["home"])]).stdout.count(".~lock") == 1
    guest.kill_apps()  # SIGKILL leaves the lock file; the launcher removes it
    assert ".~lock" not in guest.exec(["ls", "-a", guest.ping()["home"] + "/Documents"]).stdout
    second = guest.launch_app("calc", file=source, timeout=60)  # no "Document in use" dialog
    assert second.alive and len([w for w in guest.windows() if "libreoffice" in w.app]) == 1
    blank = guest.launch_app("writer", timeout=60)
    assert blank.file is None and blank.alive


def test_terminal_is_ready_for_keystrokes_when_launch_returns(guest: GuestClient) -> None:
    guest.launch_app("terminal")
    guest.type_text("echo ready > ~/terminal-ready.txt\n")
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            assert guest.get_file("~/terminal-ready.txt") == b"ready\n"
            return
        except GuestError:
            time.sleep(0.02)
    raise AssertionError("the command typed right after launch never ran")
