"""Where an observation's time goes: seconds per part, reported in ``info["observation_seconds"]``.

An RL run spends its wall time where the environment is slow; the settle wait and the
accessibility tree usually dominate a step (see ``bench/bench_local.py``). The env times each part
of every observation with a :class:`PartTimer` so users can see which parts to switch off.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from typing import TypeVar

T = TypeVar("T")


class PartTimer:
    """Collects the seconds spent on each named part of one observation."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}

    @contextmanager
    def part(self, name: str) -> Iterator[None]:
        """Time the block and add its seconds to ``name``."""
        started = time.perf_counter()
        try:
            yield
        finally:
            self.add(name, time.perf_counter() - started)

    def add(self, name: str, seconds: float) -> None:
        """Add ``seconds`` to the part ``name``."""
        self.seconds[name] = self.seconds.get(name, 0.0) + seconds

    def timed(self, name: str, call: Callable[[], T]) -> Callable[[], T]:
        """``call`` wrapped so that its seconds go to ``name`` (for calls run on another thread)."""

        def run() -> T:
            with self.part(name):
                return call()

        return run

    def rounded(self) -> dict[str, float]:
        """The parts in seconds, rounded to 0.1 ms (what ``info`` carries)."""
        return {name: round(seconds, 4) for name, seconds in self.seconds.items()}


class Prefetcher:
    """One worker thread that fetches a slow observation part while the others are read.

    The accessibility tree (a walk over D-Bus in the guest) takes most of an observation; started
    first, it overlaps with the screenshot and the app summary. One worker: at most one part is
    in flight per env.
    """

    def __init__(self) -> None:
        self._pool: ThreadPoolExecutor | None = None

    def submit(self, call: Callable[[], T]) -> Future[T]:
        """Start ``call`` on the worker thread."""
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="desktop-gym-observe")
        return self._pool.submit(call)

    def close(self) -> None:
        """Stop the worker thread (waits for a part in flight)."""
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None


class SequentialFetcher(Prefetcher):
    """Reads the part in the caller's thread: today's path before prefetching, kept as a baseline."""

    def submit(self, call: Callable[[], T]) -> Future[T]:
        future: Future[T] = Future()
        try:
            future.set_result(call())
        except BaseException as error:  # noqa: BLE001 - handed back through the future, as the pool does
            future.set_exception(error)
        return future
