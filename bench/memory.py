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


ZYGOTE_MODULE = "desktop_gym.guest.zygote"


def parent_pid(pid: int) -> int | None:
    """The parent of ``pid`` (None if it is gone)."""
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return None


def children_by_parent() -> dict[int, list[int]]:
    """Every live process, grouped by parent pid."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and (parent := parent_pid(int(entry.name))) is not None:
            children.setdefault(parent, []).append(int(entry.name))
    return children


def _module(pid: int) -> str | None:
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return None
    return argv[argv.index(b"-m") + 1].decode(errors="replace") if b"-m" in argv[:-1] else None


def session_processes(handle: Any) -> list[int]:
    """Every process of the local desktop session behind ``handle``: those carrying its marker, and their descendants.

    Chromium writes its process title over its environment, so its processes show no marker; they
    are found as descendants of the guest that started them. A guest forked from a zygote shows
    no marker either (a fork keeps its zygote's environment block); it is found by the pid the
    backend reports.
    """
    marked = set(processes_with_marker(handle.describe()["session"]))
    marked.update(pid for pid in handle.describe().get("pids", {}).values() if Path(f"/proc/{pid}").exists())
    children = children_by_parent()
    found, stack = set(marked), list(marked)
    while stack:
        for child in children.get(stack.pop(), []):
            if child not in found:
                found.add(child)
                stack.append(child)
    return sorted(found)


def zygote_share_kib(handle: Any, fields: tuple[str, ...] = ("Pss",)) -> int:
    """This desktop's share of the zygote its guest was forked from: the zygote's PSS over the guests it has.

    0 for a guest started as a process of its own.
    """
    guest = handle.describe().get("pids", {}).get("guest")
    zygote = parent_pid(guest) if guest is not None else None
    if zygote is None or _module(zygote) != ZYGOTE_MODULE:
        return 0
    return process_memory_kib(zygote, fields) // max(1, len(children_by_parent().get(zygote, [])))


def session_pss_mib(handle: Any) -> float:
    """PSS in MiB of every process of the local desktop session behind ``handle``, with its share of a guest zygote."""
    return (sum(process_pss_kib(pid) for pid in session_processes(handle)) + zygote_share_kib(handle)) / 1024


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
        module = args[args.index("-m") + 1]
        parent = parent_pid(pid)
        if module == ZYGOTE_MODULE and parent is not None and _module(parent) == ZYGOTE_MODULE:
            return "desktop_gym.guest"  # a guest forked from the zygote shows the zygote's command line
        return module
    if name == "dbus-daemon" and any("at-spi" in arg for arg in args):
        return "dbus-daemon (a11y bus)"
    return name


def pss_by_program(handle: Any, fields: tuple[str, ...] = ("Pss",)) -> dict[str, float]:
    """PSS (or the sum of other ``smaps_rollup`` ``fields``) in MiB of the session behind ``handle``, per program."""
    totals: dict[str, float] = {}
    for pid in session_processes(handle):
        name = program_name(pid)
        totals[name] = totals.get(name, 0.0) + process_memory_kib(pid, fields) / 1024
    share = zygote_share_kib(handle) if fields == ("Pss",) else 0  # a zygote's pages are its guests', not its own
    if share:
        totals[f"{ZYGOTE_MODULE} (its share)"] = share / 1024
    return totals
