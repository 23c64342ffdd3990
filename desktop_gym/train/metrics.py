"""The training run's ``metrics.jsonl`` (schema in ``trajectory``'s module docstring) and success intervals."""

from __future__ import annotations

import json
import math
import time
from pathlib import Path
from typing import Any

from desktop_gym.episode.trajectory import jsonable


def wilson_interval(successes: int, trials: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval (95% by default) of a success rate; (0, 1) with no trials."""
    if trials <= 0:
        return 0.0, 1.0
    p = successes / trials
    denominator = 1 + z * z / trials
    center = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    return max(0.0, center - half), min(1.0, center + half)


class MetricsLog:
    """Appends one JSON object per line to ``metrics.jsonl`` (each line one flushed write)."""

    def __init__(self, path: Path | str, started: float | None = None) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.started = time.time() if started is None else started

    def write(self, kind: str, **fields: Any) -> dict[str, Any]:
        """Append a row of ``kind`` with ``time`` (seconds since the run started); returns the row."""
        row = jsonable({"kind": kind, **fields, "time": round(time.time() - self.started, 3)})
        with open(self.path, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(row) + "\n")
        return row


def read_metrics(path: Path | str) -> list[dict[str, Any]]:
    """Every complete row of a ``metrics.jsonl`` (a torn last line is skipped)."""
    rows = []
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            if not line.endswith("\n"):
                break
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError:
                continue
    return rows
