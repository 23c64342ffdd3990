"""The starter tasks' API oracles solve them through the real env, in fewer steps than the GUI ones."""

from __future__ import annotations

import pytest

from desktop_gym import DesktopEnv
from desktop_gym.tasks import get_task, list_tasks

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def env():
    environment = DesktopEnv(observation=("focused_app", "api", "last_action_error"), settle_timeout=0.5)
    yield environment
    environment.close()


def play(env: DesktopEnv, task_id: str, which: str, seed: int = 0) -> tuple[int, dict, list[str]]:
    observation, info = env.reset(seed=seed, options={"task_id": task_id})
    task = get_task(task_id)
    policy = getattr(task, which)(info["params"])
    errors = []
    for steps in range(1, info["max_steps"] + 1):
        observation, _, terminated, truncated, step_info = env.step(policy(observation))
        if observation["last_action_error"]:
            errors.append(observation["last_action_error"])
        if terminated or truncated:
            return steps, step_info, errors
    raise AssertionError(f"{task_id}: the {which} did not end the episode")


@pytest.mark.parametrize("task_id", list_tasks("starter"))
def test_api_oracle_solves_in_fewer_steps(env, task_id):
    api_steps, api_info, api_errors = play(env, task_id, "api_oracle")
    assert api_errors == [] and api_info["success"], (api_errors, api_info.get("verifier"))
    # The GUI oracle's own success is the task's test (tests/env/test_env.py); here it must only end
    # the episode, to count its steps (under heavy load Calc sometimes misses its ctrl+s).
    gui_steps, gui_info, _ = play(env, task_id, "gui_oracle")
    assert "verifier" in gui_info
    assert api_steps < gui_steps


@pytest.mark.parametrize("task_id", list_tasks("starter"))
def test_api_oracle_in_api_mode(env, task_id):
    api_only = DesktopEnv(backend=env.backend, action_mode="api", observation=("last_action_error",))
    try:
        _, info, errors = play(api_only, task_id, "api_oracle", seed=1)
        assert errors == [] and info["success"], (errors, info.get("verifier"))
    finally:
        api_only.close()
