"""The learning demo as a benchmark: held-out success before and after, wall time, the plot.

Runs ``desktop-gym train --demo`` (the config in ``desktop_gym/train/demo.py``), prints the
before/after success rates with 95% Wilson intervals side by side, the wall time and the CPU time
the demo itself used (this process and every desktop process it started: on a CPU shared with
other work the wall time says more about the neighbours than about the demo), and copies the plot to
``docs/train-demo.png`` (what the README shows) and the summary to ``bench/results/train-demo.json``.

    .venv/bin/python bench/bench_train_demo.py [--output runs/train-demo]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import time
from pathlib import Path

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
    args = parser.parse_args()
    if args.summary:
        summary = json.loads(Path(args.summary).read_text())
        seconds = summary["seconds"]
    else:
        from desktop_gym.train.demo import demo_config
        from desktop_gym.train.trainer import Trainer

        started = time.time()
        trainer = Trainer(demo_config(args.output), progress=True)
        try:
            summary = trainer.run()
            summary["cpu_seconds"] = tree_cpu_seconds()  # before close: the desktops are still children
        finally:
            trainer.close()
        seconds = time.time() - started
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


if __name__ == "__main__":
    raise SystemExit(main())
