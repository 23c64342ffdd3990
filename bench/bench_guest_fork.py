"""A local session's start: guest forked from the zygote, guest started as its own process, and gRPC's own backoff.

Run: ``.venv/bin/python bench/bench_guest_fork.py [--rounds 6] [--json FILE]``. Each round starts
and closes one ``LocalBackend`` (Xvfb, dbus, openbox, the guest; no app) per arm, the arms
rotating which goes first, and times ``start()`` until the guest answers, and the guest's own
part: from asking for it to its first answer. The third arm is the second with the readiness
client on gRPC's default reconnect backoff (``backends.base.READINESS_BACKOFF_MS = None``), as
before the backoff was set. The zygote is started once per host process, by a
first forked start before the rounds (printed apart).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

from result_file import write_result_file

from desktop_gym.backends import base
from desktop_gym.backends.local import LocalBackend

BACKOFF_MS = base.READINESS_BACKOFF_MS

MAX_ROUNDS = 30
ARMS = ("forked", "own process", "own process, gRPC backoff")


def start_once(arm: str) -> tuple[float, float]:
    """Seconds of ``start()`` and of the guest's part of it, for one fresh session of ``arm``."""
    backend = LocalBackend(width=800, height=600, fork_guest=arm == "forked")
    base.READINESS_BACKOFF_MS = None if arm.endswith("backoff") else BACKOFF_MS
    spawn, ready = backend._spawn_guest, backend.wait_for_guest  # noqa: SLF001 - timing the guest's part
    marks: dict[str, float] = {}

    def timed_spawn(*args, **kwargs):
        marks["spawn"] = time.perf_counter()
        return spawn(*args, **kwargs)

    def timed_ready(*args, **kwargs):
        result = ready(*args, **kwargs)
        marks["ready"] = time.perf_counter()
        return result

    backend._spawn_guest, backend.wait_for_guest = timed_spawn, timed_ready  # noqa: SLF001
    began = time.perf_counter()
    try:
        backend.start()
        return time.perf_counter() - began, marks["ready"] - marks["spawn"]
    finally:
        backend.close()


def _p50(values: list[float]) -> str:
    return f"{statistics.median(values) * 1000:.0f} ms ({min(values) * 1000:.0f}-{max(values) * 1000:.0f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=6, help=f"rounds per arm (max {MAX_ROUNDS})")
    parser.add_argument("--json", type=Path, help="also write a result file (bench/results/log format)")
    args = parser.parse_args()
    if not 1 <= args.rounds <= MAX_ROUNDS:
        parser.error(f"--rounds must be 1..{MAX_ROUNDS}, got {args.rounds}")
    load_before = os.getloadavg()[0]
    first, _ = start_once("forked")  # starts this process's zygote: not in the rows
    starts: dict[str, list[float]] = {arm: [] for arm in ARMS}
    guest: dict[str, list[float]] = {arm: [] for arm in ARMS}
    for index in range(args.rounds):
        for arm in ARMS[index % 3 :] + ARMS[: index % 3]:
            total, part = start_once(arm)
            starts[arm].append(total)
            guest[arm].append(part)
    load = f"load average {load_before:.1f} before, {os.getloadavg()[0]:.1f} after"
    rows = [[what, *(_p50(values[arm]) for arm in ARMS)] for what, values in (("start()", starts), ("guest", guest))]
    for row, values in zip(rows, (starts, guest), strict=True):
        medians = [statistics.median(values[arm]) for arm in ARMS]
        row += [f"x{medians[0] / medians[1]:.2f}", f"x{medians[1] / medians[2]:.2f}"]
    print(f"local session start, {args.rounds} rounds per arm ({os.cpu_count()} cores, {load})")
    print("  " + " | ".join([f"{'':<8}", *ARMS, "forked/own", "own/gRPC backoff"]))
    for row in rows:
        print("  " + " | ".join([f"{row[0]:<8}", *row[1:]]))
    print(f"  the first forked start, which started the zygote: {first * 1000:.0f} ms")
    if args.json is not None:
        columns = ["what", *(f"{arm} p50 (min-max)" for arm in ARMS), "forked/own", "own/gRPC backoff"]
        write_result_file(
            args.json,
            __file__,
            "A local session's start: guest forked from the zygote against a guest of its own",
            f".venv/bin/python bench/bench_guest_fork.py --rounds {args.rounds}",
            load,
            [
                f"{args.rounds} rounds per arm, the arms rotating which goes first; p50 (min-max).",
                "gRPC backoff: the readiness client on gRPC's default reconnect backoff (~1 s after a first "
                "attempt made before the guest's socket existed), as before this change.",
                "start(): LocalBackend.start() of a fresh session (Xvfb, dbus, openbox, the guest; no app) until "
                "the guest answers. guest: from asking for the guest to its first answer.",
                f"The first forked start, which started the zygote (not in the rows): {first * 1000:.0f} ms.",
            ],
            [{"columns": columns, "rows": rows}],
        )


if __name__ == "__main__":
    main()
