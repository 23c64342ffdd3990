"""The env server on real local desktops: check_env, a task proof, a killed desktop, a wiped home."""

from __future__ import annotations

import os
import signal

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from desktop_gym.guest.client import GuestClient
from desktop_gym.serve.client import RemoteEnv
from desktop_gym.tasks import get_task, null_policy

pytestmark = pytest.mark.slow

TASK = "starter.terminal_write_file"


def run_episode(env: RemoteEnv, policy_for, seed: int):
    observation, info = env.reset(seed=seed)
    policy = policy_for(get_task(TASK), info["params"])
    while True:
        observation, reward, terminated, truncated, info = env.step(policy(observation))
        if terminated or truncated:
            return reward, terminated, info


def test_remote_env_on_a_real_desktop_passes_check_env_and_proves_the_task(real_desktop_server):
    env = RemoteEnv(TASK, real_desktop_server.address, real_desktop_server.token, screenshot_format="jpeg")
    try:
        check_env(env, skip_render_check=True)
        observation, _ = env.reset(seed=0)
        assert observation["screenshot"].shape == (720, 1280, 3) and observation["screenshot"].any()
        reward, terminated, info = run_episode(env, lambda task, params: task.oracle(params), seed=3)
        assert terminated and info["success"] and reward == 1.0, info
        reward, terminated, info = run_episode(env, lambda task, params: null_policy, seed=3)
        assert terminated and not info["success"] and reward == 0.0
    finally:
        env.close()


def test_killed_display_and_app_truncate_the_episode_and_the_next_reset_recovers(real_desktop_server):
    env = RemoteEnv(
        TASK, real_desktop_server.address, real_desktop_server.token, observation=["screenshot", "last_action_error"]
    )
    try:
        env.reset(seed=0)
        (session,) = [real_desktop_server.session(summary["env_id"]) for summary in real_desktop_server.list_envs()]
        handle = session.backend.start()
        with GuestClient(handle.address, token=handle.token) as guest:
            app_pids = [app.pid for app in guest.apps()]
        for pid in app_pids:
            os.killpg(pid, signal.SIGKILL)
        os.kill(handle.describe()["pids"]["xvfb"], signal.SIGKILL)
        observation, _, terminated, truncated, info = env.step("wait(seconds=0)")
        assert truncated and not terminated and info["crash"]
        assert not np.asarray(observation["screenshot"]).any()
        assert real_desktop_server.list_envs()[0]["state"] == "crashed"
        observation, _ = env.reset(seed=1)
        assert observation["screenshot"].any()
        assert real_desktop_server.list_envs()[0]["state"] == "idle"
        counters = real_desktop_server.status()["counters"]
        assert counters["crashes"] >= 1 and counters["recoveries"] >= 1
    finally:
        env.close()


def test_a_closed_envs_desktop_comes_back_with_an_empty_home(real_desktop_server, wait_until):
    first = RemoteEnv(
        TASK,
        real_desktop_server.address,
        real_desktop_server.token,
        observation=["last_action_result", "last_action_error"],
    )
    first.reset(seed=0)
    first.step("OSTools.write_text_file(path='~/left_behind.txt', text='secret')")
    observation, *_ = first.step("OSTools.list_folder(path='~')")
    assert "left_behind.txt" in observation["last_action_result"], observation
    first.close()
    wait_until(lambda: real_desktop_server.pool.counts()["ready"] == 1, timeout=60, what="the desktop back in the pool")
    second = RemoteEnv(
        TASK,
        real_desktop_server.address,
        real_desktop_server.token,
        observation=["last_action_result", "last_action_error"],
    )
    try:
        second.reset(seed=0)
        observation, *_ = second.step("OSTools.path_exists(path='~/left_behind.txt')")
        assert observation["last_action_error"] == "" and "false" in observation["last_action_result"].lower()
    finally:
        second.close()


INLINE = {
    "id": "inline.write_word",
    "instruction": "Write {word} into ~/inline.txt",
    "params": {"word": {"words": {"count": 1}}},
    "apps": ["terminal"],
    "setup": [{"type": "launch", "app": "terminal"}],
    "verifier": {"name": "text_file", "file": "~/inline.txt", "args": {"expected": "{word}"}},
    "oracles": {"api": ["OSTools.run_shell(command='echo {word} > ~/inline.txt')"]},
    "perturb": {"param": "word", "value": "{word}s"},
}


def test_an_inline_task_runs_on_the_server_and_a_bad_one_names_its_field(real_desktop_server):
    # The server never registered it: the definition travels in the reset's options (the miner's path).
    env = RemoteEnv(TASK, real_desktop_server.address, real_desktop_server.token, action_mode="api", api_scope="all")
    try:
        with pytest.raises(ValueError, match=r"options_json.task: .*max_steps"):
            env.reset(options={"task": {**INLINE, "max_steps": "many"}})
        _, info = env.reset(options={"task": INLINE, "params": {"word": "cedar"}})
        assert info["task_id"] == "inline.write_word" and info["instruction"] == "Write cedar into ~/inline.txt"
        env.step("OSTools.run_shell(command='echo cedar > ~/inline.txt')")
        _, reward, terminated, _, info = env.step("done()")
        assert terminated and info["success"] and reward == 1.0, info
        _, info = env.reset(options={"task": INLINE, "params": {"word": "cedar"}})  # the wrong word fails
        env.step("OSTools.run_shell(command='echo birch > ~/inline.txt')")
        _, reward, terminated, _, info = env.step("done()")
        assert terminated and not info["success"]
    finally:
        env.close()


def test_the_miner_on_the_server_plays_each_perturbed_oracle_as_an_episode(real_desktop_server, tmp_path, monkeypatch):
    # The saved documents stay on the server: without the perturbed episode no task could be kept.
    from desktop_gym.tasks.mining.dry_run import DryRunner
    from desktop_gym.tasks.mining.synth import Miner, read_shard

    monkeypatch.setenv("DESKTOP_GYM_TOKEN", real_desktop_server.token)
    with DryRunner(server=real_desktop_server.address) as runner:
        assert runner.remote
        result = Miner(tmp_path, runner, np.random.default_rng(2), app="calc").mine(2)
    proofs = read_shard(tmp_path / "calc.proofs.jsonl")
    assert len(result.kept) == 2 and len(proofs) == 2
    assert all(p["perturbed_by"] == "its own perturbed episode" and p["perturbed"] == "fails" for p in proofs)
    assert result.episodes >= result.candidates + 2  # an oracle run per candidate, a perturbed one per kept task
