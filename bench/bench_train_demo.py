"""The learning demo as a benchmark: held-out success before and after, wall time, the plot.

Runs ``desktop-gym train --demo`` (the config in ``desktop_gym/train/demo.py``), prints the
before/after success rates with 95% Wilson intervals side by side, the wall time and the CPU time
the demo itself used (this process and every desktop process it started: on a CPU shared with
other work the wall time says more about the neighbours than about the demo), and copies the plot to
``docs/train-demo.png`` (what the README shows) and the summary to ``bench/results/train-demo.json``.

    .venv/bin/python bench/bench_train_demo.py [--output runs/train-demo] [--repeat 3]

``--repeat N`` trains the demo N times from scratch (one folder per run under ``--output``) and
writes ``bench/results/train-demo-repeats.json``: each run's before/after held-out counts, and the
median and range of each, which is what the docs quote.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def tree_cpu_seconds() -> float:
    """CPU seconds (user + system) of this process, its reaped children and every live descendant."""
    import psutil

    me = psutil.Process()
    total = sum(me.cpu_times()[:4])  # user, system, children_user, children_system
    for child in me.children(recursive=True):
        try:
            total += sum(child.cpu_times()[:4])
        except psutil.Error:  # it ended between the listing and the read
            continue
    return total


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", default="runs/train-demo")
    parser.add_argument("--summary", default=None, help="read this summary.json instead of training again")
    parser.add_argument("--repeat", type=int, default=1, help="train N times; write the median and range")
    args = parser.parse_args()
    if args.repeat > 1:
        return repeat(args.repeat, Path(args.output))
    if args.summary:
        summary = json.loads(Path(args.summary).read_text())
        seconds = summary["seconds"]
    else:
        summary, seconds = train_once(Path(args.output))
    before, after = summary["before"], summary["after"]
    load = os.getloadavg()[0]
    print(f"{'held-out success':<28}{'before':>22}{'after':>22}")
    cells = [
        f"{row['successes']}/{row['episodes']} {row['success']:.0%} [{row['ci_low']:.0%}-{row['ci_high']:.0%}]"
        for row in (before, after)
    ]
    print(f"{'demo.enter_number (95% CI)':<28}{cells[0]:>22}{cells[1]:>22}")
    gain = after["success"] - before["success"]
    apart = after["ci_low"] > before["ci_high"]
    print(f"after - before success        {gain:+.0%} (95% CIs {'apart' if apart else 'overlap'})")
    cores = os.cpu_count()
    print(f"SFT phases {summary['sft_phases']}; wall {seconds / 60:.1f} min; load average {load:.1f} on {cores} cores")
    if "cpu_seconds" in summary:
        cpu = summary["cpu_seconds"]
        print(f"CPU time of the demo's process tree {cpu / 60:.1f} min ({cpu / 60 / cores:.1f} min of {cores} cores)")
    (ROOT / "docs").mkdir(exist_ok=True)
    shutil.copy(summary["plot"], ROOT / "docs" / "train-demo.png")
    results = ROOT / "bench" / "results"
    results.mkdir(parents=True, exist_ok=True)
    (results / "train-demo.json").write_text(json.dumps({**summary, "wall_seconds": seconds}, indent=2))
    return 0


def train_once(output: Path) -> tuple[dict[str, Any], float]:
    """One demo run from scratch in ``output``: its summary (with the tree's CPU seconds) and wall seconds."""
    from desktop_gym.train.demo import demo_config
    from desktop_gym.train.trainer import Trainer

    started, cpu_before = time.time(), tree_cpu_seconds()  # earlier runs of this process are in the totals
    trainer = Trainer(demo_config(str(output)), progress=True)
    try:
        summary = trainer.run()
        summary["cpu_seconds"] = tree_cpu_seconds() - cpu_before  # before close: the desktops are still children
    finally:
        trainer.close()
    return summary, time.time() - started


def repeat(count: int, output: Path) -> int:
    """Train ``count`` times; print and save each run's held-out counts with their median and range."""
    runs = []
    for index in range(1, count + 1):
        summary, seconds = train_once(output / f"run-{index}")
        runs.append(
            {
                "before": summary["before"]["successes"],
                "after": summary["after"]["successes"],
                "episodes": summary["after"]["episodes"],
                "sft_phases": summary["sft_phases"],
                "wall_seconds": round(seconds, 1),
                "cpu_seconds": round(summary["cpu_seconds"], 1),
                "load_1min": round(os.getloadavg()[0], 2),
            }
        )
        print(f"[repeat] run {index}: held-out {runs[-1]['before']} -> {runs[-1]['after']} of {runs[-1]['episodes']}")
    result: dict[str, Any] = {"runs": runs, "cpus": os.cpu_count()}
    for key in ("before", "after", "wall_seconds"):
        values = [run[key] for run in runs]
        result[key] = {"median": statistics.median(values), "min": min(values), "max": max(values)}
    print(
        f"held-out successes of {runs[0]['episodes']}: before median {result['before']['median']} "
        f"({result['before']['min']}-{result['before']['max']}), after median {result['after']['median']} "
        f"({result['after']['min']}-{result['after']['max']}) over {count} runs"
    )
    (ROOT / "bench" / "results" / "train-demo-repeats.json").write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
