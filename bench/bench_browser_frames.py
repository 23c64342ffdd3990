"""Browser-drawn apps: does a step's screenshot show the step's key, and what does the settle's frame wait cost?

Run: ``.venv/bin/python bench/bench_browser_frames.py [--runs 3] [--rounds 8] [--json FILE]``.

Two VS Code desktops (code-server in a Chromium window) side by side, one per settle:

- ``frames`` (the default): after the quiet screen, the page in front runs two animation frames (its
  queued input handled, the frame after it produced) and the screen must be quiet again;
- ``quiet`` (``DESKTOP_GYM_BROWSER_FRAMES=0``, the settle before 2026-12-07): a quiet screen only.

Each run, under ``cpu_load`` (4 busy processes per core), plays ``--rounds`` rounds of ``ctrl+N`` (a new
editor tab) and a typed word on one desktop, then on the other (the first desktop alternates by run): each
step follows the last at once, as an agent's would (alternating the desktops step by step gives each
page a pause, and hid most of the late frames). A step whose screenshot is unchanged where its
effect shows (the tab strip, the editor's text) showed the screen from before its key. On the idle
machine it then times typed-letter steps, alternating the desktops.
"""

from __future__ import annotations

import os

import numpy as np
from result_file import spread, write_result_file
from side_by_side import desktops_per_run, median_step_seconds, print_table, run_arguments, with_peak_load

from desktop_gym import DesktopEnv
from desktop_gym.guest.apps.launcher import FRAMES_VARIABLE
from desktop_gym.testing import cpu_load

MODES = ("frames", "quiet")
MAX_ROUNDS = 40
TIMED_STEPS = 10
TAB_STRIP = (slice(55, 80), slice(350, 1260))  # where a new editor's tab shows on the 1280x720 screen
EDITOR_TEXT = (slice(95, 650), slice(350, 1260))  # where a typed word shows


def make_env(mode: str) -> DesktopEnv:
    """A VS Code desktop whose settle is the ``mode`` one (read when its guest starts)."""
    if mode == "quiet":
        os.environ[FRAMES_VARIABLE] = "0"
    env = DesktopEnv(task_id="vscode.auto_save", max_steps=500)
    env.reset(seed=0)
    os.environ.pop(FRAMES_VARIABLE, None)
    return env


def unshown_steps(envs: dict[str, DesktopEnv], rounds: int) -> dict[str, int]:
    """Per mode, how many of ``2 * rounds`` steps (played under load) left their region of the screen unchanged."""
    unshown = dict.fromkeys(envs, 0)
    with cpu_load(seconds=600):
        for mode, env in envs.items():  # one desktop at a time: keys follow each other as an agent sends them
            last = env.step("wait(seconds=0.1)")[0]["screenshot"]
            for index in range(rounds):
                steps = (("hotkey(keys=['ctrl', 'n'])", TAB_STRIP), (f"type(text='w{index}')", EDITOR_TEXT))
                for action, region in steps:
                    screenshot = env.step(action)[0]["screenshot"]
                    unshown[mode] += not np.any(screenshot[region] != last[region])
                    last = screenshot
    return unshown


def main() -> None:
    runs, rounds, json_path = run_arguments(__doc__, "rounds", 8, MAX_ROUNDS)
    per_run: list[tuple[dict[str, int], dict[str, float], float]] = []  # steps not shown, step seconds, load
    for run, envs in desktops_per_run(runs, MODES, make_env):
        unshown, load = with_peak_load(lambda envs=envs: unshown_steps(envs, rounds))
        per_run.append((unshown, median_step_seconds(envs, lambda _: "type(text='x')", TIMED_STEPS), load))
        print(f"run {run + 1}/{runs}: " + ", ".join(f"{mode} {unshown[mode]}/{2 * rounds}" for mode in MODES))
    loads = [load for _, _, load in per_run]
    header = ["settle after a step", "steps not showing their key, under load", "typed-letter step (idle)"]
    rows = [
        [
            mode,
            f"{spread([unshown[mode] for unshown, _, _ in per_run])} of {2 * rounds}",
            spread([seconds[mode] for _, seconds, _ in per_run], 1000) + " ms",
        ]
        for mode in MODES
    ]
    ratio = [seconds["frames"] / seconds["quiet"] for _, seconds, _ in per_run]
    print_table(header, rows)
    print(f"frames/quiet step time: {spread(ratio, digits=2)}")
    if json_path:
        notes = [
            f"{runs} runs; each: {rounds} rounds of ctrl+N and a typed word per desktop under cpu_load (1-minute "
            f"load {min(loads):.1f}-{max(loads):.1f}), then {TIMED_STEPS} timed steps per desktop on the idle machine.",
            f"frames/quiet step time, median (range) of the runs: {spread(ratio, digits=2)}.",
        ]
        write_result_file(json_path, __file__, "VS Code steps: screenshots that show the step's key",
                          f"bench/bench_browser_frames.py --runs {runs} --rounds {rounds}",
                          f"cpu_load: 4 busy processes per core; load {min(loads):.1f}-{max(loads):.1f}", notes,
                          [{"columns": header, "rows": rows}])  # fmt: skip


if __name__ == "__main__":
    main()
