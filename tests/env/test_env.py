"""DesktopEnv end to end on the real local desktop: Gymnasium contract, oracles, errors, crashes."""

from __future__ import annotations

import os
import signal
import time

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import desktop_gym
from desktop_gym import DesktopEnv
from desktop_gym.tasks import get_task, list_tasks, null_policy

from ..support.shared_env import env_on_session_desktop

pytestmark = pytest.mark.slow

STARTER = list_tasks("starter")


@pytest.fixture(scope="module")
def env(desktop, _session_guest):
    yield from env_on_session_desktop(desktop, _session_guest, task_id="starter.terminal_write_file")


def run_episode(env: DesktopEnv, task_id: str, policy_for, seed: int = 0):
    observation, info = env.reset(seed=seed, options={"task_id": task_id})
    policy = policy_for(get_task(task_id), info["params"])
    while True:
        observation, reward, terminated, truncated, step_info = env.step(policy(observation))
        if terminated or truncated:
            return observation, reward, terminated, truncated, step_info


def test_check_env_passes(env):
    check_env(env.unwrapped, skip_render_check=True)


def test_reset_returns_observation_inside_space(env):
    observation, info = env.reset(seed=3, options={"task_id": "starter.calc_fill_totals"})
    assert env.observation_space.contains(observation)
    assert observation["screenshot"].shape == (720, 1280, 3)
    assert observation["focused_app"] == "calc"
    assert "sales.xlsx" in observation["a11y_tree"]
    assert info["task_id"] == "starter.calc_fill_totals"
    assert "column D" in observation["instruction"]


@pytest.mark.parametrize("task_id", STARTER)
def test_oracle_solves_and_null_agent_fails(env, task_id):
    *_, reward, terminated, truncated, info = run_episode(env, task_id, lambda task, params: task.oracle(params))
    assert terminated and not truncated
    assert info["success"], info["verifier"]
    assert reward == 1.0
    *_, reward, terminated, _, info = run_episode(env, task_id, lambda task, params: null_policy)
    assert terminated and not info["success"] and reward == 0.0


def test_malformed_action_reports_error_and_episode_continues(env):
    env.reset(seed=0, options={"task_id": "starter.terminal_write_file"})
    observation, reward, terminated, truncated, info = env.step("clik(coordinates=[1, 2])")
    assert "click" in observation["last_action_error"]
    assert not terminated and not truncated and reward == 0.0
    observation, *_ = env.step("hotkey(keys=['ctrl', 'nosuchkey'])")
    assert "nosuchkey" in observation["last_action_error"]
    observation, *_ = env.step("__import__('os').system('touch /tmp/pwned')")
    assert observation["last_action_error"]
    assert not os.path.exists("/tmp/pwned")
    observation, *_ = env.step("wait(seconds=0.01)")
    assert observation["last_action_error"] == ""


def test_same_seed_same_task(env):
    _, first = env.reset(seed=11, options={"task_id": "starter.calc_fill_totals"})
    _, second = env.reset(seed=11, options={"task_id": "starter.calc_fill_totals"})
    _, third = env.reset(seed=12, options={"task_id": "starter.calc_fill_totals"})
    assert first["params"] == second["params"]
    assert first["params"] != third["params"]


def test_step_budget_truncates_with_verdict(env):
    env.reset(seed=0, options={"task_id": "starter.terminal_write_file"})
    budget = get_task("starter.terminal_write_file").max_steps
    for _ in range(budget - 1):
        _, _, terminated, truncated, _ = env.step("wait(seconds=0)")
        assert not (terminated or truncated)
    _, reward, terminated, truncated, info = env.step("wait(seconds=0)")
    assert truncated and not terminated and reward == 0.0
    assert info["verifier"]["success"] is False


def test_focused_app_is_the_app_key_and_the_window_class_is_its_own_part(desktop):
    observation = ("focused_app", "focused_window_class")
    lean = DesktopEnv(observation=observation, action_mode="gui", settle_timeout=0, backend=desktop)
    try:
        observation, _ = lean.reset(seed=0, options={"task_id": "starter.calc_fill_totals"})
        assert observation == {"focused_app": "calc", "focused_window_class": "libreoffice-calc"}
        assert lean.observation_space.contains(observation)
    finally:
        lean.close()


def test_killed_app_truncates_and_next_reset_recovers(env):
    env.reset(seed=0, options={"task_id": "starter.calc_fill_totals"})
    for app in env.client.apps():
        os.killpg(app.pid, signal.SIGKILL)
    deadline = time.monotonic() + 10  # a signal is asynchronous: wait until the guest sees the app gone
    while any(app.alive for app in env.client.apps()) and time.monotonic() < deadline:
        time.sleep(0.02)
    _, _, terminated, truncated, info = env.step("wait(seconds=0)")
    assert truncated and not terminated
    assert "calc" in info["crash"]
    observation, _ = env.reset(seed=0, options={"task_id": "starter.calc_fill_totals"})
    assert observation["focused_app"] == "calc"


def test_killed_display_truncates_and_next_reset_recovers():
    environment = DesktopEnv(task_id="starter.terminal_write_file", observation=("screenshot", "last_action_error"))
    try:
        environment.reset(seed=0)
        xvfb_pid = environment.unwrapped._handle.describe()["pids"]["xvfb"]
        os.kill(xvfb_pid, signal.SIGKILL)
        observation, _, terminated, truncated, info = environment.step("wait(seconds=0)")
        assert truncated and not terminated
        assert "desktop" in info["crash"] or "guest" in info["crash"]
        assert not observation["screenshot"].any()
        observation, _ = environment.reset(seed=1)
        assert observation["screenshot"].any()
    finally:
        environment.close()


def test_gymnasium_make_uses_registered_ids():
    assert all(f"desktop_gym/{task}-v0" in gymnasium.registry for task in STARTER)
    environment = gymnasium.make("desktop_gym/starter.terminal_write_file-v0", observation=("screenshot",))
    try:
        observation, info = environment.reset(seed=0)
        assert isinstance(observation["screenshot"], np.ndarray)
        assert info["task_id"] == "starter.terminal_write_file"
    finally:
        environment.close()


def test_public_surface():
    for name in ("DesktopEnv", "make", "list_tasks", "register_task", "ActionSet"):
        assert hasattr(desktop_gym, name), name
