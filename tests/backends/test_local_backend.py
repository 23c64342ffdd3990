"""The local backend: start, health, two sessions at once, and a teardown that leaves nothing behind."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from desktop_gym.backends import make_backend, reaper
from desktop_gym.backends.local import LocalBackend, processes_with_marker
from desktop_gym.guest.client import GuestClient
from desktop_gym.guest.types import GuestUnavailableError

DAEMON_NAMES = ("dbus-daemon", "at-spi-bus-launcher", "at-spi2-registryd", "Xvfb", "openbox", "soffice.bin")


def _daemons() -> dict[int, str]:
    """Pid -> command name of the desktop daemons running now (zombies excluded)."""
    found = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            name, state = stat[stat.index("(") + 1 : stat.rindex(")")], stat[stat.rindex(")") + 2]
            if state == "Z":  # killed, waiting for init to reap it
                continue
            if any(name.startswith(daemon[:15]) for daemon in DAEMON_NAMES):
                found[int(entry.name)] = name
    return found


def test_make_backend_by_name() -> None:
    assert isinstance(make_backend("local", width=800, height=600), LocalBackend)
    with pytest.raises(ValueError, match="unknown backend 'nope'"):
        make_backend("nope")


def test_close_leaves_no_session_process(wait_until) -> None:
    before = _daemons()
    backend = LocalBackend(width=800, height=600)
    handle = backend.start()
    session, workdir = backend.session_id, backend.workdir
    assert handle.is_alive() and (handle.width, handle.height) == (800, 600)
    assert backend.start() is handle  # reused while alive
    with GuestClient(handle.address, token=handle.token) as client:
        client.launch_app("editor")  # a GTK app: dbus activates the at-spi bus for it
        wait_until(
            lambda: (
                {"at-spi-bus-laun", "at-spi2-registr"} & {_daemons().get(p) for p in processes_with_marker(session)}
            ),
            what="at-spi daemons of the session to be activated",
        )
        marked = processes_with_marker(session)
        # A forked guest shows its zygote's environment, so no marker: the session folder records it for the reaper.
        guest = handle.info["pids"]["guest"]
        assert set(handle.info["pids"].values()) - {guest} <= set(marked)
        assert guest in marked or json.loads((workdir / reaper.FORKED_FILE).read_text())["pid"] == guest
    backend.close()
    assert processes_with_marker(session) == []
    assert not handle.is_alive()
    assert not workdir.exists()
    leftovers = {pid: name for pid, name in _daemons().items() if pid not in before and pid in marked}
    assert leftovers == {}
    with GuestClient(handle.address, token=handle.token, timeout=1.0) as client:
        with pytest.raises(GuestUnavailableError):
            client.ping()


@pytest.fixture
def passable_dir() -> Iterator[Path]:
    """A caller's workdir that session users may pass through (pytest's own root is mode 0700)."""
    folder = Path(tempfile.mkdtemp(prefix="desktop-gym-test-"))
    folder.chmod(0o711)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def test_two_backends_have_different_displays(passable_dir: Path) -> None:
    first, second = LocalBackend(workdir=passable_dir), LocalBackend(workdir=passable_dir)
    try:
        one, two = first.start(), second.start()
        assert first.display != second.display and one.address != two.address
        with GuestClient(one.address, token=one.token) as a, GuestClient(two.address, token=two.token) as b:
            assert a.ping()["display"] == first.display and b.ping()["display"] == second.display
        assert first.check_health() == {"xvfb": True, "dbus": True, "openbox": True, "guest": True}
    finally:
        first.close()
        second.close()
    assert first.workdir.exists()  # a caller's workdir is kept (with its logs)
    assert (first.workdir / "logs" / "guest.log").exists()


def test_dead_guest_is_detected_and_start_recovers() -> None:
    backend = LocalBackend(width=640, height=480)
    try:
        handle = backend.start()
        os.kill(handle.info["pids"]["guest"], 9)
        backend._procs["guest"].wait(timeout=5)
        assert not backend.is_alive() and backend.check_health()["guest"] is False
        fresh = backend.start()
        assert fresh is not handle and fresh.is_alive()
        with GuestClient(fresh.address, token=fresh.token) as client:
            assert client.ping()["width"] == 640
    finally:
        backend.close()
