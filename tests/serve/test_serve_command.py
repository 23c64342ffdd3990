"""``desktop-gym serve`` as a real process: a task proof through RemoteEnv, then SIGTERM mid-step."""

from __future__ import annotations

import signal
import threading
import time
import uuid

import pytest

from desktop_gym.errors import EnvLostError
from desktop_gym.serve.client import EnvConnection, RemoteEnv
from desktop_gym.serve.cluster import marked_processes
from desktop_gym.tasks import get_task, null_policy

from ..support.serve_process import start_serve

pytestmark = pytest.mark.stage_serve

TASK = "starter.terminal_write_file"


@pytest.fixture
def serve_process():
    key = f"test-{uuid.uuid4().hex[:8]}"
    proc, info = start_serve(key)
    yield proc, info, key
    if proc.poll() is None:
        proc.kill()
        proc.wait(timeout=30)


def test_task_proof_through_serve_then_sigterm_drains_during_a_step(serve_process, wait_until):
    proc, info, key = serve_process
    env = RemoteEnv(TASK, info["address"], info["token"])
    for policy_for, should_pass in ((lambda task, params: task.oracle(params), True), (lambda *_: null_policy, False)):
        observation, reset_info = env.reset(seed=7)
        policy = policy_for(get_task(TASK), reset_info["params"])
        while True:
            observation, reward, terminated, truncated, step_info = env.step(policy(observation))
            if terminated or truncated:
                break
        assert step_info["success"] is should_pass and reward == float(should_pass), step_info
    assert marked_processes(key), "the server's desktop processes should carry its marker"

    env.reset(seed=0)
    results: list = []
    stepping = threading.Thread(target=lambda: results.append(env.step("wait(seconds=2)")))
    stepping.start()
    connection = EnvConnection(info["address"], info["token"])
    wait_until(lambda: connection.stats()["envs"][0]["state"] == "stepping", timeout=10, what="the step in flight")
    proc.send_signal(signal.SIGTERM)
    stepping.join(timeout=60)
    assert results and results[0][4]["step"] == 1, "the step in flight did not finish"
    assert proc.wait(timeout=60) == 0
    wait_until(lambda: not marked_processes(key), timeout=30, what="every desktop process of the server to exit")
    connection.close()
    started = time.monotonic()
    with pytest.raises(EnvLostError, match="UNAVAILABLE"):
        env.step("wait()")
    assert time.monotonic() - started < 30
