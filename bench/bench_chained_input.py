"""Chained input in one step: does each key land where the step meant it, and what does handling it cost?

Run: ``.venv/bin/python bench/bench_chained_input.py [--runs 3] [--chains 20] [--json FILE]``.

Two Calc desktops side by side, one per way the guest waits after each input action:

- ``events`` (the default): each office works off every event pending for it, including those it
  posts itself (Calc moves the focus to the Name Box and back to the grid that way);
- ``mutex`` (``DESKTOP_GYM_INPUT_WAIT=mutex``, the check before 2026-12-07): only its main thread
  must be free.

Each run, under ``cpu_load`` (4 busy processes per core), plays ``--chains`` steps that each chain
``hotkey(ctrl+shift+T)``, ``type(cell, enter)`` and ``type(value, enter)`` on each desktop in turn,
then reads every cell back through ``CalcTools``: a wrong cell is a key that reached the wrong focus.
On the idle machine it then times single-key steps (``press(Right)``) and chained steps, alternating
the desktops.
"""

from __future__ import annotations

import os

from result_file import spread, write_result_file
from side_by_side import desktops_per_run, median_step_seconds, print_table, run_arguments, with_peak_load

from desktop_gym import DesktopEnv
from desktop_gym.guest.server import INPUT_WAIT_VARIABLE
from desktop_gym.testing import cpu_load

MODES = ("events", "mutex")
MAX_CHAINS = 60
TIMED_STEPS = 10


def make_env(mode: str) -> DesktopEnv:
    """A Calc desktop whose guest waits after input the ``mode`` way (read when its guest starts)."""
    if mode == "mutex":
        os.environ[INPUT_WAIT_VARIABLE] = "mutex"
    else:
        os.environ.pop(INPUT_WAIT_VARIABLE, None)
    env = DesktopEnv(task_id="starter.calc_fill_totals", observation=("last_action_result",), max_steps=500)
    env.reset(seed=0)
    os.environ.pop(INPUT_WAIT_VARIABLE, None)
    return env


def chain(cell: str, value: int) -> str:
    """One step: focus the Name Box, jump to ``cell``, type ``value`` there."""
    return f"hotkey(keys=['ctrl', 'shift', 't'])\ntype(text='{cell}', enter=True)\ntype(text='{value}', enter=True)"


def wrong_cells(envs: dict[str, DesktopEnv], chains: int) -> dict[str, int]:
    """Per mode, how many of ``chains`` chained steps (played under load) left a wrong cell."""
    with cpu_load(seconds=600):
        for row in range(chains):
            for env in envs.values():
                env.step(chain(f"F{row + 2}", row + 7))
    wrong = {}
    for mode, env in envs.items():
        values = [
            env.step(f"CalcTools.get_cell_value(cell='F{row + 2}')")[0]["last_action_result"] for row in range(chains)
        ]
        wrong[mode] = sum(value != str(row + 7) for row, value in enumerate(values))
    return wrong


def main() -> None:
    runs, chains, json_path = run_arguments(__doc__, "chains", 20, MAX_CHAINS)
    results: dict[str, dict[str, list[float]]] = {mode: {"wrong": [], "key": [], "chained": []} for mode in MODES}
    loads: list[float] = []
    for run, envs in desktops_per_run(runs, MODES, make_env):
        counts, load = with_peak_load(lambda envs=envs: wrong_cells(envs, chains))
        loads.append(load)
        for mode, count in counts.items():
            results[mode]["wrong"].append(count)
        for kind, action in (("key", "press(key='Right')"), ("chained", chain("G{row}", 1))):
            step = action.format
            for mode, seconds in median_step_seconds(envs, lambda i, step=step: step(row=i + 40), TIMED_STEPS).items():
                results[mode][kind].append(seconds)
        print(f"run {run + 1}/{runs}: " + ", ".join(f"{m} wrong {results[m]['wrong'][-1]}/{chains}" for m in MODES))
    rows = []
    for mode in MODES:
        got = results[mode]
        rows.append([
            mode,
            f"{spread(got['wrong'])} of {chains}",
            spread(got["key"], 1000) + " ms",
            spread(got["chained"], 1000) + " ms",
        ])  # fmt: skip
    ratio = [e / m for e, m in zip(results["events"]["chained"], results["mutex"]["chained"], strict=True)]
    key_ratio = [e / m for e, m in zip(results["events"]["key"], results["mutex"]["key"], strict=True)]
    header = ["after input, the guest waits for", "wrong cells under load", "key step (idle)", "chained step (idle)"]
    print_table(header, rows)
    print(f"events/mutex step time: key {spread(key_ratio, digits=2)}, chained {spread(ratio, digits=2)}")
    if json_path:
        notes = [
            f"{runs} runs; each: {chains} chained steps per desktop under cpu_load (1-minute load "
            f"{min(loads):.1f}-{max(loads):.1f}), then {TIMED_STEPS} timed steps of each kind per desktop on the "
            "idle machine.",
            f"events/mutex step time, median (range) of the runs: key {spread(key_ratio, digits=2)}, "
            f"chained {spread(ratio, digits=2)}.",
        ]
        table = {"columns": header, "rows": rows}
        write_result_file(json_path, __file__, "Chained input in one step: keys that reach the wrong focus",
                          f"bench/bench_chained_input.py --runs {runs} --chains {chains}",
                          f"cpu_load: 4 busy processes per core; load {min(loads):.1f}-{max(loads):.1f}", notes,
                          [table])  # fmt: skip


if __name__ == "__main__":
    main()
