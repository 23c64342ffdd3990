"""Guests forked from a pre-imported zygote: shared memory, the Popen-like handle, the protocol's edges."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from desktop_gym.backends import guest_fork, reaper
from desktop_gym.backends.base import BackendError
from desktop_gym.backends.local import LocalBackend
from desktop_gym.guest import zygote
from desktop_gym.guest.client import GuestClient


def _rollup(pid: int) -> dict[str, int]:
    lines = Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()[1:]
    return {line.split(":")[0]: int(line.split()[1]) for line in lines}


def _parent(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])


def _environment() -> dict[str, str]:
    return {"PATH": os.environ["PATH"], "PYTHONPATH": str(Path(guest_fork.__file__).resolve().parents[2])}


def test_desktops_fork_their_guests_from_one_zygote_and_share_its_imports(tmp_path: Path) -> None:
    forked, own = LocalBackend(width=640, height=480), LocalBackend(width=640, height=480, fork_guest=False)
    second = LocalBackend(width=640, height=480)
    try:
        handles = [backend.start() for backend in (forked, second, own)]
        guests = [handle.info["pids"]["guest"] for handle in handles]
        for handle in handles:
            with GuestClient(handle.address, token=handle.token) as client:
                assert client.ping()["width"] == 640
                assert client.exec(["printenv", "DISPLAY"]).stdout.strip() == handle.info["display"]
        zygote_pid = _parent(guests[0])
        assert _parent(guests[1]) == zygote_pid != os.getpid()
        assert b"desktop_gym.guest.zygote" in Path(f"/proc/{zygote_pid}/cmdline").read_bytes()
        assert _parent(guests[2]) == os.getpid()  # fork_guest=False: a process of its own
        # Pages written before the fork (the imports) stay shared with the zygote: dirty, yet not private.
        shared = [_rollup(pid)["Shared_Dirty"] // 1024 for pid in guests]
        assert shared[0] >= 10 and shared[1] >= 10, shared
        assert shared[2] < 5, shared
    finally:
        for backend in (forked, second, own):
            backend.close()
    assert all(reaper.start_time(pid) is None for pid in guests)


@pytest.fixture
def zygote_process():
    made = guest_fork.GuestZygote(sys.executable, _environment())
    yield made
    made.close()


def _spawn(made: guest_fork.GuestZygote, argv: list[str], tmp_path: Path) -> guest_fork.ForkedProcess:
    with open(tmp_path / "guest.log", "ab") as log:
        return made.spawn(argv, {**_environment(), "HOME": str(tmp_path)}, log.fileno())


def test_the_zygote_holds_only_its_own_descriptors_and_no_pyatspi_or_uno(zygote_process) -> None:
    pid = zygote_process.process.pid
    held = [os.readlink(f"/proc/{pid}/fd/{fd}") for fd in sorted(map(int, os.listdir(f"/proc/{pid}/fd")))]
    # stdin, stdout, stderr (a temporary file), its end of the socket pair and its SIGCHLD wakeup pipe: no
    # eventfd or other descriptor an import opened, which every forked guest would share
    assert held[:2] == ["/dev/null", "/dev/null"] and held[2].startswith("/tmp/#"), held
    assert sorted(link.split(":")[0] for link in held[3:]) == ["pipe", "pipe", "socket"], held
    probe = subprocess.run(
        [sys.executable, "-c", "from desktop_gym.guest import zygote; zygote.preload(); import sys; "
         "print(sorted(m for m in sys.modules if m.split('.')[0] in ('pyatspi', 'uno', 'pyuno')))"],
        capture_output=True, text=True, check=True, env=_environment(),
    )  # fmt: skip
    assert probe.stdout.strip() == "[]"


def test_a_descriptor_left_open_by_an_import_is_refused() -> None:
    read, write = os.pipe()
    try:
        with pytest.raises(zygote.ZygoteError, match=rf"\b{read} -> pipe:"):
            zygote.check_descriptors({0, 1, 2})
        zygote.check_descriptors(zygote.open_descriptors())
    finally:
        os.close(read)
        os.close(write)


def test_exit_codes_signals_and_waits_come_back_like_popen(zygote_process, tmp_path: Path) -> None:
    usage = _spawn(zygote_process, [], tmp_path)  # argparse: --home is required
    assert usage.wait(timeout=30) == 2
    assert "--home" in (tmp_path / "guest.log").read_text()
    helped = _spawn(zygote_process, ["--help"], tmp_path)
    assert helped.wait(timeout=30) == 0 and helped.poll() == 0
    serving = _spawn(zygote_process, ["--socket", str(tmp_path / "g.sock"), "--home", str(tmp_path)], tmp_path)
    assert serving.poll() is None
    with pytest.raises(subprocess.TimeoutExpired):
        serving.wait(timeout=0.2)
    assert _parent(serving.pid) == zygote_process.process.pid
    serving.kill()
    assert serving.wait(timeout=30) == -signal.SIGKILL
    serving.kill()  # after the end: nothing to signal, no error


def test_a_guest_outlives_its_zygote_and_its_end_is_still_seen(tmp_path: Path) -> None:
    made = guest_fork.GuestZygote(sys.executable, _environment())
    serving = _spawn(made, ["--socket", str(tmp_path / "g.sock"), "--home", str(tmp_path)], tmp_path)
    made.close()  # the zygote exits; the guest goes on, an orphan
    assert serving.poll() is None and reaper.start_time(serving.pid) is not None
    os.kill(serving.pid, signal.SIGKILL)
    assert serving.wait(timeout=30) == guest_fork.UNKNOWN_EXIT


def test_a_malformed_request_gets_an_error_and_the_zygote_serves_on(zygote_process, tmp_path: Path) -> None:
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    with open(tmp_path / "log", "ab") as log:
        socket.send_fds(zygote_process.control, [b'{"argv": "not a list"}'], [log.fileno(), theirs.fileno()])
    theirs.close()
    assert "argv must be a list" in json.loads(ours.recv(4096))["error"]
    ours.close()
    assert _spawn(zygote_process, ["--help"], tmp_path).wait(timeout=30) == 0


def test_a_zygote_that_cannot_start_says_why(tmp_path: Path) -> None:
    (tmp_path / "numpy").mkdir()
    (tmp_path / "numpy" / "__init__.py").write_text("raise ImportError('this numpy is broken')")
    broken = {**_environment(), "PYTHONPATH": f"{tmp_path}:{_environment()['PYTHONPATH']}"}
    with pytest.raises(BackendError, match="guest zygote exited.*this numpy is broken"):
        guest_fork.GuestZygote(sys.executable, broken)
    with pytest.raises(BackendError, match="could not start the guest zygote.*nonexistent"):
        guest_fork.GuestZygote(str(tmp_path / "nonexistent"), _environment())


def test_guests_share_a_zygote_only_when_they_agree_on_all_but_the_session(monkeypatch) -> None:
    monkeypatch.setattr(guest_fork, "_zygotes", type(guest_fork._zygotes)())
    base = {**_environment(), "MALLOC_ARENA_MAX": "2"}
    try:
        one = guest_fork.zygote_for(sys.executable, {**base, "DISPLAY": ":1", "HOME": "/a", "DESKTOP_GYM_SESSION": "x"})
        two = guest_fork.zygote_for(
            sys.executable,
            {**base, "DISPLAY": ":2", "HOME": "/b", "DESKTOP_GYM_SESSION": "y", "PYTEST_CURRENT_TEST": "t"},
        )
        assert one is two  # nothing read at startup differs
        environ = Path(f"/proc/{one.process.pid}/environ").read_bytes().split(b"\0")
        assert not [item for item in environ if item.split(b"=")[0] in (b"DISPLAY", b"HOME", b"DESKTOP_GYM_SESSION")]
        other = guest_fork.zygote_for(sys.executable, {**base, "DESKTOP_GYM_A11Y_PEER": "0"})
        assert other is not one  # a setting read at import time gets a zygote that imported with it
        for index in range(guest_fork.MAX_ZYGOTES - 1):
            guest_fork.zygote_for(sys.executable, {**base, "MALLOC_ARENA_MAX": str(index + 3)})
        assert len(guest_fork._zygotes) == guest_fork.MAX_ZYGOTES and not one.alive()  # the oldest let go
        assert guest_fork.zygote_for(sys.executable, {**base, "HOME": "/c"}) is not one
    finally:
        guest_fork.close_zygotes()


@given(st.binary(max_size=512))
def test_any_request_bytes_give_a_request_or_a_zygote_error(raw: bytes) -> None:
    try:
        argv, env = zygote.parse_request(raw)
    except zygote.ZygoteError:
        return
    assert all(isinstance(arg, str) for arg in argv)
    assert all(isinstance(key, str) and isinstance(value, str) for key, value in env.items())


@given(
    st.fixed_dictionaries(
        {"argv": st.lists(st.text(max_size=20), max_size=5), "env": st.dictionaries(st.text(max_size=10), st.text())}
    )
)
def test_well_formed_requests_read_back(request: dict) -> None:
    assert zygote.parse_request(json.dumps(request).encode()) == (request["argv"], request["env"])


def test_the_reaper_kills_the_recorded_guest_and_nothing_else(tmp_path: Path) -> None:
    victim = subprocess.Popen(["sleep", "600"])
    bystander = subprocess.Popen(["sleep", "600"])
    try:
        reaper.write_forked_record(tmp_path, bystander.pid)
        record = json.loads((tmp_path / reaper.FORKED_FILE).read_text())
        (tmp_path / reaper.FORKED_FILE).write_text(json.dumps({**record, "start_time": record["start_time"] + 1}))
        reaper.kill_forked(tmp_path)  # the pid with another start time: a reused pid, left alone
        os.chmod(tmp_path / reaper.FORKED_FILE, 0o666)
        reaper.write_forked_record(tmp_path, victim.pid)
        assert (tmp_path / reaper.FORKED_FILE).stat().st_mode & 0o777 == 0o666
        reaper.kill_forked(tmp_path)  # a record anyone may write is not trusted
        assert victim.poll() is None and bystander.poll() is None
        os.chmod(tmp_path / reaper.FORKED_FILE, 0o600)
        reaper.kill_forked(tmp_path)
        assert victim.wait(timeout=10) == -signal.SIGKILL and bystander.poll() is None
    finally:
        for process in (victim, bystander):
            process.kill()
            process.wait()
