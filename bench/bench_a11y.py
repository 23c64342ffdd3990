"""Accessibility tree read on a real Calc: every cell and property read vs the cheap paths, side by side.

Run: ``.venv/bin/python bench/bench_a11y.py [--reads 10]``. Starts its own Xvfb, session bus,
openbox and Calc (the tree is read in this process: libatspi binds one bus per process), then
reads the observation's tree (visible nodes, at most 300) three ways, interleaved:

- ``full``: every visible grid cell and every menu item through AT-SPI, role and toolkit read
  every time (the old path);
- ``grid``: UNO names the non-empty visible cells (:mod:`desktop_gym.guest.a11y_grid`);
- ``grid+static``: plus role/interfaces/toolkit kept per object (:mod:`desktop_gym.guest.a11y_static`);
- ``+menus``: plus closed GTK menus' items not asked about (``a11y._menu_items``): the default.

Each round reads every path once (order rotated per round). Every read's text must be the same;
the table prints each path's p50, its ratio to ``full`` and the median per-round ratio to the row
above it (paired, so less moved by other load on the machine).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from desktop_gym.guest import a11y  # noqa: E402
from desktop_gym.guest.a11y_grid import uno_grid_contents  # noqa: E402
from desktop_gym.guest.apps import uno_bridge  # noqa: E402
from desktop_gym.polling import poll_until  # noqa: E402
from tests.support.soffice import start_a11y_session, start_soffice, stop_all  # noqa: E402

MAX_NODES = 300  # DesktopEnv's a11y_max_nodes default


def start_calc(work: Path, procs: list[subprocess.Popen]) -> uno_bridge.UnoConnection:
    """A Calc on a small budget sheet, on a private desktop this process's env points at."""
    import openpyxl

    env = start_a11y_session(work, procs)
    for key in ("DISPLAY", "DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR"):
        os.environ[key] = env[key]
    workbook = openpyxl.Workbook()
    for row in range(1, 6):
        workbook.active.append([f"item {row}", row * 10, row * 2.5])
    document = work / "budget.xlsx"
    workbook.save(document)
    soffice, pipe = start_soffice(work, document, env, cache_dir=work / "cache")
    procs.append(soffice)
    connection = uno_bridge.wait_for_uno(pipe, timeout=60)
    poll_until(lambda: 'table "Sheet ' in a11y.linearize_tree(), 60, "the Calc grid", retry_on=(a11y.A11yError,))
    return connection


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reads", type=int, default=10, help="reads per path")
    args = parser.parse_args()
    load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    print(f"a11y tree read on Calc ({os.cpu_count()} cores, load average {load})")
    procs: list[subprocess.Popen] = []
    with tempfile.TemporaryDirectory(prefix="bench-a11y-") as work:
        try:
            connection = start_calc(Path(work), procs)
            grid = uno_grid_contents(lambda: [connection])
            old = {"static_cache": False, "skip_closed_menus": False}
            paths = {
                "full": lambda: a11y.linearize_tree(True, MAX_NODES, **old),
                "grid": lambda: a11y.linearize_tree(True, MAX_NODES, grid_contents=grid, **old),
                "grid+static": lambda: a11y.linearize_tree(
                    True, MAX_NODES, grid_contents=grid, skip_closed_menus=False
                ),
                "+menus": lambda: a11y.linearize_tree(True, MAX_NODES, grid_contents=grid),
            }
            seconds: dict[str, list[float]] = {name: [] for name in paths}
            texts: dict[str, set[str]] = {name: set() for name in paths}
            names = list(paths)
            for round_ in range(args.reads):
                for name in names[round_ % len(names) :] + names[: round_ % len(names)]:  # rotate the order
                    started = time.perf_counter()
                    texts[name].add(paths[name]())
                    seconds[name].append(time.perf_counter() - started)
        finally:
            stop_all(procs)
    full, above = statistics.median(seconds["full"]), seconds["full"]
    for name, values in seconds.items():
        median = statistics.median(values)
        paired = statistics.median(a / b for a, b in zip(above, values, strict=True))  # same rounds
        print(f"  {name:<12} p50 {median * 1000:7.0f} ms   x{full / median:.2f} vs full   x{paired:.2f} vs above")
        above = values
    same = len(set().union(*texts.values())) == 1
    print(f"  same text on every read: {same}")
    if not same:
        raise SystemExit("the cheap paths changed the tree text")


if __name__ == "__main__":
    main()
