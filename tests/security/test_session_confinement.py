"""The desktop session is a boundary (issue 9): its apps, shells and ``run`` steps run as a user of
their own and cannot read the guest's token, workdir or the host user's home; nothing they start
(``setsid``, ``env -i setsid``) outlives a reset or ``close()``."""

from __future__ import annotations

import json
import os
import pwd
import subprocess
import sys
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from desktop_gym.backends import session_user
from desktop_gym.backends.base import BackendError
from desktop_gym.backends.local import LocalBackend
from desktop_gym.guest.client import GuestClient

pytestmark = pytest.mark.skipif(
    not session_user.can_isolate(), reason="session users need root (CI runs as root); see README Security model"
)


@pytest.fixture(scope="module")
def session() -> Iterator[tuple[LocalBackend, GuestClient]]:
    backend = LocalBackend(width=1024, height=768)
    handle = backend.start()
    client = GuestClient(handle.address, token=handle.token, timeout=30.0)
    client.wait_ready()
    yield backend, client
    client.close()
    backend.close()


@pytest.fixture
def guest(session: tuple[LocalBackend, GuestClient]) -> Iterator[GuestClient]:
    yield session[1]
    session[1].kill_apps()


def sleeps_with(tag: str) -> list[int]:
    """Pids of live ``sleep`` processes whose command line carries ``tag`` (a unique number)."""
    pids = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            argv = Path(entry.path, "cmdline").read_bytes().split(b"\0")
            state = Path(entry.path, "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state not in "ZX" and argv[:2] == [b"sleep", tag.encode()]:
            pids.append(int(entry.name))
    return pids


def unique_seconds() -> str:
    return str(100_000 + uuid.uuid4().int % 800_000)


def run_shell(guest: GuestClient, command: str) -> dict:
    return json.loads(guest.call_api("os", "run_shell", json.dumps({"command": command, "timeout": 10})))


def in_terminal(guest: GuestClient, command: str, wait_until: Callable) -> None:
    """Type ``command`` into a freshly launched terminal (the agent's way) and wait until it ran."""
    marker = f"ran-{uuid.uuid4().hex[:8]}"
    guest.launch_app("terminal")
    guest.type_text(f"{command}\ntouch ~/{marker}\n")
    wait_until(lambda: guest.exec(["test", "-e", marker]).returncode == 0, 15, f"the terminal to run {command!r}")


READS = {
    "token": "cat ~/../token",
    "workdir listing": "ls ~/..",
    "guest log": "cat ~/../logs/guest.log",
    "X server cookie": "cat ~/../Xauthority",
    "host home": f"ls {Path.home()}",
}


def assert_refused(output: str, token: str) -> None:
    assert token not in output
    assert output.count("Permission denied") == len(READS), output


def reads_command() -> str:
    return "; ".join(f"{command} 2>&1" for command in READS.values())


def test_the_session_runs_as_its_own_user(session: tuple[LocalBackend, GuestClient], guest: GuestClient) -> None:
    backend, _ = session
    assert backend.user is not None
    for name in ("dbus", "openbox", "guest"):
        status = Path(f"/proc/{backend._procs[name].pid}/status").read_text()
        uids = next(line for line in status.splitlines() if line.startswith("Uid:")).split()[1:]
        assert uids == [str(backend.user.uid)] * 4, (name, uids)
    assert guest.exec(["id", "-u"]).stdout.strip() == str(backend.user.uid)
    assert run_shell(guest, "id -un")["stdout"].strip() == backend.user.name


@pytest.mark.parametrize("where", ["run step", "OSTools.run_shell"])
def test_shells_cannot_read_the_token_workdir_or_host_home(
    session: tuple[LocalBackend, GuestClient], guest: GuestClient, where: str
) -> None:
    backend, _ = session
    token = (backend.workdir / "token").read_text()
    if where == "run step":
        output = guest.exec(reads_command(), shell=True).stdout
    else:
        output = run_shell(guest, reads_command())["stdout"]
    assert_refused(output, token)


def test_the_terminal_cannot_read_the_token(
    session: tuple[LocalBackend, GuestClient], guest: GuestClient, wait_until: Callable
) -> None:
    backend, _ = session
    in_terminal(guest, f"({reads_command()}) > ~/reads.txt", wait_until)
    assert_refused(guest.get_file("~/reads.txt").decode(), (backend.workdir / "token").read_text())


def test_the_guest_process_cannot_be_read_by_its_apps(
    session: tuple[LocalBackend, GuestClient], guest: GuestClient
) -> None:
    """Same user as the apps, but non-dumpable: no ptrace, no /proc/<guest>/environ, mem or fd."""
    pid = session[0]._procs["guest"].pid
    result = guest.exec(f"cat /proc/{pid}/environ; ls /proc/{pid}/fd; head -c1 /proc/{pid}/mem", shell=True)
    assert result.stdout == "" and result.stderr.count("Permission denied") == 3, result


def test_files_the_session_writes_are_the_users_and_readable_host_side(
    session: tuple[LocalBackend, GuestClient], guest: GuestClient
) -> None:
    backend, _ = session
    assert guest.exec("umask 077; echo secret > ~/private.txt", shell=True).returncode == 0
    written = backend.workdir / "home" / "private.txt"
    assert written.stat().st_uid == backend.user.uid
    assert written.read_text() == "secret\n"  # the verifier's side reads it
    assert guest.get_file("~/private.txt") == b"secret\n"


@pytest.mark.parametrize("launcher", ["setsid", "env -i setsid"])
def test_setsid_from_the_terminal_is_gone_after_reset(guest: GuestClient, wait_until: Callable, launcher: str) -> None:
    seconds = unique_seconds()
    in_terminal(guest, f"{launcher} sleep {seconds} >/dev/null 2>&1 &", wait_until)
    wait_until(lambda: sleeps_with(seconds), 10, f"the terminal's {launcher} sleep {seconds} to start")
    guest.kill_apps()  # what DesktopEnv.reset does first
    assert sleeps_with(seconds) == []


@pytest.mark.parametrize("where", ["run step", "OSTools.run_shell"])
def test_setsid_from_a_shell_is_gone_after_reset(guest: GuestClient, wait_until: Callable, where: str) -> None:
    seconds = unique_seconds()
    command = f"env -i setsid sleep {seconds} >/dev/null 2>&1 & sleep 0.5"
    if where == "run step":
        guest.exec(command, shell=True)
        assert sleeps_with(seconds)  # a run step's children may run on until the reset ...
    else:
        run_shell(guest, command)  # ... run_shell's die with it (a PID namespace)
    guest.kill_apps()
    assert sleeps_with(seconds) == []


@pytest.mark.parametrize("own_user", [True, False], ids=["session user", "caller's user"])
def test_nothing_started_in_the_session_outlives_close(wait_until: Callable, own_user: bool) -> None:
    backend = LocalBackend(width=800, height=600, session_user=own_user)
    handle = backend.start()
    tags = {name: unique_seconds() for name in ("terminal", "run step")}
    try:
        with GuestClient(handle.address, token=handle.token, timeout=30.0) as guest:
            guest.exec(f"env -i setsid sleep {tags['run step']} >/dev/null 2>&1 &", shell=True)
            in_terminal(guest, f"env -i setsid sleep {tags['terminal']} >/dev/null 2>&1 &", wait_until)
            for name, seconds in tags.items():
                wait_until(lambda s=seconds: sleeps_with(s), 10, f"the {name}'s sleep {seconds} to start")
    finally:
        backend.close()
    assert {name: sleeps_with(seconds) for name, seconds in tags.items()} == {name: [] for name in tags}


def test_session_users_are_reused_not_created_per_session() -> None:
    def pool() -> set[str]:
        return {entry.pw_name for entry in pwd.getpwall() if entry.pw_name.startswith(session_user.USER_PREFIX)}

    claimed = session_user.claim_session_user()  # the pool's first free slot exists from now on
    claimed.release()
    before = pool()
    for _ in range(2):
        backend = LocalBackend(width=640, height=480)
        backend.start()
        assert backend.user is not None and backend.user.name in before  # a freed slot, no new user
        backend.close()


OWNER_SCRIPT = """
import json, sys, time
from desktop_gym.backends.local import LocalBackend
from desktop_gym.guest.client import GuestClient
backend = LocalBackend(width=640, height=480)
handle = backend.start()
with GuestClient(handle.address, token=handle.token) as guest:
    guest.exec("env -i setsid sleep {seconds} >/dev/null 2>&1 &", shell=True)
print(json.dumps({{"uid": backend.user.uid}}), flush=True)
time.sleep(600)
"""


def test_a_sigkilled_owner_leaves_no_marker_less_process(wait_until: Callable) -> None:
    """The reaper kills by session user: ``env -i`` drops the marker it would look for otherwise."""
    seconds = unique_seconds()
    owner = subprocess.Popen(
        [sys.executable, "-c", OWNER_SCRIPT.format(seconds=seconds)], stdout=subprocess.PIPE, text=True
    )
    try:
        uid = json.loads(owner.stdout.readline())["uid"]
        # The shell returns once it has forked the background job; `sleep` itself starts after it.
        wait_until(lambda: sleeps_with(seconds), 10, f"the session's sleep {seconds} to start")
    finally:
        owner.kill()
        owner.wait()
        owner.stdout.close()
    wait_until(lambda: not sleeps_with(seconds), 15, f"the reaper to kill sleep {seconds} of uid {uid}")


def test_a_workdir_the_session_user_cannot_reach_is_refused(tmp_path: Path) -> None:
    closed = tmp_path / "closed"
    closed.mkdir(mode=0o700)
    with pytest.raises(BackendError, match=f"{closed} is closed to other users"):
        LocalBackend(workdir=closed / "inner").start()


def test_a_session_can_neither_learn_nor_forge_another_sessions_id(guest: GuestClient) -> None:
    # Issue 32: a session read another's id from its reaper's command line, wrote
    # /tmp/desktop-gym-x/owner.json naming it, and the next env start killed that session.
    from desktop_gym.backends import reaper

    victim = LocalBackend(width=640, height=480)
    victim.start()
    try:
        assert victim.session_id is not None
        seen = guest.exec(
            "cat /proc/[0-9]*/cmdline /proc/[0-9]*/environ /tmp/desktop-gym-*/owner.json 2>/dev/null | tr '\\0' ' '",
            shell=True,
        ).stdout
        assert victim.session_id not in seen, "another session's id is readable from inside a session"
        forged = {"pid": 1, "start_time": 0, "session": victim.session_id, "display": None}
        made = guest.exec(
            f"d=$(mktemp -d /tmp/desktop-gym-XXXXXXXX) && chmod 755 $d && echo '{json.dumps(forged)}' > $d/owner.json"
            " && echo $d",
            shell=True,
        )
        assert made.returncode == 0, made.stderr
        forged_dir = Path(made.stdout.strip())
        try:
            assert victim.session_id not in reaper.clean_stale_sessions(Path("/tmp"))
            assert victim.is_alive() and reaper.session_pids(victim.session_id), "the forged file killed the victim"
        finally:
            guest.exec(f"rm -rf {forged_dir}", shell=True)
    finally:
        victim.close()
