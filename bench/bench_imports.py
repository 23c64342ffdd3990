"""Import cost of the package root and of the guest agent, before and after the lazy root.

Run: ``.venv/bin/python bench/bench_imports.py [--before REV] [--runs 5]``. ``REV`` (default: the
commit before the lazy root) is exported with ``git archive`` to a temporary folder and imported
from there with the same interpreter, side by side with the working tree, in one run. Per row:
median wall time of a fresh ``python -c "import ..."``, the ``-X importtime`` total, modules
loaded, whether gymnasium came in, and the process's RSS after the import (for the guest: what
every desktop pays before serving a call).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_BEFORE = "b680bbd"  # the last commit before the error hierarchy and the lazy root
TARGETS = {"root": "import desktop_gym", "guest": "import desktop_gym.guest.server"}
PROBE = """
import json, sys, time
began = time.perf_counter()
{statement}
seconds = time.perf_counter() - began
rss_kib = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmRSS:"))
heavy = [m for m in ("gymnasium", "desktop_gym.tasks", "desktop_gym.verifiers", "desktop_gym.actions.parsing")
         if m in sys.modules]
print(json.dumps({{"seconds": seconds, "modules": len(sys.modules), "rss_mib": rss_kib / 1024, "heavy": heavy}}))
"""


def export_revision(revision: str, folder: Path) -> Path:
    """``git archive`` of ``revision`` unpacked under ``folder`` (symlinks kept)."""
    archive = folder / "tree.tar"
    subprocess.run(["git", "-C", str(ROOT), "archive", "-o", str(archive), revision], check=True, timeout=120)
    with tarfile.open(archive) as tar:
        tar.extractall(folder / "tree", filter="tar")
    return folder / "tree"


def measure(tree: Path, statement: str, runs: int) -> dict:
    """Median wall time, the importtime total, and the last run's modules/RSS/heavy imports."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    walls, probes, importtime_us = [], [], []
    for _ in range(runs):
        out = subprocess.run(
            [sys.executable, "-X", "importtime", "-c", PROBE.format(statement=statement)],
            capture_output=True, text=True, env=env, cwd=tree, timeout=120, check=True,
        )  # fmt: skip
        probe = json.loads(out.stdout.strip().splitlines()[-1])
        probes.append(probe)
        walls.append(probe["seconds"])
        cumulative = [int(line.split("|")[1]) for line in out.stderr.splitlines() if line.startswith("import time:")
                      and line.split("|")[1].strip().isdigit() and not line.split("|")[2].startswith("  ")]  # fmt: skip
        importtime_us.append(sum(cumulative))
    last = probes[-1]
    return {
        "seconds": statistics.median(walls),
        "importtime_s": statistics.median(importtime_us) / 1e6,
        "modules": last["modules"],
        "rss_mib": statistics.median(p["rss_mib"] for p in probes),
        "heavy": last["heavy"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default=DEFAULT_BEFORE, help="git revision to compare with")
    parser.add_argument("--runs", type=int, default=5, help="fresh interpreters per row (1-50)")
    args = parser.parse_args()
    if not 1 <= args.runs <= 50:
        parser.error("--runs must be 1-50")
    with tempfile.TemporaryDirectory(prefix="bench-imports-") as scratch:
        before_tree = export_revision(args.before, Path(scratch))
        rows = []
        for name, statement in TARGETS.items():
            before = measure(before_tree, statement, args.runs)
            after = measure(ROOT, statement, args.runs)
            rows.append((name, statement, before, after))
    print(f"import cost, {args.before} (before) vs working tree (after), median of {args.runs} fresh interpreters")
    print(f"{'what':<34}{'before':>12}{'after':>12}{'after/before':>14}")
    for _name, statement, before, after in rows:
        print(statement)
        for key, unit in (("seconds", "s"), ("importtime_s", "s, with startup"), ("modules", ""), ("rss_mib", "MiB")):
            ratio = after[key] / before[key] if before[key] else float("nan")
            label = f"{key} ({unit})" if unit else key
            print(f"  {label:<32}{before[key]:>12.3f}{after[key]:>12.3f}{ratio:>14.2f}")
        heavy_before, heavy_after = len(before["heavy"]), len(after["heavy"])
        print(f"  {'host-side modules imported':<32}{heavy_before:>12}{heavy_after:>12}   {after['heavy']}")


if __name__ == "__main__":
    main()
