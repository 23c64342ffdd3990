"""A load harness: oversubscribe the CPU with bounded busy processes while a test runs.

RL runs many desktops per node, so a loaded node is the normal case; tests of readiness and
settling must hold there too. ``with cpu_load():`` starts busy processes (by default four per
core: load ~8-12 on a 2-core machine with the desktop's own work), and stops them on exit.

Each busy process runs in a session of its own, as another desktop's processes would. With the
kernel's autogroup scheduling (on in Debian) CPU time is shared between sessions first, so busy
processes sharing the test's session took one core between them and left a desktop (its own
sessions) a whole core: a Calc reset took 2.2 s with or without 20 of them, against 8-13 s with 8
in sessions of their own.

Every bound holds even if the test process dies: each busy process is capped in number
(:data:`MAX_PROCESSES`) and in time (it exits on its own after ``seconds``, at most
:data:`MAX_SECONDS`), asks the kernel to SIGKILL it when its parent dies (``PR_SET_PDEATHSIG``),
and on exit the harness SIGKILLs each one by its PID and reaps it.

Example::

    from desktop_gym.testing import cpu_load

    with cpu_load(processes=8, seconds=120) as load:
        env.reset(seed=123)
    print(load.load_average)  # 1-minute load average seen while it ran
"""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

MAX_PROCESSES = 32  # busy processes one harness may start
MAX_SECONDS = 900.0  # how long a busy process may live, whatever was asked
PROCESSES_PER_CORE = 4
START_TIMEOUT_S = 10.0  # how long the busy processes may take to start spinning
_PR_SET_PDEATHSIG = 1

# The busy loop: spin until its own deadline (the cap that holds if nobody kills it).
_BUSY_LOOP = "import time\nend = time.monotonic() + {seconds!r}\nwhile time.monotonic() < end:\n    pass\n"


@dataclass
class CpuLoad:
    """The running harness: the busy processes' PIDs and the load seen while it ran.

    Attributes:
        pids: PIDs of the busy processes (all killed and reaped once the ``with`` block ends).
        seconds: How long each busy process spins at most.
        load_average: The highest 1-minute load average sampled (at start, ``sample()`` and exit).
    """

    pids: list[int]
    seconds: float
    load_average: float = 0.0
    _procs: list[subprocess.Popen] = field(default_factory=list, repr=False)

    def sample(self) -> float:
        """Read the 1-minute load average now (kept if it is the highest yet); it."""
        current = os.getloadavg()[0]
        self.load_average = max(self.load_average, current)
        return current

    def running(self) -> int:
        """How many busy processes are still spinning."""
        return sum(proc.poll() is None for proc in self._procs)


def _die_with_parent() -> None:
    """In the child before exec: SIGKILL me when the process that started me dies (Linux)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):  # not Linux: the time cap and the kill by PID still hold
        pass


def _validated(processes: int | None, seconds: float) -> tuple[int, float]:
    if processes is None:
        processes = PROCESSES_PER_CORE * (os.cpu_count() or 1)
    if isinstance(processes, bool) or not isinstance(processes, int) or processes < 1:
        raise ValueError(f"cpu_load(processes=...) must be a positive int, got {processes!r}")
    if processes > MAX_PROCESSES:
        raise ValueError(f"cpu_load(processes={processes}) is over the cap of {MAX_PROCESSES}")
    if not isinstance(seconds, (int, float)) or not 0 < seconds <= MAX_SECONDS:
        raise ValueError(f"cpu_load(seconds=...) must be in (0, {MAX_SECONDS:.0f}], got {seconds!r}")
    return processes, float(seconds)


def _kill(procs: list[subprocess.Popen]) -> None:
    for proc in procs:
        if proc.poll() is None:
            try:
                os.kill(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
    for proc in procs:
        proc.wait(timeout=START_TIMEOUT_S)  # SIGKILL cannot be ignored: this reaps at once


@contextmanager
def cpu_load(processes: int | None = None, seconds: float = 300.0) -> Iterator[CpuLoad]:
    """Oversubscribe the CPU while the ``with`` block runs.

    Args:
        processes: Busy processes to start (default: four per core), at most :data:`MAX_PROCESSES`.
        seconds: Each one exits on its own after this long (at most :data:`MAX_SECONDS`), so the
            load never outlives a test by more than that even if nothing kills it.

    Yields:
        A :class:`CpuLoad` with the PIDs; they are SIGKILLed by PID and reaped on exit.

    Raises:
        ValueError: ``processes`` or ``seconds`` out of range.
    """
    count, seconds = _validated(processes, seconds)
    code = _BUSY_LOOP.format(seconds=seconds)
    procs: list[subprocess.Popen] = []
    try:
        for _ in range(count):
            procs.append(
                subprocess.Popen(
                    [sys.executable, "-S", "-c", code],
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                    preexec_fn=_die_with_parent,  # noqa: PLW1509 - only a prctl call, before exec
                    close_fds=True,
                    start_new_session=True,  # its own autogroup: see the module docstring
                )
            )
        load = CpuLoad(pids=[proc.pid for proc in procs], seconds=seconds, _procs=procs)
        _wait_spinning(procs)
        load.sample()
        yield load
        load.sample()
    finally:
        _kill(procs)


def _wait_spinning(procs: list[subprocess.Popen]) -> None:
    """Return once every busy process has used CPU time (it is past interpreter start-up)."""
    deadline = time.monotonic() + START_TIMEOUT_S
    ticks = os.sysconf("SC_CLK_TCK")
    for proc in procs:
        while True:
            try:
                with open(f"/proc/{proc.pid}/stat") as stat:
                    fields = stat.read().rsplit(")", 1)[1].split()
            except OSError:  # not Linux, or it died: nothing more to wait for
                break
            if (int(fields[11]) + int(fields[12])) / ticks > 0.05 or proc.poll() is not None:
                break
            if time.monotonic() > deadline:
                raise TimeoutError(f"busy process {proc.pid} did not start spinning within {START_TIMEOUT_S:.0f} s")
            time.sleep(0.02)  # polling interval of a condition wait
