"""Memory of one desktop session: the sum of PSS over every process the session started."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from desktop_gym.backends.local import processes_with_marker


def process_memory_kib(pid: int, fields: tuple[str, ...] = ("Pss",)) -> int:
    """The sum of ``fields`` of ``/proc/<pid>/smaps_rollup`` in KiB (0 if the process is gone)."""
    total = 0
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            name, _, rest = line.partition(":")
            if name in fields:
                total += int(rest.split()[0])
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        pass
    return total


def process_pss_kib(pid: int) -> int:
    """Proportional set size of one process in KiB (0 if it is gone)."""
    return process_memory_kib(pid)


USS_FIELDS = ("Private_Clean", "Private_Dirty")
"""Unique set size: pages no other process maps. Library pages count here while no other process maps
them, so with fewer LibreOffices on the machine soffice's USS grows (73 MiB under load, 150 quiet)."""


def session_processes(handle: Any) -> list[int]:
    """Every process of the local desktop session behind ``handle``: those carrying its marker, and their descendants.

    Chromium writes its process title over its environment, so its processes show no marker; they
    are found as descendants of the guest that started them.
    """
    marked = set(processes_with_marker(handle.describe()["session"]))
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(parent, []).append(int(entry.name))
    found, stack = set(marked), list(marked)
    while stack:
        for child in children.get(stack.pop(), []):
            if child not in found:
                found.add(child)
                stack.append(child)
    return sorted(found)


def session_pss_mib(handle: Any) -> float:
    """PSS in MiB of every process of the local desktop session behind ``handle``."""
    return sum(process_pss_kib(pid) for pid in session_processes(handle)) / 1024


def program_name(pid: int) -> str:
    """The program a process runs, from ``/proc/<pid>/cmdline`` (a Python script's module for the guest)."""
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        return "gone"
    args = [arg.decode(errors="replace") for arg in argv if arg]
    if not args:
        return "gone"
    # Chromium writes its title over argv: one string, words separated by spaces.
    name = Path(args[0].split()[0] if len(args) == 1 and " " in args[0] else args[0]).name
    if name.startswith("python") and "-m" in args[:-1]:
        return args[args.index("-m") + 1]
    if name == "dbus-daemon" and any("at-spi" in arg for arg in args):
        return "dbus-daemon (a11y bus)"
    return name


def pss_by_program(handle: Any, fields: tuple[str, ...] = ("Pss",)) -> dict[str, float]:
    """PSS (or the sum of other ``smaps_rollup`` ``fields``) in MiB of the session behind ``handle``, per program."""
    totals: dict[str, float] = {}
    for pid in session_processes(handle):
        name = program_name(pid)
        totals[name] = totals.get(name, 0.0) + process_memory_kib(pid, fields) / 1024
    return totals
