"""Write a benchmark run as a result file (the ``bench/results/log`` format the docs render)."""

from __future__ import annotations

import json
import os
import statistics
import time
from pathlib import Path


def write_result_file(path: Path, benchmark: str, title: str, command: str, load: str, notes: list[str],
                      tables: list[dict]) -> None:  # fmt: skip
    """Write ``path``; ``recorded_in`` (the commit) is added once the code that made it is committed."""
    record = {
        "title": title,
        "benchmark": f"bench/{Path(benchmark).name}",
        "command": command,
        "measured": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "machine": f"{os.cpu_count()} cores",
        "load": load,
        "notes": notes,
        "tables": tables,
    }
    path.write_text(json.dumps(record, indent=1) + "\n")


def spread(values: list[float], unit: float = 1.0, digits: int = 0) -> str:
    """``median (min-max)`` of ``values`` times ``unit``, with ``digits`` decimals."""
    shown = [value * unit for value in values]
    return f"{statistics.median(shown):.{digits}f} ({min(shown):.{digits}f}-{max(shown):.{digits}f})"
