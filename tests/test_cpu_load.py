"""The load harness: bounded busy processes that spin while the block runs and are gone after it."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from desktop_gym.cpu_load import MAX_PROCESSES, MAX_SECONDS
from desktop_gym.guest.proc_table import pid_running, stat_fields
from desktop_gym.testing import cpu_load


def cpu_seconds(pid: int) -> float:
    fields = stat_fields(pid)
    assert fields is not None, f"process {pid} is gone"
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def test_the_busy_processes_spin_inside_the_block_and_are_killed_on_exit() -> None:
    with cpu_load(processes=3, seconds=60) as load:
        assert len(load.pids) == 3 and load.running() == 3
        assert all(cpu_seconds(pid) > 0 for pid in load.pids)
        assert load.load_average > 0
    assert not any(pid_running(pid) for pid in load.pids)


def test_the_processes_die_when_the_block_raises() -> None:
    with pytest.raises(RuntimeError, match="inside"), cpu_load(processes=2, seconds=60) as load:
        raise RuntimeError("inside the block")
    assert not any(pid_running(pid) for pid in load.pids)


def test_a_busy_process_stops_on_its_own_at_its_time_cap() -> None:
    with cpu_load(processes=1, seconds=0.5) as load:
        deadline = time.monotonic() + 10
        while load.running() and time.monotonic() < deadline:
            time.sleep(0.05)  # polling interval of a condition wait
        assert load.running() == 0


@pytest.mark.parametrize(
    ("processes", "seconds", "message"),
    [
        (0, 1, "positive"),
        (MAX_PROCESSES + 1, 1, "cap"),
        (True, 1, "positive"),
        (1, 0, "seconds"),
        (1, MAX_SECONDS + 1, "seconds"),
    ],
)
def test_counts_and_durations_out_of_range_are_refused(processes, seconds, message) -> None:
    with pytest.raises(ValueError, match=message), cpu_load(processes=processes, seconds=seconds):
        pass


def test_a_process_in_a_session_of_its_own_gets_its_share_of_the_load() -> None:
    """A desktop's processes run in sessions of their own; the load must reach them too.

    With the kernel's autogroup scheduling (on in Debian), CPU time is shared between sessions
    first: busy processes in the test's session took one core between them and left a desktop in
    another session a whole core (a Calc reset took 2.2 s with or without 20 of them). Each busy
    process now runs in its own session, as another desktop would.
    """
    spin = "import time\nend = time.monotonic() + 30\nwhile time.monotonic() < end:\n    pass\n"
    probe = subprocess.Popen([sys.executable, "-S", "-c", spin], start_new_session=True)
    try:
        with cpu_load(processes=8, seconds=60):
            start_cpu, start_wall = cpu_seconds(probe.pid), time.monotonic()
            time.sleep(2.0)  # the span over which the probe's CPU share is measured
            share = (cpu_seconds(probe.pid) - start_cpu) / (time.monotonic() - start_wall)
    finally:
        probe.kill()
        probe.wait()
    # 8 busy sessions and the probe's on 2 cores: ~0.22 of a core; sharing one session they left it ~1.
    assert share < 0.6, f"the probe in its own session still got {share:.2f} of a core under load"
