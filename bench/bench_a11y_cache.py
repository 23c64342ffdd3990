"""Step-time a11y tree read on a real Calc: with the event cache vs a full walk, interleaved.

Run: ``.venv/bin/python bench/bench_a11y_cache.py [--rounds 15]``. Starts its own Xvfb, session
bus, openbox and Calc (read in this process, as the guest does, with UNO naming the non-empty
cells). Each round does one action, then reads the tree: first, before any listener exists, the
full walk alone (the true baseline: the apps send no events); then both ways, which goes first
alternating per round. Actions: ``wait`` (nothing changes), ``Right`` (the cell cursor moves one
cell; the view scrolls now and then) and ``click`` (on one of two cells, alternately). The cached
read includes dispatching the events the action caused. Prints p50, p10-p90, the paired
per-round ratio, the cache's full-walk fallbacks, and whether every pair of reads gave the same text.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_a11y import MAX_NODES, start_calc  # noqa: E402

from desktop_gym.guest import a11y  # noqa: E402
from desktop_gym.guest.a11y_grid import uno_grid_contents  # noqa: E402
from desktop_gym.guest.input import InputController  # noqa: E402
from tests.support.soffice import stop_all  # noqa: E402


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15, help="rounds per action")
    args = parser.parse_args()
    load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    print(f"a11y tree read after a step on Calc ({os.cpu_count()} cores, load average {load})")
    procs: list[subprocess.Popen] = []
    with tempfile.TemporaryDirectory(prefix="bench-a11y-cache-") as work:
        try:
            connection = start_calc(Path(work), procs)
            grid = uno_grid_contents(lambda: [connection])
            reads = {
                "full": lambda: a11y.linearize_tree(True, MAX_NODES, grid_contents=grid),
                "cached": lambda: a11y.linearize_tree(True, MAX_NODES, grid_contents=grid, event_cache=True),
            }
            control = InputController(os.environ["DISPLAY"])
            table = a11y.find_nodes("table", app="soffice")[0]
            cells = [(table.x + 60, table.y + 30), (table.x + 160, table.y + 70)]
            actions: dict[str, Callable[[int], None]] = {
                "wait": lambda _: None,
                "Right": lambda _: control.press("Right"),
                "click": lambda index: control.click(*cells[index % 2]),
            }
            control.click(*cells[0])
            for _ in range(3):
                reads["full"]()
            # Before any listener is registered, the apps send no events: the true baseline.
            alone = {action: run(actions[action], {"full": reads["full"]}, args.rounds) for action in actions}
            for _ in range(3):  # warm both paths (the first cached read registers the listener)
                for read in reads.values():
                    read()
            results = {action: run(actions[action], reads, args.rounds) for action in actions}
            control.close()
        finally:
            stop_all(procs)
    cache = a11y.EVENT_CACHE
    load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    print(f"  (load average at the end {load}; cache fallbacks to a full walk: {cache.stats['full']})")
    for action, (seconds, same) in results.items():
        seconds = {"full, no listener": alone[action][0]["full"], **seconds}
        for name, values in seconds.items():
            p50, p10, p90 = (percentile(values, q) * 1000 for q in (50, 10, 90))
            print(f"  {action:<6} {name:<18} p50 {p50:6.0f} ms  p10-p90 {p10:5.0f}-{p90:5.0f} ms")
        paired = statistics.median(f / c for f, c in zip(seconds["full"], seconds["cached"], strict=True))
        print(f"  {action:<6} full/cached per round, median x{paired:.2f}; same text {same}/{len(seconds['full'])}")


def run(
    action: Callable[[int], None], reads: dict[str, Callable[[], str]], rounds: int
) -> tuple[dict[str, list[float]], int]:
    """``rounds`` of the action then both reads; the seconds per read, and how many pairs agreed."""
    seconds: dict[str, list[float]] = {name: [] for name in reads}
    same = 0
    for index in range(rounds):
        action(index)
        texts = {}
        order = list(reads) if index % 2 else list(reversed(reads))
        for name in order:
            started = time.perf_counter()
            texts[name] = reads[name]()
            seconds[name].append(time.perf_counter() - started)
        if len(set(texts.values())) == 1:
            same += 1
        elif len({read() for read in reads.values()}) == 1:  # the desktop was still settling between reads
            same += 1
    return seconds, same


if __name__ == "__main__":
    main()
