"""DesktopEnv on a loaded CPU: gymnasium's check_env passes, and a step's screenshot shows its effect (issue 32)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from gymnasium.utils.env_checker import check_env

from desktop_gym import DesktopEnv
from desktop_gym.settle import wait_until_stable
from desktop_gym.testing import cpu_load, screen_difference

from ..support.shared_env import env_on_session_desktop

pytestmark = [pytest.mark.slow, pytest.mark.stage_load]

TASK = "starter.calc_fill_totals"
STEPS = 4  # typed steps compared with the settled screen (each on a fresh reset)
FINAL_QUIET_S = 1.0  # the screen after a step counts as final once unchanged this long


@pytest.fixture(scope="module")
def env(desktop, _session_guest) -> Iterator[DesktopEnv]:
    yield from env_on_session_desktop(
        desktop, _session_guest, task_id=TASK, observation=("screenshot", "a11y_tree", "app_info", "focused_app")
    )


@pytest.mark.timeout(300)
def test_check_env_passes_under_load(env: DesktopEnv) -> None:
    env.reset(seed=0)  # the office's first start on this desktop; check_env's resets follow it
    with cpu_load(seconds=240):
        check_env(env, skip_render_check=True)


@pytest.mark.timeout(300)
def test_a_steps_screenshot_shows_what_the_action_typed_under_load(env: DesktopEnv) -> None:
    env.reset(seed=0)
    stale = []
    with cpu_load(seconds=240) as load:
        for index in range(STEPS):
            before, _ = env.reset(seed=index)
            observation, *_ = env.step(f"type(text='{4711 + index}\\n')")
            assert screen_difference(before["screenshot"], observation["screenshot"]).pixels > 0
            assert wait_until_stable(env.client.screenshot, timeout=20.0, quiet=FINAL_QUIET_S)
            final = screen_difference(observation["screenshot"], env.client.screenshot())
            if not final.within_caret_mask:
                stale.append(f"step {index}: {final}")
            load.sample()
    assert not stale, (  # the step returned before its effect was drawn
        f"{len(stale)} of {STEPS} step screenshots lack the later screen (load {load.load_average:.1f}): {stale}"
    )
