"""Reset readiness side by side: drawn-and-usable readiness vs the old quiet-screen-only check (issue 32).

Run: ``.venv/bin/python bench/bench_reset_readiness.py [--task starter.calc_fill_totals]
[--resets 30] [--load] [--arms readiness,no-states,quiet] [--steps N] [--final]``. One desktop
per arm (``DESKTOP_GYM_READINESS=quiet`` is the old check, ``no-states`` today's without waiting
for the office's control states); each round resets every arm with one seed, in alternating
order, and compares each reset's first observation (screenshot outside the caret mask, a11y text,
app_info) with its arm's first. Prints per arm the reset seconds (median, p10-p90, min-max), how
many first observations differed, the a11y tree read, and with ``--steps N`` the wall time and the
settle part of N typing steps after each reset; and the highest 1-minute load average seen.
``--final`` also counts the observations (resets and steps) that the screen changed after: each is
compared with the screen once it was still for a second. ``--load`` runs it all inside
``cpu_load()``.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from desktop_gym import DesktopEnv  # noqa: E402
from desktop_gym.guest.apps.readiness import READINESS_VARIABLE  # noqa: E402
from desktop_gym.settle import wait_until_stable  # noqa: E402
from desktop_gym.testing import cpu_load, screen_difference  # noqa: E402

PARTS = ("screenshot", "a11y_tree", "app_info")
ARMS = ("readiness", "quiet")
SEED = 123
FINAL_QUIET_S = 1.0  # with --final: the screen counts as final once unchanged this long


def _stale(env: DesktopEnv, screenshot) -> bool:
    """Whether the screen changed after the observed ``screenshot`` (compared once still for a second)."""
    wait_until_stable(env.client.screenshot, timeout=20.0, quiet=FINAL_QUIET_S)
    return not screen_difference(screenshot, env.client.screenshot()).within_caret_mask


def _differs(first: dict, other: dict) -> str:
    parts = []
    difference = screen_difference(first["screenshot"], other["screenshot"])
    if not difference.within_caret_mask:
        parts.append(f"screenshot {difference}")
    parts += [
        f"{part} ({len(first[part])} vs {len(other[part])} chars)"
        for part in ("a11y_tree", "app_info")
        if first[part] != other[part]
    ]
    return ", ".join(parts)


def _env(task: str, arm: str) -> DesktopEnv:
    """A DesktopEnv whose desktop (started by the first reset) runs the arm's readiness check."""
    previous = os.environ.get(READINESS_VARIABLE)
    os.environ[READINESS_VARIABLE] = "" if arm == "readiness" else arm
    try:
        env = DesktopEnv(task_id=task, observation=PARTS)
        env.reset(seed=SEED)  # starts the desktop with the arm's environment; warms the disk cache
    finally:
        if previous is None:
            os.environ.pop(READINESS_VARIABLE, None)
        else:
            os.environ[READINESS_VARIABLE] = previous
    return env


def _spread(values: list[float]) -> str:
    ordered = sorted(values)
    deciles = statistics.quantiles(ordered, n=10) if len(ordered) >= 2 else ordered * 9
    return (
        f"median {statistics.median(ordered):.2f} s, p10-p90 {deciles[0]:.2f}-{deciles[-1]:.2f} s, "
        f"min-max {ordered[0]:.2f}-{ordered[-1]:.2f} s"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--task", default="starter.calc_fill_totals")
    parser.add_argument("--resets", type=int, default=30)
    parser.add_argument("--load", action="store_true", help="oversubscribe the CPU (cpu_load) while resetting")
    parser.add_argument("--arms", default=",".join(ARMS), help="comma-separated: readiness,no-states,quiet")
    parser.add_argument("--steps", type=int, default=0, help="after each reset, time this many typing steps")
    parser.add_argument("--final", action="store_true", help="count observations the screen changed after")
    args = parser.parse_args()
    arms = [arm for arm in args.arms.split(",") if arm]
    envs = {arm: _env(args.task, arm) for arm in arms}
    seconds: dict[str, list[float]] = {arm: [] for arm in arms}
    unequal: dict[str, list[str]] = {arm: [] for arm in arms}
    tree_seconds: dict[str, list[float]] = {arm: [] for arm in arms}
    step_seconds: dict[str, list[float]] = {arm: [] for arm in arms}
    step_walls: dict[str, list[float]] = {arm: [] for arm in arms}
    stale: dict[str, list[str]] = {arm: [] for arm in arms}
    firsts: dict[str, dict] = {}
    load = None
    try:
        with cpu_load(seconds=900) if args.load else contextlib.nullcontext() as load:
            for round_index in range(args.resets):
                order = arms if round_index % 2 == 0 else arms[::-1]
                for arm in order:
                    observation, info = envs[arm].reset(seed=SEED)
                    seconds[arm].append(info["reset_seconds"])
                    tree_seconds[arm].append(info["observation_seconds"].get("a11y_tree", 0.0))
                    first = firsts.setdefault(arm, observation)
                    found = _differs(first, observation) if observation is not first else ""
                    if found:
                        unequal[arm].append(f"#{round_index}: {found}")
                    if args.final and _stale(envs[arm], observation["screenshot"]):
                        stale[arm].append(f"#{round_index} reset")
                    for index in range(args.steps):
                        started = time.perf_counter()
                        observation, *_ = envs[arm].step(f"type(text='{index % 10}')")
                        step_walls[arm].append(time.perf_counter() - started)
                        step_seconds[arm].append(envs[arm].observation_seconds.get("settle", 0.0))
                        if args.final and _stale(envs[arm], observation["screenshot"]):
                            stale[arm].append(f"#{round_index} step {index}")
                    if load is not None:
                        load.sample()
                print(
                    f"round {round_index + 1}/{args.resets}: " + ", ".join(f"{a} {seconds[a][-1]:.2f} s" for a in arms)
                )
    finally:
        for env in envs.values():
            env.close()
    where = f"under cpu_load, load up to {load.load_average:.1f}" if load is not None else "no added load"
    print(
        f"\n{args.task}, {args.resets} resets per arm, seed {SEED}, {where} (1-min load now {os.getloadavg()[0]:.1f})"
    )
    for arm in arms:
        print(f"  {arm:9s} reset {_spread(seconds[arm])}; first observations unequal: {len(unequal[arm])}")
        print(f"            a11y tree read {_spread(tree_seconds[arm])}")
        if step_seconds[arm]:
            print(f"            step wall {_spread(step_walls[arm])} ({len(step_walls[arm])} typing steps)")
            print(f"            step settle {_spread(step_seconds[arm])}")
        if args.final:
            observed = args.resets * (1 + args.steps)
            print(f"            observations the screen changed after: {len(stale[arm])} of {observed}", stale[arm][:4])
        for line in unequal[arm][:5]:
            print(f"            {line}")


if __name__ == "__main__":
    main()
