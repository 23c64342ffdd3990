"""Prefetched resets against cold ones, side by side (issue 31): the reset a caller waits for, and the CPU it costs.

Run: ``.venv/bin/python bench/bench_prefetch.py [--task starter.calc_fill_totals] [--episodes 10]
[--steps 3] [--server]``. With ``--server`` the two envs are ``RemoteEnv``s of an env server on
local desktops (started in this process, three desktops: the prefetch's second one is lent by its
pool), and the reset the caller saw is the wall time of ``reset`` over gRPC.

Two envs, one per arm: ``cold`` resets as usual; ``prefetch`` names its next episode
at each reset (``options={"prefetch": {"seed": ...}}``), which a second desktop prepares while
the episode runs. Each episode is ``--steps`` typing steps; the arms alternate which goes first.
Prints per arm the reset the caller saw (median, p10-p90), the background reset of the prefetched
ones, how many were swaps, and the CPU seconds per episode of the arm's desktops (every process
of its one or two desktop sessions, with the children they reaped; this Python process's own
share is left out), with the load average seen.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from memory import session_processes  # noqa: E402

from desktop_gym import DesktopEnv  # noqa: E402

ARMS = ("cold", "prefetch")


def desktop_cpu_seconds(env: DesktopEnv) -> float:
    """CPU seconds (user + system, with reaped children) of the env's desktop sessions (two with a prefetch)."""
    import psutil

    envs: list[Any] = [env]
    prefetch = env._episode_prefetch  # noqa: SLF001 - the benchmark counts the shadow's desktop too
    if prefetch is not None and prefetch.shadow is not None:
        envs.append(prefetch.shadow)
    total = 0.0
    for each in envs:
        if each._handle is None:  # noqa: SLF001
            continue
        for pid in session_processes(each._handle):  # noqa: SLF001
            try:
                total += sum(psutil.Process(pid).cpu_times()[:4])
            except psutil.Error:  # it ended between the listing and the read
                continue
    return total


def _spread(values: list[float]) -> str:
    ordered = sorted(values)
    deciles = statistics.quantiles(ordered, n=10) if len(ordered) >= 2 else ordered * 9
    return f"median {statistics.median(ordered):.4f} s (p10-p90 {deciles[0]:.4f}-{deciles[-1]:.4f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--task", default="starter.calc_fill_totals")
    parser.add_argument("--episodes", type=int, default=10)
    parser.add_argument("--steps", type=int, default=3, help="typing steps per episode (the prefetch's time)")
    parser.add_argument("--server", action="store_true", help="the envs are RemoteEnvs of an env server")
    args = parser.parse_args()
    server = None
    if args.server:
        from desktop_gym.serve.client import RemoteEnv
        from desktop_gym.serve.server import EnvServer

        server = EnvServer(backend="local", max_envs=3, warm=0, lease_ttl=600).start()
        envs: dict[str, Any] = {arm: RemoteEnv(args.task, server.address, server.token) for arm in ARMS}
    else:
        envs = {arm: DesktopEnv(task_id=args.task) for arm in ARMS}

    def local_env(arm: str) -> DesktopEnv:
        """The arm's DesktopEnv: itself, or the one the in-process server runs for it."""
        return envs[arm] if server is None else server.session(envs[arm].env_id).env

    def reset(arm: str, seed: int, options: dict[str, Any] | None) -> dict[str, Any]:
        started = time.perf_counter()
        _, info = envs[arm].reset(seed=seed, options=options)
        if server is not None:  # what the caller waited for, over the wire
            info["reset_seconds"] = time.perf_counter() - started
        return info

    seen: dict[str, list[float]] = {arm: [] for arm in ARMS}
    background: list[float] = []
    swaps = 0
    cpu: dict[str, float] = {}
    peak_load = 0.0
    try:
        reset("cold", 0, None)
        reset("prefetch", 0, {"prefetch": {"seed": 1}})
        for arm in ARMS:
            cpu[arm] = -desktop_cpu_seconds(local_env(arm))
        for episode in range(1, args.episodes + 1):
            for arm in ARMS if episode % 2 else ARMS[::-1]:
                env = envs[arm]
                for step in range(args.steps):
                    env.step(f"type(text='{step}')")
                options = {"prefetch": {"seed": episode + 1}} if arm == "prefetch" else None
                info = reset(arm, episode, options)
                seen[arm].append(info["reset_seconds"])
                if info.get("prefetched"):
                    swaps += 1
                    background.append(info["prefetch_seconds"])
                peak_load = max(peak_load, os.getloadavg()[0])
            print(f"episode {episode}/{args.episodes}: " + ", ".join(f"{a} {seen[a][-1]:.3f} s" for a in ARMS))
        for arm in ARMS:
            cpu[arm] += desktop_cpu_seconds(local_env(arm))
    finally:
        for env in envs.values():
            env.close()
        if server is not None:
            server.drain(grace=10)
    print(
        f"\n{args.task}{' over the env server' if server else ''}: {args.episodes} episodes of "
        f"{args.steps} typing steps per arm, "
        f"1-min load up to {peak_load:.1f}"
    )
    for arm in ARMS:
        print(f"  {arm:8s} reset the caller saw {_spread(seen[arm])}")
        print(f"  {'':8s} desktop CPU {cpu[arm] / args.episodes:.2f} s per episode")
    if background:
        print(f"  prefetch: {swaps} of {args.episodes} resets were swaps; background reset {_spread(background)}")
    cold, fetched = statistics.median(seen["cold"]), statistics.median(seen["prefetch"])
    print(f"  the reset a prefetching caller waits for: {fetched / cold:.3f}x the cold one's (target < 50 ms)")


if __name__ == "__main__":
    main()
