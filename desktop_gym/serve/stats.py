"""Counters of an env server and figures of its node (CPU, memory), for ``Stats`` and dashboards."""

from __future__ import annotations

import os
import threading
import time
from collections import Counter, deque
from typing import Any

RATE_WINDOW_S = 10.0  # steps/s is measured over this window
LATENCY_SAMPLES = 1000  # reset latencies kept for the percentiles


class ServerCounters:
    """Thread-safe counters: steps, resets, creates, crashes, recoveries, success per task."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.counts: Counter[str] = Counter()
        self._step_times: deque[float] = deque(maxlen=100_000)
        self._reset_seconds: deque[float] = deque(maxlen=LATENCY_SAMPLES)
        self._episodes: dict[str, list[int]] = {}  # task -> [episodes, successes]

    def add(self, name: str, amount: int = 1) -> None:
        """Add ``amount`` to counter ``name``."""
        with self._lock:
            self.counts[name] += amount

    def step(self) -> None:
        """Count one step (for the total and for steps/s)."""
        with self._lock:
            self.counts["steps"] += 1
            self._step_times.append(time.monotonic())

    def reset(self, seconds: float) -> None:
        """Count one reset that took ``seconds``."""
        with self._lock:
            self.counts["resets"] += 1
            self._reset_seconds.append(seconds)

    def episode(self, task_id: str, success: bool) -> None:
        """Count one finished episode of ``task_id``."""
        with self._lock:
            tally = self._episodes.setdefault(task_id, [0, 0])
            tally[0] += 1
            tally[1] += int(success)

    def snapshot(self) -> dict[str, Any]:
        """Counters, steps/s over the last window, reset latency p50/p99 and success per task."""
        with self._lock:
            now = time.monotonic()
            while self._step_times and self._step_times[0] < now - RATE_WINDOW_S:
                self._step_times.popleft()
            latencies = sorted(self._reset_seconds)
            return {
                "counters": dict(self.counts),
                "steps_per_s": len(self._step_times) / RATE_WINDOW_S,
                "reset_latency_s": {
                    "p50": _percentile(latencies, 0.5),
                    "p99": _percentile(latencies, 0.99),
                    "samples": len(latencies),
                },
                "success_per_task": {
                    task: {"episodes": n, "successes": ok, "rate": ok / n} for task, (n, ok) in self._episodes.items()
                },
            }


def _percentile(sorted_values: list[float], q: float) -> float | None:
    if not sorted_values:
        return None
    return sorted_values[min(len(sorted_values) - 1, int(q * len(sorted_values)))]


class NodeProbe:
    """CPU use (from /proc/stat deltas between calls) and memory of this node and process."""

    def __init__(self) -> None:
        self._last = _cpu_times()

    def snapshot(self) -> dict[str, Any]:
        """``{"cpu_percent", "cpus", "load_1m", "mem_total_mb", "mem_available_mb", "server_rss_mb"}``."""
        now = _cpu_times()
        busy = (now[0] - self._last[0]) / max(1, now[1] - self._last[1])
        self._last = now
        memory = _meminfo()
        return {
            "cpu_percent": round(100.0 * busy, 1),
            "cpus": os.cpu_count(),
            "load_1m": os.getloadavg()[0],
            "mem_total_mb": memory.get("MemTotal", 0) / 1024,
            "mem_available_mb": memory.get("MemAvailable", 0) / 1024,
            "server_rss_mb": rss_mb(),
        }


def _cpu_times() -> tuple[int, int]:
    """``(busy, total)`` jiffies of all CPUs."""
    with open("/proc/stat") as stat:
        fields = [int(value) for value in stat.readline().split()[1:]]
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
    return sum(fields) - idle, sum(fields)


def _meminfo() -> dict[str, int]:
    values = {}
    with open("/proc/meminfo") as meminfo:
        for line in meminfo:
            name, _, rest = line.partition(":")
            values[name] = int(rest.split()[0])
    return values


def rss_mb(pid: int | str = "self") -> float:
    """Resident memory of a process in MiB (VmRSS)."""
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0
