"""The process table read from /proc: a process's or every process's stat fields, a process's descendants, a
kill loop, and the removal of a socket its dead listener left. Stdlib only: the guest (which
imports no host code) and the host's session reaper (run as a script) both use it."""

from __future__ import annotations

import os
import signal
import socket
import time
from collections.abc import Callable, Iterator
from pathlib import Path


def stat_fields(pid: int) -> list[str] | None:
    """/proc/<pid>/stat after the command name (``[state, ppid, pgrp, session, ...]``), or None when
    there is no such process (or no /proc)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat[stat.rindex(")") + 2 :].split()


def pid_running(pid: int) -> bool:
    """Whether ``pid`` exists and is neither a zombie nor dead (state Z or X)."""
    fields = stat_fields(pid)
    return fields is not None and fields[0] not in "ZX"


def process_stats() -> Iterator[tuple[int, list[str]]]:
    """``(pid, fields)`` of every process, ``fields`` as :func:`stat_fields` gives them."""
    for entry in os.scandir("/proc"):
        if entry.name.isdigit() and (fields := stat_fields(int(entry.name))) is not None:
            yield int(entry.name), fields


def descendant_pids(root_pid: int) -> list[int]:
    """Pids of every live descendant of ``root_pid`` (children, their children, ...), zombies excluded."""
    children: dict[int, list[int]] = {}
    for pid, fields in process_stats():
        if fields[0] not in "ZX":
            children.setdefault(int(fields[1]), []).append(pid)
    found, frontier = [], [root_pid]
    while frontier:
        kids = children.get(frontier.pop(), [])
        found += kids
        frontier += kids
    return found


def kill_until_gone(find_pids: Callable[[], list[int]], timeout: float = 5.0) -> list[int]:
    """SIGKILL what ``find_pids()`` returns until it returns nothing or ``timeout``; returns the survivors."""
    deadline = time.monotonic() + timeout
    while pids := find_pids():
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        if time.monotonic() > deadline:
            return pids
        time.sleep(0.01)
    return []


def remove_if_nobody_listens(path: Path) -> bool:
    """Remove the Unix socket ``path`` if connecting to it is refused (its listener died); returns
    whether it was removed. A socket that answers, or that cannot be probed or removed, stays."""
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        probe.connect(str(path))
    except ConnectionRefusedError:
        try:
            path.unlink()
        except OSError:
            return False
        return True
    except OSError:
        return False
    finally:
        probe.close()
    return False
