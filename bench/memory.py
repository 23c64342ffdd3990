"""Memory of one desktop session: the sum of PSS over every process the session started."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from desktop_gym.backends.local import processes_with_marker


def process_pss_kib(pid: int) -> int:
    """Proportional set size of one process in KiB (0 if it is gone)."""
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1])
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        pass
    return 0


def session_pss_mib(handle: Any) -> float:
    """PSS in MiB of every process of the local desktop session behind ``handle``."""
    pids = processes_with_marker(handle.describe()["session"])
    return sum(process_pss_kib(pid) for pid in pids) / 1024
