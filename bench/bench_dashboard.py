"""What watching costs: env steps with the web dashboard open vs closed, side by side in one run.

Run: ``.venv/bin/python bench/bench_dashboard.py [--steps 40] [--rounds 3]``.

One real desktop behind an env server; a client steps it (settle off, screenshot-only
observation, JPEG on the wire). "Open" means a watcher does what the dashboard page does: it
reads ``/api/status`` twice a second and fetches the env's thumbnail about three times a second.
Closed and open blocks alternate so drift on a noisy machine hits both alike.
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_local import percentile  # noqa: E402

from desktop_gym.polling import poll_until  # noqa: E402
from desktop_gym.serve.client import RemoteEnv  # noqa: E402
from desktop_gym.serve.server import EnvServer  # noqa: E402
from desktop_gym.web import LocalServerSource, create_app  # noqa: E402
from desktop_gym.web.runner import WebServer  # noqa: E402

TASK = "starter.calc_fill_totals"
ACTION = 'hotkey(keys=["ctrl", "home"])'


def watch(url: str, env_id: str, stop: threading.Event, counts: dict[str, int]) -> None:
    """Poll like the dashboard page: status every 0.5 s, the thumbnail every 0.3 s."""
    with httpx.Client(base_url=url, timeout=10.0) as client:
        next_status = 0.0
        while not stop.is_set():
            now = time.monotonic()
            if now >= next_status:
                client.get("/api/status").raise_for_status()
                counts["status"] += 1
                next_status = now + 0.5
            if client.get(f"/api/thumb/0/{env_id}?w=320").status_code in (200, 204):
                counts["thumbnails"] += 1
            stop.wait(0.3)


def step_block(env: RemoteEnv, steps: int) -> list[float]:
    seconds = []
    for _ in range(steps):
        started = time.perf_counter()
        env.step(ACTION)
        seconds.append(time.perf_counter() - started)
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=40, help="steps per block")
    parser.add_argument("--rounds", type=int, default=3, help="closed/open block pairs")
    args = parser.parse_args()
    closed: list[float] = []
    opened: list[float] = []
    counts = {"status": 0, "thumbnails": 0}
    with EnvServer(backend="local", max_envs=1, warm=1) as server:
        env = RemoteEnv(
            TASK,
            server.address,
            server.token,
            screenshot_format="jpeg",
            observation=("screenshot",),
            settle_timeout=0,
            max_steps=10_000,
        )
        env.reset(seed=0)
        with WebServer(create_app(source=LocalServerSource(server))) as web:
            step_block(env, 5)  # warm up
            for _ in range(args.rounds):
                closed += step_block(env, args.steps)
                stop = threading.Event()
                watcher = threading.Thread(target=watch, args=(web.url, env.env_id, stop, counts), daemon=True)
                shown = counts["thumbnails"]
                watcher.start()
                # Time the steps with a page that is already open: once it has fetched a thumbnail.
                poll_until(lambda shown=shown: counts["thumbnails"] > shown, 30, "the dashboard page's first thumbnail")
                opened += step_block(env, args.steps)
                stop.set()
                watcher.join(10)
        env.close()
    p50_closed, p50_open = percentile(closed, 50) * 1000, percentile(opened, 50) * 1000
    p90_closed, p90_open = percentile(closed, 90) * 1000, percentile(opened, 90) * 1000
    print(f"{'env.step through the server':<34} {'closed':>10} {'open':>10} {'open/closed':>12}")
    print(f"{'p50 (ms)':<34} {p50_closed:>10.2f} {p50_open:>10.2f} {p50_open / p50_closed:>11.2f}x")
    print(f"{'p90 (ms)':<34} {p90_closed:>10.2f} {p90_open:>10.2f} {p90_open / p90_closed:>11.2f}x")
    print(f"watcher: {counts['status']} status reads, {counts['thumbnails']} thumbnails; {len(closed)} steps per side")


if __name__ == "__main__":
    main()
