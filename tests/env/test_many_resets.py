"""100 consecutive Calc resets with no hang (every wait is bounded, so a hang fails the timeout)."""

from __future__ import annotations

import pytest

from desktop_gym import DesktopEnv

pytestmark = pytest.mark.slow


@pytest.mark.timeout(900)
def test_hundred_consecutive_calc_resets():
    env = DesktopEnv(task_id="starter.calc_fill_totals", observation=("screenshot", "focused_app"), settle_timeout=0)
    try:
        seconds = []
        for seed in range(100):
            observation, info = env.reset(seed=seed)
            seconds.append(info["reset_seconds"])
            assert observation["screenshot"].any()
        live = [app for app in env.client.apps() if app.alive]
        assert len(live) == 1, live  # earlier episodes' apps are all gone
        seconds.sort()
        print(f"reset p50={seconds[50]:.3f}s p95={seconds[95]:.3f}s max={seconds[-1]:.3f}s")
    finally:
        env.close()
