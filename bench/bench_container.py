"""Container-backend benchmark: container start, reset per mode side by side, memory per container.

Run: ``.venv/bin/python bench/bench_container.py [--resets 10] [--starts 5]`` (root, podman; the
image is built on first use). One table: container start until the guest answers; reset p50 for
``restart_apps`` and ``recreate`` (``reset_desktop()`` + Calc window + UNO ready: what an episode
of a Calc task waits for); the env's own reset on the container; PSS of the container's
processes (the local benchmark's measure) and the cgroup's memory counters.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from memory import process_pss_kib  # noqa: E402

from desktop_gym import DesktopEnv  # noqa: E402
from desktop_gym.backends import podman_service  # noqa: E402
from desktop_gym.backends.container import ContainerBackend  # noqa: E402
from desktop_gym.backends.local import LocalBackend  # noqa: E402
from desktop_gym.guest.client import GuestClient  # noqa: E402
from desktop_gym.images import build_image  # noqa: E402

CALC_TASK = "starter.calc_fill_totals"
CGROUP_ROOTS = (Path("/sys/fs/cgroup/memory"), Path("/sys/fs/cgroup"))


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))]


def row(name: str, value: str, note: str = "") -> None:
    print(f"  {name:<50} {value:>12}  {note}", flush=True)


def cgroup_dir(container_id: str) -> Path | None:
    """The container's memory cgroup (cgroup v1 memory controller, or v2), found by its id."""
    for root in CGROUP_ROOTS:
        for pattern in (f"*/*{container_id}*", f"*/*/*{container_id}*", f"*{container_id}*"):
            for candidate in root.glob(pattern):
                if (candidate / "cgroup.procs").exists() and not candidate.name.endswith("conmon"):
                    return candidate
    return None


def container_memory(container_id: str) -> dict[str, float]:
    """PSS of the container's processes and its cgroup counters, in MiB."""
    folder = cgroup_dir(container_id)
    if folder is None:
        return {}
    pids = [int(p) for p in (folder / "cgroup.procs").read_text().split()]
    result = {"pss": sum(process_pss_kib(pid) for pid in pids) / 1024, "processes": len(pids)}
    for name in ("memory.current", "memory.usage_in_bytes"):
        if (folder / name).exists():
            result["cgroup"] = int((folder / name).read_text()) / 2**20
    stat_file = folder / "memory.stat"
    if stat_file.exists():
        stat = dict(line.split() for line in stat_file.read_text().splitlines())
        anon = stat.get("total_rss", stat.get("anon", "0"))
        result["anon"] = int(anon) / 2**20
    return result


def launch_calc(handle) -> GuestClient:
    client = GuestClient(handle.address, token=handle.token, timeout=60.0)
    client.launch_app("calc", timeout=60)
    return client


def bench_starts(image: str, url: str, starts: int) -> None:
    start_s, calc_s = [], []
    for _ in range(starts):
        backend = ContainerBackend(image=image, base_url=url)
        try:
            began = time.perf_counter()
            handle = backend.start()
            start_s.append(time.perf_counter() - began)
            launch_calc(handle).close()
            calc_s.append(time.perf_counter() - began)
        finally:
            backend.close()
    row("container start -> guest answers p50", f"{percentile(start_s, 50) * 1000:.0f} ms", f"n={starts}")
    row("container start -> Calc window + UNO p50", f"{percentile(calc_s, 50) * 1000:.0f} ms", "")


def bench_local_baseline(resets: int) -> float:
    """The same reset on the local backend (kill apps, wipe home, Calc): the like-for-like baseline."""
    backend = LocalBackend()
    try:
        client = launch_calc(backend.start())
        seconds = []
        for _ in range(resets):
            began = time.perf_counter()
            client.clear_session()
            client.launch_app("calc", timeout=60)
            seconds.append(time.perf_counter() - began)
        client.close()
    finally:
        backend.close()
    row(
        "reset (local backend) + Calc ready p50", f"{percentile(seconds, 50) * 1000:.0f} ms", "same steps, no container"
    )
    return percentile(seconds, 50)


def bench_reset_modes(image: str, url: str, resets: int) -> dict[str, float]:
    p50 = {"local": bench_local_baseline(resets)}
    for mode in ("restart_apps", "recreate"):
        backend = ContainerBackend(image=image, base_url=url, reset_mode=mode)
        try:
            launch_calc(backend.start()).close()
            seconds = []
            for _ in range(resets):
                began = time.perf_counter()
                launch_calc(backend.reset_desktop()).close()
                seconds.append(time.perf_counter() - began)
            p50[mode] = percentile(seconds, 50)
            note = "target < 1000 ms" if mode == "restart_apps" else f"p95 {percentile(seconds, 95) * 1000:.0f} ms"
            row(f"reset ({mode}) + Calc ready p50", f"{p50[mode] * 1000:.0f} ms", note)
        finally:
            backend.close()
    row("restart_apps / local", f"{p50['restart_apps'] / p50['local']:.2f}x", "container overhead on a reset")
    row("recreate / restart_apps", f"{p50['recreate'] / p50['restart_apps']:.1f}x", "slower")
    return p50


def bench_env_and_memory(image: str, url: str, resets: int) -> None:
    backend = ContainerBackend(image=image, base_url=url)
    env = DesktopEnv(task_id=CALC_TASK, backend=backend, observation=("screenshot",), settle_timeout=0)
    try:
        env.reset(seed=0)
        seconds = [env.reset(seed=seed)[1]["reset_seconds"] for seed in range(1, resets + 1)]
        row("env.reset Calc task on a container p50", f"{percentile(seconds, 50) * 1000:.0f} ms", "bench_local: 946")
        memory = container_memory(backend.start().info["container_id"])
        if memory:
            row("PSS per container env (desktop + guest + Calc)", f"{memory['pss']:.0f} MiB", "local: 312 MiB")
            row("cgroup memory usage (incl. page cache)", f"{memory.get('cgroup', 0):.0f} MiB", "")
            row("cgroup anonymous memory", f"{memory.get('anon', 0):.0f} MiB", f"{memory['processes']} processes")
        else:
            row("memory per container", "n/a", "cgroup not found")
        shots = []
        for _ in range(50):
            began = time.perf_counter()
            env.unwrapped.client.screenshot()
            shots.append(time.perf_counter() - began)
        row("screenshot raw via guest (bytes over socket) p50", f"{statistics.median(shots) * 1000:.2f} ms", "")
    finally:
        env.close()
        backend.close()
    shared = ContainerBackend(image=image, base_url=url, share_shm=True)
    try:
        client = GuestClient(shared.start().address, token=shared.start().token)
        client.launch_app("terminal")
        shots = []
        for _ in range(50):
            began = time.perf_counter()
            client.screenshot()
            shots.append(time.perf_counter() - began)
        row("screenshot raw via guest, share_shm=True p50", f"{statistics.median(shots) * 1000:.2f} ms", "/dev/shm")
        client.close()
    finally:
        shared.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--resets", type=int, default=10)
    parser.add_argument("--starts", type=int, default=5)
    args = parser.parse_args()
    url = podman_service.start_podman_service()
    image = build_image(engine="podman", offline=True)
    load = os.getloadavg()[0]
    print(f"desktop-gym container backend benchmark ({os.cpu_count()} cores, load {load:.1f}, {image})")
    bench_starts(image, url, args.starts)
    bench_reset_modes(image, url, args.resets)
    bench_env_and_memory(image, url, args.resets)


if __name__ == "__main__":
    main()
