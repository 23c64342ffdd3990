"""RemoteEnv and make_vec over a server behave as DesktopEnv does (issue 32): refusals are the step's
``last_action_error``, a closed env stays closed, and env ids are told apart by who issued them."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import grpc
import pytest

from desktop_gym.errors import EnvClosedError, EnvLostError
from desktop_gym.serve.client import EnvConnection, RemoteEnv
from desktop_gym.serve.protos import env_pb2 as pb
from desktop_gym.serve.server import EnvServer
from desktop_gym.serve.vector import VectorStepError, make_vec

TASK = "starter.terminal_write_file"
OBSERVATION = ["instruction", "last_action_error"]


def remote(server: EnvServer, **options) -> RemoteEnv:
    return RemoteEnv(TASK, server.address, server.token, observation=OBSERVATION, **options)


@contextmanager
def remote_vec(server: EnvServer, num_envs: int) -> Iterator[Any]:
    """``num_envs`` envs of ``server`` as one vector env, reset with seed 0; closed afterwards."""
    vec = make_vec(TASK, num_envs=num_envs, servers=[(server.address, server.token)], observation=OBSERVATION)
    try:
        vec.reset(seed=0)
        yield vec
    finally:
        vec.close()


@pytest.mark.parametrize("length", [65_537, 10 * 1024 * 1024])
def test_text_over_the_limit_is_the_steps_error_and_the_step_counts(loadtest_server, length):
    env = remote(loadtest_server)
    env.reset(seed=0)
    observation, reward, terminated, truncated, info = env.step("x" * length)
    assert f"is {length} characters long; at most 65536" in observation["last_action_error"]
    assert info["step"] == 1 and reward == 0.0 and not (terminated or truncated)
    assert env.step("wait()")[4]["step"] == 2
    env.close()


def test_a_huge_json_action_is_refused_by_its_length(loadtest_server):
    env = remote(loadtest_server)
    env.reset(seed=0)
    observation, *_ = env.step({"name": "type", "arguments": {"text": "x" * 70_000}})
    assert "characters long; at most 65536" in observation["last_action_error"]
    env.close()


def test_a_value_that_is_no_action_is_the_steps_error_as_in_desktop_env(loadtest_server):
    env = remote(loadtest_server)
    env.reset(seed=0)
    observation, _, terminated, truncated, info = env.step(42)
    assert "cannot use a int as an action" in observation["last_action_error"] and not (terminated or truncated)
    with pytest.raises(TypeError, match="RemoteEnv takes agent text"):
        env.step({1, 2})  # cannot travel: the caller's bug, before any call
    env.close()


def test_calls_after_close_raise_a_closed_env_error_and_create_nothing(loadtest_server):
    env = remote(loadtest_server)
    env.reset(seed=0)
    env.close()
    for call in (lambda: env.step("wait()"), lambda: env.reset(seed=1), env.describe):
        with pytest.raises(EnvClosedError, match="was closed; make a new RemoteEnv"):
            call()
    assert loadtest_server.list_envs() == []
    env.close()  # closing twice is fine


def test_an_id_no_server_issued_is_not_found_and_an_earlier_runs_id_is_lost(loadtest_server):
    earlier = EnvServer(backend="loadtest", max_envs=1, warm=0, lease_ttl=2.0, token=loadtest_server.token).start()
    try:
        old = RemoteEnv(TASK, earlier.address, earlier.token, observation=OBSERVATION)
        old.reset(seed=0)
        old_id = old.env_id
    finally:
        earlier.drain(grace=5)
    connection = EnvConnection(loadtest_server.address, loadtest_server.token)
    try:
        with pytest.raises(EnvLostError, match="earlier env server"):  # same token: a restart of "this" server
            connection.call("Step", pb.StepRequest(env_id=old_id, action="wait()"), old_id)
        made_up = f"{old_id.split('-')[0]}-1-00000000"
        for env_id in (made_up, "0000beef-1", "nope"):
            with pytest.raises(grpc.RpcError) as caught:
                connection.stub.Step(pb.StepRequest(env_id=env_id, action="wait()"), metadata=connection.metadata)
            assert caught.value.code() == grpc.StatusCode.NOT_FOUND, (env_id, caught.value.details())
    finally:
        connection.close()


def test_one_bad_action_in_a_vector_step_loses_no_other_envs_result(loadtest_server):
    with remote_vec(loadtest_server, num_envs=3) as vec:
        observations, rewards, terminated, truncated, infos = vec.step(["x" * 70_000, "wait()", {1, 2}])
    errors = observations["last_action_error"]
    assert "characters long" in errors[0] and errors[1] == "" and "RemoteEnv takes agent text" in errors[2]
    assert list(infos["step"][:2]) == [1, 1]  # env 1's step ran and its result came back
    assert not terminated.any() and not truncated.any()


def test_a_lost_env_in_a_vector_step_raises_with_the_other_envs_results(loadtest_server):
    with remote_vec(loadtest_server, num_envs=2) as vec:
        loadtest_server.close_env(vec.envs[0].env_id)  # as a reclaimed lease would
        with pytest.raises(VectorStepError, match="1 of 2 envs failed") as caught:
            vec.step(["wait()", "wait()"])
        assert isinstance(caught.value.failures[0], EnvLostError)
        assert caught.value.results[0] is None and caught.value.results[1][4]["step"] == 1
        assert vec.envs[1].step("wait()")[4]["step"] == 2  # env 1 went on from the kept result


def test_a_remote_error_keeps_the_type_desktop_env_raises(loadtest_server):
    """The server sends each error's code and the client rebuilds the same class (issue 23)."""
    from desktop_gym.errors import EpisodeNotStartedError, UnknownEnvError, UnknownTaskError

    env = remote(loadtest_server)
    try:
        with pytest.raises(EpisodeNotStartedError):  # step before reset, as DesktopEnv raises it
            env.step("wait()")
        env.reset(seed=0)
        with pytest.raises(UnknownTaskError, match="no_such_task"):
            env.reset(seed=0, options={"task_id": "starter.no_such_task"})
    finally:
        env.close()
    connection = EnvConnection(loadtest_server.address, loadtest_server.token)
    try:
        with pytest.raises(UnknownEnvError):
            connection.call("Step", pb.StepRequest(env_id="nope", action="wait()"), "nope")
    finally:
        connection.close()
