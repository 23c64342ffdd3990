"""Pieces shared by the benchmarks that play two desktops side by side, one per setting."""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

MAX_RUNS = 20
T = TypeVar("T")


def run_arguments(doc: str, count: str, default: int, most: int) -> tuple[int, int, Path | None]:
    """``--runs``, ``--<count>`` (each clamped to 1..its cap) and ``--json`` from the command line."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument(f"--{count}", type=int, default=default)
    parser.add_argument("--json", type=Path, help="write a result file (bench/results/log format)")
    args = parser.parse_args()
    return min(max(1, args.runs), MAX_RUNS), min(max(1, getattr(args, count)), most), args.json


def median_step_seconds(envs: Mapping[str, Any], action: Callable[[int], str], steps: int) -> dict[str, float]:
    """Per setting, the median seconds of ``steps`` steps (step ``i`` is ``action(i)``), the desktops alternating."""
    times: dict[str, list[float]] = {mode: [] for mode in envs}
    for index in range(steps):
        for mode, env in envs.items():
            began = time.perf_counter()
            env.step(action(index))
            times[mode].append(time.perf_counter() - began)
    return {mode: statistics.median(values) for mode, values in times.items()}


def desktops_per_run(
    runs: int, modes: Sequence[str], make_env: Callable[[str], Any]
) -> Iterator[tuple[int, dict[str, Any]]]:
    """For each run, one desktop per setting (which starts first alternates by run), closed after the run."""
    for run in range(runs):
        envs = {mode: make_env(mode) for mode in (modes if run % 2 == 0 else modes[::-1])}
        try:
            yield run, envs
        finally:
            for env in envs.values():
                env.close()


def print_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
    """The result table on standard output, one ``|``-separated line per row."""
    for row in (header, *rows):
        print(" | ".join(row))


def with_peak_load(measure: Callable[[], T]) -> tuple[T, float]:
    """``measure()`` and the higher 1-minute load average of its start and its end."""
    began = os.getloadavg()[0]
    value = measure()
    return value, max(began, os.getloadavg()[0])
