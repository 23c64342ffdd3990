"""A pool of pre-started desktops, with admission control by a maximum and by free memory.

``acquire`` hands out a warm desktop at once (a background thread keeps ``warm`` of them started)
or starts one on the spot when capacity allows; ``release`` wipes the desktop (apps killed, home
emptied) and puts it back, or closes it when it died.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any

from desktop_gym.errors import CapacityError

from ..backends import Backend, make_backend

log = logging.getLogger(__name__)

REFILL_RETRY_S = 5.0  # after a failed start, wait this long before the refill thread tries again
START_WAIT_S = 120.0  # how long acquire waits for a desktop the refill thread is starting


def available_memory_mb() -> float:
    """``MemAvailable`` of this machine, in MiB (from /proc/meminfo)."""
    with open("/proc/meminfo") as meminfo:
        for line in meminfo:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) / 1024
    return float("inf")


class DesktopPool:
    """Started desktops (``Backend`` instances) ready to host an env.

    Args:
        backend: backend name (``"local"``, ``"container"``, ``"loadtest"``) for ``make_backend``.
        backend_kwargs: keyword arguments for each backend.
        max_desktops: the most desktops alive at once (in use + warm + starting).
        warm: how many started, unused desktops to keep ready.
        memory_per_desktop_mb: what one desktop is expected to take; a new one is started only
            while ``MemAvailable`` minus this stays above ``min_free_memory_mb``.
        min_free_memory_mb: memory to leave free on the node.
        memory_probe: returns available MiB (tests pass their own).
    """

    def __init__(
        self,
        backend: str = "local",
        backend_kwargs: dict[str, Any] | None = None,
        *,
        max_desktops: int = 8,
        warm: int = 1,
        memory_per_desktop_mb: float = 300.0,
        min_free_memory_mb: float = 1024.0,
        memory_probe: Callable[[], float] = available_memory_mb,
    ) -> None:
        if max_desktops < 1:
            raise ValueError(f"max_desktops must be at least 1, got {max_desktops}")
        if not 0 <= warm <= max_desktops:
            raise ValueError(f"warm must be between 0 and max_desktops ({max_desktops}), got {warm}")
        self.backend_name = backend
        self.backend_kwargs = dict(backend_kwargs or {})
        self.max_desktops = max_desktops
        self.warm = warm
        self.memory_per_desktop_mb = memory_per_desktop_mb
        self.min_free_memory_mb = min_free_memory_mb
        self._memory_probe = memory_probe
        self._ready: deque[Backend] = deque()
        self._in_use = 0
        self._starting = 0
        self._closed = False
        self._cond = threading.Condition()
        self.started_total = 0
        self.start_failures = 0
        self._refill_thread = threading.Thread(target=self._refill_loop, name="desktop-pool-refill", daemon=True)
        self._refill_thread.start()

    # ------------------------------------------------------------------ admission
    def _refusal(self) -> str | None:
        """Why one more desktop may not be started now (None when it may). Call with the lock held."""
        alive = self._in_use + len(self._ready) + self._starting
        if alive >= self.max_desktops:
            return f"all {self.max_desktops} desktops (max_envs) are in use"
        free = self._memory_probe()
        if free - self.memory_per_desktop_mb < self.min_free_memory_mb:
            return (
                f"only {free:.0f} MiB of memory available; one more desktop needs {self.memory_per_desktop_mb:.0f} MiB"
                f" and {self.min_free_memory_mb:.0f} MiB stay free"
            )
        return None

    def counts(self) -> dict[str, int]:
        """``{"ready", "in_use", "starting", "max"}``."""
        with self._cond:
            return {
                "ready": len(self._ready),
                "in_use": self._in_use,
                "starting": self._starting,
                "max": self.max_desktops,
            }

    # ------------------------------------------------------------------ hand out / take back
    def acquire(self) -> Backend:
        """A started desktop: a warm one, else one started now.

        Raises:
            CapacityError: the maximum or free memory is reached (the message says which).
            RuntimeError: the pool is closed.
        """
        deadline = time.monotonic() + START_WAIT_S
        with self._cond:
            while True:
                if self._closed:
                    raise RuntimeError("the desktop pool is closed")
                while self._ready:
                    backend = self._ready.popleft()
                    if backend.is_alive():
                        self._in_use += 1
                        self._cond.notify_all()  # the refill thread may start a replacement
                        return backend
                    _close_quietly(backend)
                refusal = self._refusal()
                if refusal is None:
                    self._starting += 1
                    break
                if self._starting == 0 or time.monotonic() > deadline:
                    raise CapacityError(refusal)
                self._cond.wait(timeout=0.5)  # a warm desktop is on its way: take that one
        try:
            backend = self._start_one()
        except BaseException:
            with self._cond:
                self._starting -= 1
            raise
        with self._cond:
            self._starting -= 1
            self._in_use += 1
        return backend

    def release(self, backend: Backend) -> None:
        """Take a desktop back: wipe it into the pool, or close it when it is dead or not needed."""
        keep = False
        if backend.is_alive():
            try:
                backend.wipe_session()
                keep = True
            except Exception as error:  # noqa: BLE001 - a desktop that cannot be wiped is not reused
                log.warning("closing a desktop that could not be wiped: %s", error)
        with self._cond:
            self._in_use -= 1
            if keep and not self._closed and len(self._ready) < self.warm:
                self._ready.append(backend)
                self._cond.notify_all()
                return
            self._cond.notify_all()
        _close_quietly(backend)

    def forget(self, backend: Backend) -> None:
        """Close an in-use desktop without reusing it (its env broke beyond a wipe)."""
        with self._cond:
            self._in_use -= 1
            self._cond.notify_all()
        _close_quietly(backend)

    # ------------------------------------------------------------------ warm spares
    def _start_one(self) -> Backend:
        backend = make_backend(self.backend_name, **self.backend_kwargs)
        try:
            backend.start()
        except BaseException:
            self.start_failures += 1
            _close_quietly(backend)
            raise
        self.started_total += 1
        return backend

    def _refill_loop(self) -> None:
        while True:
            with self._cond:
                while not self._closed and (len(self._ready) + self._starting >= self.warm or self._refusal()):
                    self._cond.wait(timeout=1.0)
                if self._closed:
                    return
                self._starting += 1
            try:
                backend = self._start_one()
            except Exception as error:  # noqa: BLE001 - keep the server up; retry later
                log.warning("could not pre-start a desktop: %s", error)
                with self._cond:
                    self._starting -= 1
                    self._cond.wait(timeout=REFILL_RETRY_S)
                continue
            with self._cond:
                self._starting -= 1
                if self._closed:
                    _close_quietly(backend)
                    return
                self._ready.append(backend)
                self._cond.notify_all()

    def wait_ready(self, count: int, timeout: float) -> None:
        """Block until ``count`` warm desktops are ready.

        Raises:
            TimeoutError: they were not ready within ``timeout`` (the message gives the counts).
        """
        deadline = time.monotonic() + timeout
        with self._cond:
            while len(self._ready) < count:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise TimeoutError(f"{len(self._ready)} of {count} warm desktops ready after {timeout:.0f}s")
                self._cond.wait(timeout=min(remaining, 0.5))

    def close(self) -> None:
        """Close every warm desktop and stop refilling (in-use ones are closed by their owners)."""
        with self._cond:
            self._closed = True
            ready, self._ready = list(self._ready), deque()
            self._cond.notify_all()
        for backend in ready:
            _close_quietly(backend)
        self._refill_thread.join(timeout=120)


def _close_quietly(backend: Backend) -> None:
    try:
        backend.close()
    except Exception as error:  # noqa: BLE001 - closing must go on for the others
        log.warning("closing a desktop failed: %s", error)
