"""Settle side by side: the guest's one-call X DAMAGE settle vs host-side screenshot polling.

Run: ``.venv/bin/python bench/bench_settle.py [--steps 40]``. One Calc desktop; each round takes
the same step on both paths in alternating order (``DESKTOP_GYM_SETTLE=poll`` is the old one)
and prints p50 of the step, of its settle part, and of the round trips it made. With ``--check``
each settled frame must come back on the screen within 2 s ("stale": it never did).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from desktop_gym import DesktopEnv  # noqa: E402
from desktop_gym.polling import wait_while  # noqa: E402
from desktop_gym.settle import SETTLE_VARIABLE  # noqa: E402

CALC_TASK = "starter.calc_fill_totals"
ACTIONS = {"wait": "wait(seconds=0)", "type": "type(text='{}')"}


def _step(env: DesktopEnv, action: str, path: str, calls: list[int]) -> tuple[float, float, dict]:
    if path == "poll":
        os.environ[SETTLE_VARIABLE] = "poll"
    else:
        os.environ.pop(SETTLE_VARIABLE, None)
    counted = _count_calls(env, calls)
    started = time.perf_counter()
    observation, *_ = env.step(action)
    seconds = time.perf_counter() - started
    counted()
    return seconds, env.observation_seconds.get("settle", 0.0), observation


def _stale(env: DesktopEnv, settled: np.ndarray) -> bool:
    """Whether the screen never shows the settled frame again within 2 s (two cursor blink cycles)."""
    differs = lambda: not np.array_equal(env.client.screenshot(), settled)  # noqa: E731
    return not wait_while(differs, 2.0, interval=0.02)


def _count_calls(env: DesktopEnv, calls: list[int]):
    """Count the client's RPCs until the returned function is called."""
    client = env.client
    original = client._call
    count = [0]

    def counting(name, request, timeout=None):
        count[0] += 1
        return original(name, request, timeout)

    client._call = counting

    def done() -> None:
        client._call = original
        calls.append(count[0])

    return done


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--check", action="store_true", help="compare each settled frame with one 1 s later")
    parser.add_argument("--observation", default="screenshot", help="comma list, or 'default'")
    args = parser.parse_args()
    kwargs = {} if args.observation == "default" else {"observation": tuple(args.observation.split(","))}
    env = DesktopEnv(task_id=CALC_TASK, **kwargs)
    results: dict[tuple[str, str], dict[str, list]] = {}
    try:
        env.reset(seed=0)
        for index in range(args.steps):
            if env._steps >= env._step_budget() - 4:
                env.reset(seed=index)
            for kind, template in ACTIONS.items():
                action = template.format("abcdefghij"[index % 10])
                order = ("damage", "poll") if index % 2 else ("poll", "damage")
                for path in order:
                    slot = results.setdefault((kind, path), {"step": [], "settle": [], "calls": [], "stale": []})
                    step, settle, observation = _step(env, action, path, slot["calls"])
                    slot["step"].append(step)
                    slot["settle"].append(settle)
                    if args.check and "screenshot" in observation:
                        slot["stale"].append(_stale(env, observation["screenshot"]))
    finally:
        os.environ.pop(SETTLE_VARIABLE, None)
        env.close()
    print(f"load {os.getloadavg()[0]:.2f}; n={args.steps} per row; observation {args.observation}")
    for (kind, path), slot in sorted(results.items()):
        stale = [index for index, changed in enumerate(slot["stale"]) if changed]
        print(
            f"{kind:5s} {path:7s} step p50 {statistics.median(slot['step']) * 1000:6.1f} ms"
            f"  settle p50 {statistics.median(slot['settle']) * 1000:6.1f} ms"
            f"  RPCs p50 {statistics.median(slot['calls']):.0f}"
            + (f"  stale {len(stale)}/{len(slot['stale'])} (rounds {stale})" if slot["stale"] else "")
        )


if __name__ == "__main__":
    main()
