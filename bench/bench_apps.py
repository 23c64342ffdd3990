"""Apps side by side: reset time and memory of a desktop with Calc, Writer, Chromium, GIMP, VLC or VS Code open.

Run: ``.venv/bin/python bench/bench_apps.py [--resets 10] [--apps calc gimp ...] [--json FILE]``. One
local desktop per app runs for the whole benchmark; the desktops are reset in turn (Calc, Writer, ...)
so every app sees the same machine load, with a screenshot-only observation. The table gives each
app's reset time (median and quartiles over ``--resets`` resets, after one warm-up reset) and the
PSS of its whole desktop after the last reset (Xvfb, openbox, dbus, at-spi, the guest agent and the
app's processes; for Chrome also the guest's offline site server), by program.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from memory import pss_by_program  # noqa: E402

from desktop_gym import DesktopEnv  # noqa: E402

#: app -> a task whose reset starts only that app (a fresh document or page each episode).
TASKS = {
    "calc": "starter.calc_fill_totals",
    "writer": "starter.writer_append_paragraph",
    "chrome": "chrome.bookmark_page",
    "gimp": "gimp.invert_colors",
    "vlc": "vlc.set_volume",
    "vscode": "vscode.editor_indentation",
}
MAX_RESETS = 50


def quartiles(values: list[float]) -> tuple[float, float, float]:
    """(p25, median, p75) of ``values``."""
    if len(values) < 2:
        return values[0], values[0], values[0]
    low, mid, high = statistics.quantiles(values, n=4, method="inclusive")
    return low, mid, high


def run(apps: list[str], resets: int) -> dict:
    """Reset each app's desktop ``resets`` times in turn; its reset seconds and PSS by program."""
    envs = {app: DesktopEnv(task_id=TASKS[app], observation=("screenshot",)) for app in apps}
    seconds: dict[str, list[float]] = {app: [] for app in apps}
    loads: list[float] = []
    try:
        for env in envs.values():
            env.reset(seed=0)  # starts the session, warms the disk cache
        for seed in range(1, resets + 1):
            for app, env in envs.items():
                seconds[app].append(env.reset(seed=seed)[1]["reset_seconds"])
            loads.append(os.getloadavg()[0])
            print(f"round {seed}/{resets}: " + ", ".join(f"{a} {s[-1]:.2f} s" for a, s in seconds.items()), flush=True)
        memory = {app: pss_by_program(env.unwrapped._handle) for app, env in envs.items()}
    finally:
        for env in envs.values():
            env.close()
    return {"seconds": seconds, "memory": memory, "load": [min(loads), statistics.median(loads), max(loads)]}


def tables(result: dict) -> list[dict]:
    """The reset and memory tables, cells as printed."""
    apps = list(result["seconds"])
    reset_rows = []
    for app in apps:
        low, mid, high = quartiles(result["seconds"][app])
        count = str(len(result["seconds"][app]))
        reset_rows.append([app, TASKS[app], f"{mid:.2f} s", f"{low:.2f}-{high:.2f} s", count])
    programs = sorted(
        {program for column in result["memory"].values() for program in column if program != "gone"},
        key=lambda program: -max(column.get(program, 0.0) for column in result["memory"].values()),
    )
    memory = result["memory"]
    memory_rows = [[program, *(f"{memory[app].get(program, 0.0):.1f}" for app in apps)] for program in programs]
    memory_rows.append(["total", *(f"{sum(result['memory'][app].values()):.1f}" for app in apps)])
    return [
        {
            "caption": "reset (screenshot-only observation), the apps reset in turn",
            "columns": ["app", "task", "median", "p25-p75", "resets"],
            "rows": reset_rows,
        },
        {
            "caption": "PSS of the whole desktop after the last reset, MiB by program",
            "columns": ["program", *apps],
            "rows": memory_rows,
        },
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--resets", type=int, default=10, help=f"resets per app after the warm-up (max {MAX_RESETS})")
    parser.add_argument("--apps", nargs="+", default=list(TASKS), choices=list(TASKS))
    parser.add_argument("--json", type=Path, help="also write a result file (bench/results/log format)")
    args = parser.parse_args()
    if not 1 <= args.resets <= MAX_RESETS:
        parser.error(f"--resets must be in [1, {MAX_RESETS}]")
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    result = run(args.apps, args.resets)
    rendered = tables(result)
    for table in rendered:
        print(f"\n{table['caption']}")
        print("  " + " | ".join(table["columns"]))
        for row in table["rows"]:
            print("  " + " | ".join(row))
    low, mid, high = result["load"]
    print(f"\nload average during the rounds: {low:.1f}-{high:.1f} (median {mid:.1f})")
    if args.json:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
        args.json.write_text(
            json.dumps(
                {
                    "title": "Apps side by side: reset time and desktop memory with " + ", ".join(result["seconds"]),
                    "benchmark": "bench/bench_apps.py",
                    "command": " ".join([".venv/bin/python", "bench/bench_apps.py", *sys.argv[1:]]),
                    "measured": started,
                    "machine": f"{os.cpu_count()} cores",
                    "load": f"load average {low:.1f}-{high:.1f} (median {mid:.1f}) during the rounds",
                    "recorded_in": commit,
                    "tables": rendered,
                    "raw_seconds": result["seconds"],
                },
                indent=1,
            )
            + "\n"
        )


if __name__ == "__main__":
    main()
