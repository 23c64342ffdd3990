"""Throughput of the task miner (issue 30): proven tasks per minute on 1 and N desktops, local and on an env server.

Run: ``.venv/bin/python bench/bench_synth.py [--app calc] [--tasks 12] [--desktops 1 2] [--repeats 3]``.
Each arm is one ``desktop-gym tasks synth --n TASKS --jobs D`` run, with in-process desktops
(``local``) or on the desktops of an env server the benchmark starts (``server``, ``--max-envs``
the largest D, all warm); the arms alternate their order within each repeat. On a server the saved
documents stay there, so each kept task costs a second (perturbed) episode; locally a sibling's
document is the perturbed run. Prints per arm the kept tasks per minute (median and range over the
repeats), per desktop, the episodes per kept task, and the 1-minute load average seen at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from desktop_gym.polling import poll_until

ROOT = Path(__file__).resolve().parents[1]
CLI = ROOT / ".venv" / "bin" / "desktop-gym"
TOKEN = "bench-synth-token"


@contextmanager
def env_server(folder: Path, desktops: int) -> Iterator[str]:
    """An env server on a unix socket with ``desktops`` warm desktops; yields its address."""
    socket = folder / "serve.sock"
    environment = {**os.environ, "DESKTOP_GYM_TOKEN": TOKEN}
    command = [str(CLI), "serve", "--unix", str(socket), "--max-envs", str(desktops), "--warm", str(desktops)]
    server = subprocess.Popen(command, env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:

        def listening() -> bool:
            if server.poll() is not None:
                raise SystemExit("the env server exited before it listened")
            return socket.exists()

        poll_until(listening, 120.0, "the env server's socket")
        yield f"unix:{socket}"
    finally:
        server.terminate()
        server.wait(timeout=60)


def run_arm(app: str, tasks: int, desktops: int, seed: int, out: Path, server: str | None) -> dict[str, float]:
    """One arm once; returns kept, episodes, wall seconds and the load."""
    command = [str(CLI), "tasks", "synth", "--app", app, "--n", str(tasks), "--out", str(out), "--seed", str(seed)]
    command += ["--jobs", str(desktops)] + (["--server", server] if server else [])
    started = time.monotonic()
    done = subprocess.run(
        command, capture_output=True, text=True, timeout=1800, env={**os.environ, "DESKTOP_GYM_TOKEN": TOKEN}
    )
    wall = time.monotonic() - started
    if done.returncode != 0:
        raise SystemExit(f"tasks synth failed ({out}): {done.stderr[-2000:]}")
    run = json.loads((out / "report.json").read_text())["runs"][-1]
    return {"kept": run["kept"], "episodes": run["episodes"], "seconds": wall, "load": os.getloadavg()[0]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--app", default="calc")
    parser.add_argument("--tasks", type=int, default=12, help="tasks each arm mines per run")
    parser.add_argument("--desktops", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--where", nargs="+", default=["local", "server"], choices=["local", "server"])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json", default=None, help="also write the measurements as JSON")
    args = parser.parse_args()
    arms = [(where, d) for where in args.where for d in args.desktops]
    results: dict[tuple[str, int], list[dict[str, float]]] = {arm: [] for arm in arms}
    with tempfile.TemporaryDirectory(prefix="bench-synth-") as scratch:
        folder = Path(scratch)
        with env_server(folder, max(args.desktops)) if "server" in args.where else _nothing() as address:
            for repeat in range(args.repeats):
                for where, desktops in arms if repeat % 2 == 0 else list(reversed(arms)):
                    out = folder / f"r{repeat}-{where}-{desktops}"
                    seed = 1000 * (repeat + 1) + 10 * desktops + (where == "server")
                    measured = run_arm(
                        args.app, args.tasks, desktops, seed, out, address if where == "server" else None
                    )
                    results[(where, desktops)].append(measured)
                    rate = 60.0 * measured["kept"] / measured["seconds"]
                    print(f"repeat {repeat + 1}: {where} x{desktops}: {measured['kept']} kept, "
                          f"{measured['episodes']} episodes in {measured['seconds']:.0f} s ({rate:.1f}/min), "
                          f"load {measured['load']:.1f}", flush=True)  # fmt: skip
    print(f"\n{args.app}, {args.tasks} tasks per run, {args.repeats} repeats, {os.cpu_count()} cores")
    print(f"{'arm':>10}  {'kept/min':>18}  {'per desktop':>11}  {'episodes/task':>13}  {'load':>5}")
    summary = []
    for (where, desktops), runs in results.items():
        rates = [60.0 * r["kept"] / r["seconds"] for r in runs]
        row = {
            "arm": f"{where} x{desktops}",
            "kept_per_minute": statistics.median(rates),
            "range": [min(rates), max(rates)],
            "per_desktop": statistics.median(rates) / desktops,
            "episodes_per_task": sum(r["episodes"] for r in runs) / max(1, sum(r["kept"] for r in runs)),
            "load_max": max(r["load"] for r in runs),
        }
        summary.append(row)
        print(f"{row['arm']:>10}  {row['kept_per_minute']:>5.1f} ({min(rates):.1f}-{max(rates):.1f})  "
              f"{row['per_desktop']:>11.1f}  {row['episodes_per_task']:>13.2f}  {row['load_max']:>5.1f}")  # fmt: skip
    base = summary[0]["kept_per_minute"]
    for row in summary[1:]:
        print(f"{row['arm']} / {summary[0]['arm']}: {row['kept_per_minute'] / base:.2f}x")
    if args.json:
        runs = {f"{w} x{d}": v for (w, d), v in results.items()}
        Path(args.json).write_text(
            json.dumps({"app": args.app, "tasks": args.tasks, "arms": summary, "runs": runs}, indent=1)
        )


@contextmanager
def _nothing() -> Iterator[None]:
    yield None


if __name__ == "__main__":
    sys.exit(main())
