"""The starter tasks' API oracles solve them through the real env, in fewer steps than the GUI ones."""

from __future__ import annotations

import time

import pytest

from desktop_gym import DesktopEnv
from desktop_gym.env import SAVE_GRACE_S
from desktop_gym.tasks import get_task, list_tasks

from ..support.shared_env import env_on_session_desktop

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def env(desktop, _session_guest):
    observation = ("focused_app", "api", "last_action_error")
    yield from env_on_session_desktop(desktop, _session_guest, observation=observation, settle_timeout=0.5)


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
    gui_steps, gui_info, _ = play(env, task_id, "gui_oracle")
    assert gui_info["success"], gui_info.get("verifier")
    assert api_steps < gui_steps


def test_a_save_in_flight_is_awaited_but_an_unsaved_document_fails_quickly(env):
    # ctrl+s then done at once: LibreOffice writes the file up to seconds later; the env waits for it.
    observation, info = env.reset(seed=4, options={"task_id": "starter.calc_fill_totals"})
    rows = info["params"]["rows"]
    formulas = [[f"=B{row}+C{row}"] for row in range(2, rows + 2)]
    env.step(f"CalcTools.set_range_values(start_cell='D2', values={formulas!r})")
    env.step('hotkey(keys=["ctrl", "s"])')
    *_, terminated, _, step_info = env.step("exit(success=True)")
    assert terminated and step_info["success"], step_info["verifier"]
    # Never saved: the verifier reads the old file after a bounded wait.
    env.reset(seed=5, options={"task_id": "starter.calc_fill_totals"})
    env.step("CalcTools.set_cell_value(cell='D2', value=1)")
    started = time.monotonic()
    *_, step_info = env.step("exit(success=True)")
    assert not step_info["success"]
    assert time.monotonic() - started < SAVE_GRACE_S + 3


@pytest.mark.parametrize("task_id", list_tasks("starter"))
def test_api_oracle_in_api_mode(env, task_id):
    api_only = DesktopEnv(backend=env.backend, action_mode="api", observation=("last_action_error",))
    try:
        _, info, errors = play(api_only, task_id, "api_oracle", seed=1)
        assert errors == [] and info["success"], (errors, info.get("verifier"))
    finally:
        api_only.close()
