"""App API benchmark: call latency next to the GUI step doing the same, and oracle step counts.

Run: ``.venv/bin/python bench/bench_api.py [--calls 200] [--tasks 8]``; the issue-16 API-call
target (now / target / ratio) is printed after the call table. One local desktop; every
API call goes through the real gRPC ``CallApi`` into the live app (UNO for LibreOffice). Rounds
of each measurement are interleaved, so load from other processes hits all of them alike.
Then tasks with both an API and a GUI oracle are played through the real env, and the steps
each oracle needed are printed side by side.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402
from bench_local import percentile, row  # noqa: E402
from targets import TargetTable  # noqa: E402

import desktop_gym  # noqa: E402
from desktop_gym import DesktopEnv  # noqa: E402
from desktop_gym.backends.local import LocalBackend  # noqa: E402
from desktop_gym.guest.client import GuestClient  # noqa: E402
from desktop_gym.tasks import get_task  # noqa: E402
from desktop_gym.tasks.artifacts import docx_bytes, pptx_bytes, xlsx_bytes  # noqa: E402

ROUNDS = 5
TARGETS = TargetTable()
BLOCK = [[row_index * 10 + column for column in range(5)] for row_index in range(10)]


def interleaved(calls: dict[str, Callable[[], object]], total: int) -> dict[str, list[float]]:
    """Run each call ``total`` times in ``ROUNDS`` interleaved rounds; milliseconds per call."""
    times: dict[str, list[float]] = {name: [] for name in calls}
    for _ in range(ROUNDS):
        for name, call in calls.items():
            call()  # a warm-up per round: the first call after another kind pays for switching
            for _ in range(max(1, total // ROUNDS)):
                started = time.perf_counter()
                call()
                times[name].append((time.perf_counter() - started) * 1000)
    return times


def report(table, times: dict[str, list[float]], notes: dict[str, str]) -> None:
    for name, values in times.items():
        p10, p50, p95 = percentile(values, 10), percentile(values, 50), percentile(values, 95)
        row(table, name, f"{p50:.2f} ms", f"p10 {p10:.2f}  p95 {p95:.2f} ms  {notes.get(name, '')}")


def api(client: GuestClient, tools: str, method: str, **arguments: object) -> Callable[[], str]:
    text = json.dumps(arguments)
    return lambda: client.call_api(tools, method, text)


def bench_calls(table, calls: int) -> None:
    backend = LocalBackend(width=1280, height=720)
    handle = backend.start()
    client = GuestClient(handle.address, token=handle.token)
    client.wait_ready()
    try:
        client.launch_app("calc", client.put_file("~/bench.xlsx", xlsx_bytes([("a", "b"), (1, 2)])))
        measured = {
            "CalcTools.set_cell_value": api(client, "CalcTools", "set_cell_value", cell="B2", value=42),
            "CalcTools.get_cell_value": api(client, "CalcTools", "get_cell_value", cell="B2"),
            "CalcTools.set_range_values (10x5)": api(
                client, "CalcTools", "set_range_values", start_cell="A3", values=BLOCK
            ),
            "OSTools.path_exists": api(client, "OSTools", "path_exists", path="~/bench.xlsx"),
            "OSTools.write_text_file": api(client, "OSTools", "write_text_file", path="~/b.txt", text="x" * 100),
            # The GUI way to put a value in a cell: type it and press Enter (delivered once Calc is idle).
            "GUI: type '42\\n' into a cell": lambda: client.type_text("42\n"),
            "guest round trip (Ping)": client.ping,
        }
        times = interleaved(measured, calls)
        ratio = percentile(times["GUI: type '42\\n' into a cell"], 50) / percentile(
            times["CalcTools.set_cell_value"], 50
        )
        TARGETS.add(
            "app API call CalcTools.set_cell_value, p50",
            percentile(times["CalcTools.set_cell_value"], 50),
            2,
            "ms",
            f"guest Ping {percentile(times['guest round trip (Ping)'], 50):.2f} ms",
        )
        report(
            table,
            times,
            {
                "CalcTools.set_cell_value": "target < 2 ms",
                "GUI: type '42\\n' into a cell": f"{ratio:.1f}x the API call",
            },
        )
        client.kill_apps()
        client.launch_app("writer", client.put_file("~/bench.docx", docx_bytes(["first", "second"], heading="Head")))
        writer = {
            "WriterTools.set_paragraph_text": api(client, "WriterTools", "set_paragraph_text", paragraph=1, text="x"),
            "WriterTools.get_text": api(client, "WriterTools", "get_text"),
        }
        report(table, interleaved(writer, calls // 2), {})
        client.kill_apps()
        slides = [{"layout": "Title and Content", "title": "One", "body": ["a", "b"]}]
        client.launch_app("impress", client.put_file("~/bench.pptx", pptx_bytes(slides)))
        impress = {
            "ImpressTools.set_title": api(client, "ImpressTools", "set_title", slide=1, title="Bench"),
            "ImpressTools.list_slides": api(client, "ImpressTools", "list_slides"),
        }
        report(table, interleaved(impress, calls // 2), {})
        client.kill_apps()
    finally:
        client.close()
        backend.close()


def bench_env_steps(table, steps: int) -> None:
    """The same cell write as one env step: API call vs typed text (settling off, screenshot on)."""
    env = DesktopEnv(task_id="starter.calc_fill_totals", observation=("screenshot",), settle_timeout=0)
    try:
        measured = {
            "env.step: CalcTools.set_cell_value": lambda: env.step('CalcTools.set_cell_value(cell="D2", value=7)'),
            "env.step: type(text='7\\n')": lambda: env.step("type(text='7\\n')"),
        }
        env.max_steps = 10 * steps + 20  # one long episode
        env.reset(seed=0)
        report(table, interleaved(measured, steps), {})
    finally:
        env.close()


def tasks_with_both_oracles(limit: int) -> list[str]:
    """Task ids with an API and a GUI oracle: the starter tasks first, then round robin over suites."""
    by_suite: dict[str, list[str]] = {}
    for task_id in desktop_gym.list_tasks():
        task = get_task(task_id)
        params = task.sample_params(np.random.default_rng(0))
        if task.infeasible or task.api_oracle(params) is None or task.gui_oracle(params) is None:
            continue
        by_suite.setdefault(task_id.split(".")[0], []).append(task_id)
    chosen = by_suite.pop("starter", [])
    while len(chosen) < limit and any(by_suite.values()):
        for ids in by_suite.values():
            if ids and len(chosen) < limit:
                chosen.append(ids.pop(0))
    return chosen[:limit]


def play(env: DesktopEnv, task_id: str, which: str) -> tuple[int, bool, float]:
    started = time.perf_counter()
    observation, info = env.reset(seed=0, options={"task_id": task_id})
    policy = getattr(get_task(task_id), which)(info["params"])
    for steps in range(1, info["max_steps"] + 1):
        observation, _, terminated, truncated, step_info = env.step(policy(observation))
        if terminated or truncated:
            return steps, bool(step_info.get("success")), time.perf_counter() - started
    return info["max_steps"], False, time.perf_counter() - started


def bench_oracles(limit: int) -> None:
    env = DesktopEnv(observation=("screenshot", "a11y_tree", "focused_app", "api", "last_action_error"))
    print(f"\n  {'task':<36} {'API steps':>9} {'GUI steps':>9}  {'API s':>6} {'GUI s':>6}  success (api/gui)")
    try:
        totals = [0, 0]
        for task_id in tasks_with_both_oracles(limit):
            api_steps, api_ok, api_s = play(env, task_id, "api_oracle")
            gui_steps, gui_ok, gui_s = play(env, task_id, "gui_oracle")
            totals[0] += api_steps
            totals[1] += gui_steps
            print(
                f"  {task_id:<36} {api_steps:>9} {gui_steps:>9}  {api_s:>6.1f} {gui_s:>6.1f}  {api_ok}/{gui_ok}",
                flush=True,
            )
        print(f"  {'total':<36} {totals[0]:>9} {totals[1]:>9}")
    finally:
        env.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=200, help="calls per measured API method")
    parser.add_argument("--steps", type=int, default=50, help="env steps per measured step kind")
    parser.add_argument("--tasks", type=int, default=8, help="tasks whose two oracles are compared")
    args = parser.parse_args()
    load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    print(f"desktop-gym app API benchmark ({os.cpu_count()} cores, load average {load})")
    table: list[tuple[str, str, str]] = []
    bench_calls(table, args.calls)
    print("\nissue 16 target (the others: bench/bench_local.py)")
    print(TARGETS.render())
    bench_env_steps(table, args.steps)
    bench_oracles(args.tasks)


if __name__ == "__main__":
    main()
