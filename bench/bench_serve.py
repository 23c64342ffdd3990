"""The env server's cost, side by side in one run: gRPC vs in-process, the warm pool, scaling, 1,000 sessions.

Run: ``.venv/bin/python bench/bench_serve.py [--steps 40] [--scale 1,4,8,16] [--sessions 1000]``.

Rows:
- step overhead: ``RemoteEnv.step`` vs ``DesktopEnv.step`` on the same real desktop (settle off),
  raw and JPEG screenshots; ``CreateEnv`` from the warm pool; reset through the server vs in process.
- aggregate steps/s with N real desktops stepping at once (default observation and screenshot
  only, settle off) and the scaling ratio over one desktop.
- N load-test sessions (the stand-in backend, named as such): create/reset/step/close p50 and
  p99, the server's RSS per idle session, errors (should be 0).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import select
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_local import percentile, row  # noqa: E402
from memory import session_pss_mib  # noqa: E402
from tqdm import tqdm  # noqa: E402

from desktop_gym import DesktopEnv  # noqa: E402
from desktop_gym.serve.client import EnvConnection, RemoteEnv  # noqa: E402
from desktop_gym.serve.env_pool import EnvPool  # noqa: E402
from desktop_gym.serve.server import EnvServer  # noqa: E402
from desktop_gym.serve.stats import rss_mb  # noqa: E402
from desktop_gym.serve.vector import make_vec  # noqa: E402

TASK = "starter.terminal_write_file"
ACTION = "wait(seconds=0)"
CLI = str(Path(sys.executable).with_name("desktop-gym"))


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f} ms"


def step_times(env, steps: int) -> list[float]:
    env.reset(seed=0)
    times = []
    for _ in range(steps):
        started = time.perf_counter()
        *_, terminated, truncated, _ = env.step(ACTION)
        times.append(time.perf_counter() - started)
        if terminated or truncated:
            env.reset(seed=0)
    return times


def bench_overhead(table: list, steps: int) -> None:
    """RemoteEnv vs DesktopEnv on one desktop (the server's), rounds interleaved to share the noise."""
    print("== gRPC step overhead on one real desktop (settle off)")
    options = {"settle_timeout": 0, "max_steps": 10_000}
    with EnvServer(backend="local", max_envs=1, warm=1) as server:
        server.pool.wait_ready(1, timeout=120)
        local = DesktopEnv(TASK, backend=server.pool._ready[0], **options)  # the server's desktop, in this process
        samples: dict[str, list[float]] = {"in-process": [], "raw": [], "jpeg": []}
        for _ in tqdm(range(3), desc="overhead rounds"):
            samples["in-process"] += step_times(local, steps)
            for fmt in ("raw", "jpeg"):  # each RemoteEnv takes the one desktop and gives it back
                remote = RemoteEnv(TASK, server.address, server.token, screenshot_format=fmt, **options)
                samples[fmt] += step_times(remote, steps)
                remote.close()
        base = percentile(samples["in-process"], 50)
        row(table, "step p50, in-process DesktopEnv", ms(base), "default observation")
        for fmt in ("raw", "jpeg"):
            p50 = percentile(samples[fmt], 50)
            row(table, f"step p50, RemoteEnv ({fmt} screenshot)", ms(p50), f"added {ms(p50 - base)}, x{p50 / base:.2f}")
        bench_create_and_reset(table, server, local, steps)
        local.close()


def bench_transport(table: list, steps: int) -> None:
    """The server + gRPC cost alone: the load-test stand-in in process vs through a server (unix socket)."""
    from desktop_gym.serve.loadtest import LoadTestBackend, LoadTestEnv

    options = {"max_steps": 10_000, "observation": ["instruction", "screenshot", "last_action_error"]}
    backend = LoadTestBackend(width=1280, height=720)
    local = LoadTestEnv(TASK, backend=backend, **options)
    socket = f"unix:/tmp/desktop-gym-bench-{os.getpid()}.sock"
    with EnvServer(socket, backend="loadtest", backend_kwargs={"width": 1280, "height": 720}, max_envs=2) as server:
        samples: dict[str, list[float]] = {"in-process": [], "raw": [], "jpeg": []}
        remotes = {
            fmt: RemoteEnv(TASK, server.address, server.token, screenshot_format=fmt, **options)
            for fmt in ("raw", "jpeg")
        }
        for _ in range(3):
            samples["in-process"] += step_times(local, steps * 3)
            for fmt, remote in remotes.items():
                samples[fmt] += step_times(remote, steps * 3)
        base = percentile(samples["in-process"], 50)
        for fmt, remote in remotes.items():
            p50 = percentile(samples[fmt], 50)
            row(
                table,
                f"server + gRPC added per step ({fmt}, 1280x720)",
                ms(p50 - base),
                "load-test stand-in, unix socket",
            )
            remote.close()
    local.close()


def bench_create_and_reset(table: list, server: EnvServer, local: DesktopEnv, count: int) -> None:
    connection = EnvConnection(server.address, server.token)
    from desktop_gym.serve.protos import env_pb2 as pb

    creates, remote_resets, local_resets = [], [], []
    for _ in tqdm(range(min(count, 20)), desc="create/reset"):
        server.pool.wait_ready(1, timeout=60)
        started = time.perf_counter()
        request = pb.CreateEnvRequest(task_id=TASK, options_json=json.dumps({"settle_timeout": 0}))
        reply = connection.call("CreateEnv", request)
        creates.append(time.perf_counter() - started)
        started = time.perf_counter()
        connection.call("Reset", pb.ResetRequest(env_id=reply.env_id), reply.env_id)
        remote_resets.append(time.perf_counter() - started)
        connection.call("Close", pb.EnvRef(env_id=reply.env_id), reply.env_id)
        started = time.perf_counter()
        local.reset(seed=0)
        local_resets.append(time.perf_counter() - started)
    row(table, "CreateEnv from the warm pool p50", ms(percentile(creates, 50)), f"p99 {ms(percentile(creates, 99))}")
    base = percentile(local_resets, 50)
    row(table, "reset p50, in-process", ms(base))
    p50 = percentile(remote_resets, 50)
    row(table, "reset p50, through the server", ms(p50), f"x{p50 / base:.2f}")
    connection.close()


def bench_scaling(table: list, counts: list[int], steps: int) -> None:
    print("== aggregate steps/s with N real desktops (settle off)")
    most = max(counts)
    with EnvServer(backend="local", max_envs=most, warm=most, min_free_memory_mb=512) as server:
        server.pool.wait_ready(most, timeout=60 + 20 * most)
        desktops = [server.pool._ready[i] for i in range(most)]
        pss = sum(session_pss_mib(backend.start()) for backend in desktops) / most
        row(table, "memory per idle desktop (PSS)", f"{pss:.0f} MiB", "Xvfb + openbox + dbus + guest")
        for label, observation in (("default observation", None), ("screenshot only", ["screenshot"])):
            rates = {}
            for count in counts:
                options = {"settle_timeout": 0, "max_steps": 10_000}
                if observation:
                    options["observation"] = observation
                vec = make_vec(TASK, count, servers=[(server.address, server.token)], **options)
                vec.reset(seed=0)
                vec.step([ACTION] * count)  # warm up
                started = time.perf_counter()
                for _ in tqdm(range(steps), desc=f"{count} desktops, {label}", leave=False):
                    vec.step([ACTION] * count)
                rates[count] = count * steps / (time.perf_counter() - started)
                if count == most:
                    with_apps = sum(session_pss_mib(backend.start()) for backend in desktops) / most
                vec.close()
            for count in counts:
                ratio = rates[count] / rates[counts[0]]
                row(table, f"steps/s, {count} desktops, {label}", f"{rates[count]:.1f}", f"x{ratio:.2f} of {counts[0]}")
        row(table, "memory per desktop with the terminal task open", f"{with_apps:.0f} MiB", "PSS")


async def _loadtest_sessions(address: str, token: str, sessions: int, steps: int, concurrency: int) -> dict:
    pool = EnvPool([(address, token)], heartbeat=False, observation=["instruction", "last_action_error"])
    gate = asyncio.Semaphore(concurrency)
    times: dict[str, list[float]] = {"create": [], "reset": [], "step": [], "close": []}
    errors: list[str] = []
    progress = tqdm(total=sessions * (3 + steps), desc=f"{sessions} load-test sessions")

    async def timed(kind: str, call) -> object:
        async with gate:
            started = time.perf_counter()
            try:
                return await call
            except Exception as error:  # noqa: BLE001 - counted, the run goes on
                errors.append(f"{kind}: {error}")
                return None
            finally:
                times[kind].append(time.perf_counter() - started)
                progress.update()

    created = await asyncio.gather(*(timed("create", pool.create(TASK)) for _ in range(sessions)))
    env_ids = [env_id for env_id in created if env_id]
    await asyncio.gather(*(timed("reset", pool.reset(env_id, seed=i)) for i, env_id in enumerate(env_ids)))
    for _ in range(steps):
        await asyncio.gather(*(timed("step", pool.step(env_id, ACTION)) for env_id in env_ids))
    idle_rss = (await pool.stats())[address]["node"]["server_rss_mb"]
    await asyncio.gather(*(timed("close", pool.close(env_id)) for env_id in env_ids))
    await pool.aclose()
    progress.close()
    return {"times": times, "errors": errors, "rss_with_sessions_mb": idle_rss, "sessions": len(env_ids)}


def bench_loadtest(table: list, sessions: int, steps: int) -> None:
    print(f"== {sessions} sessions on the load-test backend (a stand-in desktop; measures the server only)")
    proc = subprocess.Popen(
        [
            CLI,
            "serve",
            "--address",
            "127.0.0.1:0",
            "--backend",
            "loadtest",
            "--max-envs",
            str(sessions),
            "--warm",
            "0",
            "--lease-ttl",
            "600",
            "--min-free-memory-mb",
            "256",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        ready, _, _ = select.select([proc.stdout], [], [], 120)
        if not ready:
            raise TimeoutError("the load-test server printed no address within 120 s")
        info = json.loads(proc.stdout.readline())
        EnvConnection(info["address"], info["token"]).health(timeout=30)
        base_rss = rss_mb(proc.pid)
        result = asyncio.run(_loadtest_sessions(info["address"], info["token"], sessions, steps, concurrency=64))
    finally:
        proc.terminate()
        proc.wait(timeout=120)
    for kind, values in result["times"].items():
        row(table, f"load test {kind} p50 / p99", f"{ms(percentile(values, 50))}", f"p99 {ms(percentile(values, 99))}")
    per_session = (result["rss_with_sessions_mb"] - base_rss) * 1024 / max(1, result["sessions"])
    row(table, "server RSS per idle session", f"{per_session:.0f} KiB", f"{base_rss:.0f} MiB empty server")
    row(table, "load test errors", str(len(result["errors"])), "; ".join(result["errors"][:3]))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--scale", default="1,4,8,16", help="desktop counts for the scaling rows")
    parser.add_argument("--sessions", type=int, default=1000)
    parser.add_argument("--skip", default="", help="comma list of parts to skip: overhead,scaling,loadtest")
    args = parser.parse_args()
    skip = set(filter(None, args.skip.split(",")))
    print(f"desktop-gym serve benchmark ({os.cpu_count()} cores, load {os.getloadavg()[0]:.1f})")
    table: list = []
    if "overhead" not in skip:
        bench_overhead(table, args.steps)
        bench_transport(table, args.steps)
    if "scaling" not in skip:
        bench_scaling(table, [int(n) for n in args.scale.split(",")], max(5, args.steps // 4))
    if "loadtest" not in skip:
        bench_loadtest(table, args.sessions, steps=5)
    print("\n| measure | value | note |\n|---|---:|---|")
    for name, value, note in table:
        print(f"| {name} | {value} | {note} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
