"""What keeps the session's processes inside the session: its own user, and no strays after a reset.

The local backend starts the guest as root with ``--user <session user>``: the guest reads its
token and binds its socket (both in a root-only folder), then drops to the session user for good
(:func:`drop_to_user`), so every app, shell and ``run`` step it starts runs as that user. The
guest also makes itself non-dumpable: processes of the same user can neither ptrace it nor read
its memory, environment or open files, so an app cannot take the token from it.

The guest is a child subreaper (:func:`become_subreaper`): a process that leaves its app's
process group and its parent (``setsid``, double fork) is re-parented to the guest instead of
init, so :func:`kill_strays` finds it among the guest's descendants and kills it at every reset.
Then it removes the UNO sockets (``/tmp/OSL_PIPE_<uid>_*``) the killed offices left: LibreOffice
always puts them in /tmp, two per launch, and a SIGKILLed office never removes its own.
"""

from __future__ import annotations

import ctypes
import os
import pwd
import stat
import time
from pathlib import Path

from . import processes
from .proc_table import descendant_pids, kill_until_gone, process_stats, remove_if_nobody_listens

PR_SET_DUMPABLE = 4
PR_SET_CHILD_SUBREAPER = 36
STRAY_KILL_TIMEOUT_S = 5.0
OFFICE_PIPE_FOLDER = Path("/tmp")
OFFICE_PIPE_MIN_AGE_S = 1.0  # younger sockets may belong to an office that is binding and listening now


def _prctl(option: int, value: int) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(option, value, 0, 0, 0) != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"prctl({option}, {value}): {os.strerror(errno)}")


def drop_to_user(name: str) -> None:
    """Become the user ``name`` (uid, gid, no supplementary groups), irreversibly, and non-dumpable.

    Raises:
        KeyError: no such user.
        PermissionError: this process may not change its user (not root).
    """
    entry = pwd.getpwnam(name)
    os.setgroups([])
    os.setresgid(entry.pw_gid, entry.pw_gid, entry.pw_gid)
    os.setresuid(entry.pw_uid, entry.pw_uid, entry.pw_uid)
    _prctl(PR_SET_DUMPABLE, 0)
    if os.getresuid() != (entry.pw_uid,) * 3:
        raise PermissionError(f"the guest is still uid {os.getresuid()} after dropping to {name}")


_adopting = False  # set in the guest process only: elsewhere (a test's process) nothing is a stray


def become_subreaper() -> None:
    """Adopt orphaned descendants (instead of init), so strays stay findable."""
    global _adopting
    _prctl(PR_SET_CHILD_SUBREAPER, 1)
    _adopting = True


def stray_pids() -> list[int]:
    """Descendants of the guest outside every process group it started and still tracks."""
    strays = []
    with processes.frozen_groups() as tracked:  # a process being spawned now is not a stray
        for pid in descendant_pids(os.getpid()):
            try:
                group = os.getpgid(pid)
            except ProcessLookupError:
                continue
            if group not in tracked:
                strays.append(pid)
    return strays


def kill_strays(timeout: float = STRAY_KILL_TIMEOUT_S) -> list[int]:
    """SIGKILL every stray (see :func:`stray_pids`) and reap the ones adopted; returns the survivors.

    Does nothing unless :func:`become_subreaper` ran in this process (the guest's ``__main__``).
    """
    if not _adopting:
        return []
    survivors = kill_until_gone(stray_pids, timeout)
    _reap_adopted_zombies()
    remove_dead_office_pipes()
    return survivors


def remove_dead_office_pipes(folder: Path = OFFICE_PIPE_FOLDER, min_age: float = OFFICE_PIPE_MIN_AGE_S) -> int:
    """Remove this user's ``OSL_PIPE_*`` sockets nobody listens on; returns how many.

    Only sockets (not links or files) owned by this process's user and older than ``min_age``
    seconds are touched, so another user's pipes and an office starting right now are left alone.
    """
    uid, now, removed = os.geteuid(), time.time(), 0
    for path in folder.glob(f"OSL_PIPE_{uid}_*"):
        try:
            info = path.lstat()
        except OSError:
            continue
        if not stat.S_ISSOCK(info.st_mode) or info.st_uid != uid or now - info.st_mtime < min_age:
            continue
        removed += remove_if_nobody_listens(path)
    return removed


def _reap_adopted_zombies() -> None:
    """Reap zombie children nobody waits for (adopted orphans); a tracked ``Popen`` reaps its own."""
    with processes.frozen_groups() as tracked:
        adopted = [pid for pid, fields in process_stats() if fields[0] == "Z" and int(fields[1]) == os.getpid()]
        adopted = [pid for pid in adopted if pid not in tracked]
    for pid in adopted:
        try:
            os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            pass
