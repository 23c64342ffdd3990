"""Desktops never outlive their owner: a reaper per local session, and a sweep of what dead owners left.

``LocalBackend`` starts this file as a script (stdlib only, so it starts fast; of the package it imports only the
stdlib-only ``guest/proc_table.py``) with the read end of a pipe whose write end only the owner holds. When the owner
closes the session it writes one byte and the reaper exits; when the owner dies (even by
SIGKILL) the kernel closes the pipe, the reaper reads end-of-file, and it kills every process
carrying the session marker, removes the session's workdir and its X socket. The next session
start also sweeps leftovers whose owner and reaper are both gone (:func:`clean_stale_sessions`),
and LibreOffice's ``/tmp/OSL_PIPE_*`` sockets that nobody listens on any more.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import stat
import sys
import time
from pathlib import Path

if __package__:
    from ..guest.proc_table import (
        descendant_pids,
        kill_until_gone,
        process_stats,
        remove_if_nobody_listens,
        stat_fields,
    )
else:  # started as a script by LocalBackend: the stdlib-only table, without the package
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "guest"))
    from proc_table import (  # type: ignore[no-redef]
        descendant_pids,
        kill_until_gone,
        process_stats,
        remove_if_nobody_listens,
        stat_fields,
    )

__all__ = ["descendant_pids", "kill_until_gone", "process_stats"]  # re-exported for the backends

SESSION_ENV_MARKER = "DESKTOP_GYM_SESSION"
OWNER_FILE = "owner.json"
FORKED_FILE = "forked.json"  # the forked guest's pid: its environment shows no marker (backends/guest_fork.py)
MAX_OWNER_FILE_BYTES = 4096
REAPER_SESSION_VARIABLE = "DESKTOP_GYM_REAPER_SESSION"  # the id reaches the reaper here, not in argv
WORKDIR_PREFIX = "desktop-gym-"
SHM_FRAME_GLOB = "desktop-gym-frame-*"
STALE_FRAME_AGE_S = 60.0
_CLOSE_NORMALLY = b"c"
EXEC_WAIT_S = 1.0  # how long a process inside execve may take to show its environment
PF_KTHREAD = 0x00200000  # /proc/<pid>/stat flags of a kernel thread
STAT_ENV_END = 48  # env_end in /proc/<pid>/stat, counted from the state field (0 until execve publishes it)


def session_pids(session_id: str, exec_timeout: float = EXEC_WAIT_S) -> list[int]:
    """Pids of live processes whose environment carries ``DESKTOP_GYM_SESSION=<session_id>``.

    A process caught inside ``execve`` shows an empty environment for a moment (its new one is
    mapped but not yet published; 13-21% of reads right after ``Popen`` returned, 4 runs): such a
    process is read again until its environment shows, at most ``exec_timeout`` s.
    """
    needle = f"{SESSION_ENV_MARKER}={session_id}".encode()
    found: list[int] = []
    candidates = [int(e.name) for e in os.scandir("/proc") if e.name.isdigit() and int(e.name) != os.getpid()]
    deadline = time.monotonic() + exec_timeout
    while True:
        execing = []
        for pid in candidates:
            carries = carries_marker(pid, needle)
            if carries:
                found.append(pid)
            elif carries is None:
                execing.append(pid)
        if not execing or time.monotonic() > deadline:
            return found
        candidates = execing
        time.sleep(0.002)


def carries_marker(pid: int, needle: bytes) -> bool | None:
    """Whether ``pid``'s environment holds ``needle``; None while it is inside ``execve``."""
    try:
        environ = Path(f"/proc/{pid}/environ").read_bytes()
    except OSError:
        return False  # gone, or another user's process
    if environ:
        return needle in environ.split(b"\0")
    try:
        stat_text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    fields = stat_text[stat_text.rindex(")") + 2 :].split()
    if fields[0] in "ZX" or int(fields[6]) & PF_KTHREAD or len(fields) <= STAT_ENV_END:
        return False  # a zombie or a kernel thread: no environment at all
    if int(fields[STAT_ENV_END]) == 0:
        return None  # inside execve: the new environment is not published yet
    try:  # published since the first read, or empty for good (env -i): this read tells which
        return needle in Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    except OSError:
        return False


def kill_session(session_id: str, timeout: float = 5.0) -> list[int]:
    """SIGKILL every process of the session until none is left or ``timeout``; returns the survivors."""
    return kill_until_gone(lambda: session_pids(session_id), timeout)


def user_pids(uid: int) -> list[int]:
    """Pids of live processes (zombies excluded) any of whose user ids (real, effective, saved, fs) is ``uid``."""
    pids = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            status = dict(line.split(":", 1) for line in Path(entry.path, "status").read_text().splitlines())
        except (OSError, ValueError):
            continue
        if str(uid) in status.get("Uid", "").split() and status.get("State", "Z").split()[0] not in "ZX":
            pids.append(int(entry.name))
    return pids


def kill_user(uid: int, timeout: float = 5.0) -> list[int]:
    """SIGKILL every process of the session user ``uid``; returns the survivors."""
    return kill_until_gone(lambda: user_pids(uid), timeout)


def start_time(pid: int) -> int | None:
    """The start time of ``pid`` in clock ticks after boot (tells a live owner from a reused pid)."""
    fields = stat_fields(pid)
    return None if fields is None or fields[0] in "ZX" else int(fields[19])


def write_owner_file(workdir: Path, session_id: str, display: str | None) -> None:
    """Record who owns the session, so a later start can tell whether it was abandoned.

    The file is private (0600): the session id in it is what the sweep kills by.
    """
    owner = {"pid": os.getpid(), "start_time": start_time(os.getpid()), "session": session_id, "display": display}
    fd = os.open(workdir / OWNER_FILE, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    with os.fdopen(fd, "w") as handle:
        os.fchmod(handle.fileno(), 0o600)
        handle.write(json.dumps(owner))


def read_trusted_owner(workdir: Path) -> dict | None:
    """The owner record of ``workdir`` if only this process's user could have written it, else None.

    Trusted: ``workdir`` is a real folder (not a link) owned by this user and writable by nobody
    else, and its owner file a regular file (not a link) owned by this user and writable by nobody
    else, holding ``pid``, ``start_time``, ``session`` and ``display`` of the right types. Anyone
    may create ``/tmp/desktop-gym-*``; a record another user wrote could name any session's id.
    """
    uid = os.geteuid()
    try:
        folder = os.lstat(workdir)
    except OSError:
        return None
    if not stat.S_ISDIR(folder.st_mode) or folder.st_uid != uid or folder.st_mode & 0o022:
        return None
    try:
        fd = os.open(workdir / OWNER_FILE, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
    except OSError:
        return None  # not a session, one still starting, or a link
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_uid != uid or info.st_mode & 0o022:
            return None
        raw = os.read(fd, MAX_OWNER_FILE_BYTES + 1)
    finally:
        os.close(fd)
    try:
        owner = json.loads(raw) if len(raw) <= MAX_OWNER_FILE_BYTES else None
    except ValueError:
        return None
    valid = (
        isinstance(owner, dict)
        and isinstance(owner.get("pid"), int)
        and isinstance(owner.get("start_time"), int | None)
        and isinstance(owner.get("session"), str)
        and bool(owner["session"])
        and isinstance(owner.get("display"), str | None)
    )
    return owner if valid else None


def write_forked_record(workdir: Path, pid: int) -> None:
    """Record the session's forked guest (pid and start time), which the marker sweep cannot see."""
    record = {"pid": pid, "start_time": start_time(pid)}
    fd = os.open(workdir / FORKED_FILE, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    with os.fdopen(fd, "w") as handle:
        handle.write(json.dumps(record))


def kill_forked(workdir: Path) -> None:
    """SIGKILL the forked guest recorded in ``workdir``, if that very process still runs.

    The record counts only as a regular file this user owns and nobody else may write, naming a
    process whose start time matches (a pid handed out again is left alone).
    """
    try:
        fd = os.open(workdir / FORKED_FILE, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
    except OSError:
        return
    try:
        info = os.fstat(fd)
        trusted = stat.S_ISREG(info.st_mode) and info.st_uid == os.geteuid() and not info.st_mode & 0o022
        raw = os.read(fd, MAX_OWNER_FILE_BYTES + 1) if trusted else b""
    finally:
        os.close(fd)
    try:
        record = json.loads(raw) if 0 < len(raw) <= MAX_OWNER_FILE_BYTES else None
    except ValueError:
        return
    if not isinstance(record, dict) or not isinstance(record.get("pid"), int) or record["pid"] <= 0:
        return
    if record.get("start_time") is None or start_time(record["pid"]) != record["start_time"]:
        return
    try:
        os.kill(record["pid"], signal.SIGKILL)
    except OSError:
        pass


def remove_x_display_files(display: str | None) -> None:
    """Remove a dead X server's socket and lock file (Xvfb leaves them when SIGKILLed)."""
    if not display or not display.startswith(":") or not display[1:].isdigit():
        return
    number = display[1:]
    lock = Path(f"/tmp/.X{number}-lock")
    try:
        pid = int(lock.read_text().strip())
    except (OSError, ValueError):
        pid = None
    if pid is not None and start_time(pid) is not None:
        return  # an X server still runs there (perhaps a new one on the same number)
    for path in (Path(f"/tmp/.X11-unix/X{number}"), lock):
        try:
            path.unlink()
        except OSError:
            pass


def remove_stale_office_pipes(folder: Path = Path("/tmp")) -> int:
    """Remove ``OSL_PIPE_*`` sockets nobody listens on (each Calc launch leaves some); returns how many."""
    return sum(remove_if_nobody_listens(path) for path in folder.glob("OSL_PIPE_*"))


def _mapped_frames() -> set[str]:
    mapped = set()
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                mapped.update(line.rsplit(" ", 1)[-1] for line in Path(entry.path, "maps").read_text().splitlines())
            except OSError:
                continue
    return mapped


def remove_stale_frames(folder: Path = Path("/dev/shm")) -> int:
    """Remove screenshot frames no process maps any more (left by a client killed mid-episode)."""
    candidates = [p for p in folder.glob(SHM_FRAME_GLOB) if time.time() - _mtime(p) > STALE_FRAME_AGE_S]
    if not candidates:
        return 0
    mapped = _mapped_frames()
    removed = 0
    for path in candidates:
        if str(path) not in mapped:
            try:
                path.unlink()
                removed += 1
            except OSError:
                pass
    return removed


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return time.time()


def reap(session_id: str, workdir: Path, display: str | None, remove_workdir: bool, uid: int | None = None) -> None:
    """Kill the session's processes (those of its user ``uid`` too) and remove what it left behind.

    Pass ``uid`` only while holding the session user's claim: once released, another session may own it.
    """
    kill_forked(workdir)
    kill_session(session_id)
    if uid is not None:
        kill_user(uid)  # also what dropped the marker (env -i setsid ...)
    remove_x_display_files(display)
    remove_stale_office_pipes()
    if remove_workdir:
        shutil.rmtree(workdir, ignore_errors=True)


def clean_stale_sessions(root: Path, prefix: str = WORKDIR_PREFIX) -> list[str]:
    """Reap every ``<prefix>*`` session folder under ``root`` whose owner is dead; returns their ids.

    Only folders whose owner record this user wrote count (see :func:`read_trusted_owner`).
    """
    reaped = []
    for workdir in root.glob(f"{prefix}*"):
        owner = read_trusted_owner(workdir)
        if owner is None:
            continue  # not a session, one still starting, or a record someone else could have forged
        if start_time(owner["pid"]) == owner.get("start_time"):
            continue  # its owner is alive
        reap(owner["session"], workdir, owner.get("display"), remove_workdir=True)
        reaped.append(owner["session"])
    remove_stale_frames()
    return reaped


def notify_closed(write_fd: int) -> None:
    """Tell the reaper the owner closed the session itself (it exits without reaping)."""
    try:
        os.write(write_fd, _CLOSE_NORMALLY)
    except OSError:
        pass
    finally:
        os.close(write_fd)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fd", type=int, required=True, help="read end of the owner's pipe")
    parser.add_argument("--workdir", type=Path, required=True)
    parser.add_argument("--display")
    parser.add_argument("--remove-workdir", action="store_true")
    parser.add_argument("--uid", type=int, help="the session user: killed too (this process holds its claim)")
    args = parser.parse_args(argv)
    # The id is the one secret here: a command line is world-readable, a root process's environment is not.
    session = os.environ.get(REAPER_SESSION_VARIABLE)
    if not session:
        parser.error(f"{REAPER_SESSION_VARIABLE} names no session")
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a ctrl+c meant for the owner must not stop the reaper
    try:
        message = os.read(args.fd, 1)
    except OSError:
        message = b""
    if message != _CLOSE_NORMALLY:  # end of file: the owner died
        reap(session, args.workdir, args.display, args.remove_workdir, args.uid)
    return 0


if __name__ == "__main__":
    sys.exit(main())
