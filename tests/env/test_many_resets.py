"""Many consecutive Calc resets: no hang (every wait is bounded, so a hang fails the timeout) and no leak.

Thirty resets, not a hundred: a leak shows as growth between the tenth and the last reset, which the
process count below measures directly (a leaked process per reset adds 20), and a hundred cost 225 s
of a CI run (2.2 s a reset; forty cost 109 s on a slower machine).
"""

from __future__ import annotations

import pytest

from desktop_gym import DesktopEnv
from desktop_gym.backends.reaper import session_pids

pytestmark = pytest.mark.slow

RESETS = 30
BASELINE_AT = 10  # resets before the process count is taken (office's helpers have started by then)


@pytest.mark.timeout(600)
def test_many_consecutive_calc_resets_leave_no_app_or_process_behind():
    env = DesktopEnv(task_id="starter.calc_fill_totals", observation=("screenshot", "focused_app"), settle_timeout=0)
    try:
        seconds, processes = [], []
        for seed in range(RESETS):
            observation, info = env.reset(seed=seed)
            seconds.append(info["reset_seconds"])
            assert observation["screenshot"].any()
            if seed >= BASELINE_AT:
                processes.append(len(session_pids(env.backend.session_id)))
        live = [app for app in env.client.apps() if app.alive]
        assert len(live) == 1, live  # earlier episodes' apps are all gone
        # Each reset closes the previous office: the session's process count stays flat (a leaked
        # process per reset would add 20 here). A spare or helper coming and going moves it by a few.
        assert max(processes) - min(processes) <= 3, processes
        assert processes[-1] <= processes[0] + 2, processes
        seconds.sort()
        print(f"reset p50={seconds[RESETS // 2]:.3f}s max={seconds[-1]:.3f}s processes={processes[0]}..{processes[-1]}")
    finally:
        env.close()
