"""A reset's ``prefetch`` over the env server: the next episode is prepared on a second pooled desktop.

The load-test backend (an in-process stand-in desktop) shows the bookkeeping: which desktop is
lent, swapped and given back, what is refused before the env is touched, and what happens when
the pool has no desktop to spare. One test runs it on real local desktops.
"""

from __future__ import annotations

import asyncio

import pytest

from desktop_gym.serve.client import RemoteEnv
from desktop_gym.serve.env_pool import EnvPool
from desktop_gym.serve.server import EnvServer

TASK = "starter.terminal_write_file"


def in_use(server: EnvServer) -> int:
    return server.pool.counts()["in_use"]


@pytest.fixture
def server():
    """Four stand-in desktops, none warm (so every desktop in use is one an env or a prefetch took)."""
    server = EnvServer(backend="loadtest", max_envs=4, warm=0, lease_ttl=60).start()
    yield server
    server.drain(grace=5)


def test_a_prefetched_remote_reset_swaps_in_the_episode_a_cold_reset_gives(server):
    env = RemoteEnv(TASK, server.address, server.token, observation=["instruction"])
    cold = RemoteEnv(TASK, server.address, server.token, observation=["instruction"])
    try:
        _, info = env.reset(seed=1, options={"prefetch": {"seed": 2}})
        assert "prefetched" not in info
        assert in_use(server) == 2  # the env's desktop and the one lent to the prefetch
        (session,) = [server.session(s["env_id"]) for s in server.list_envs()]
        first_desktop = session.backend
        observation, info = env.reset(seed=2)
        assert info["prefetched"] is True and info["prefetch_seconds"] >= 0
        assert session.backend is not first_desktop  # the prefetch's desktop is the env's now
        cold_observation, cold_info = cold.reset(seed=2)
        assert observation["instruction"] == cold_observation["instruction"]
        assert info["params"] == cold_info["params"]
        *_, info = env.step("wait(seconds=0)")
        assert "action_error" not in info or not info["action_error"]
        assert server.status()["counters"]["resets"] >= 3
    finally:
        env.close()
        cold.close()
    assert in_use(server) == 0  # both of the prefetching env's desktops went back to the pool


def test_a_reset_to_another_episode_falls_back_and_the_next_prefetch_reuses_the_lent_desktop(server):
    env = RemoteEnv(TASK, server.address, server.token, observation=["instruction"])
    try:
        env.reset(seed=1, options={"prefetch": {"seed": 2}})
        _, info = env.reset(seed=5, options={"prefetch": {"seed": 6}})  # not the prefetched seed 2
        assert "prefetched" not in info
        _, info = env.reset(seed=6)
        assert info["prefetched"] is True
        assert in_use(server) == 2  # one lent desktop all along, not one per prefetch
    finally:
        env.close()
    assert in_use(server) == 0


@pytest.mark.parametrize(
    ("prefetch", "message"),
    [
        ({"seed": "two"}, "seed"),
        ({"seed": 1, "task_id": "no.such_task"}, "no.such_task"),
        ({"seed": 1, "extra": 1}, "unknown keys"),
        ([1, 2], "expected dict"),
    ],
)
def test_a_malformed_prefetch_is_refused_by_name_before_the_env_is_touched(server, prefetch, message):
    env = RemoteEnv(TASK, server.address, server.token, observation=["instruction"])
    try:
        env.reset(seed=0)
        with pytest.raises(ValueError, match=message) as raised:
            env.reset(seed=1, options={"prefetch": prefetch})
        assert "prefetch" in str(raised.value)
        assert server.list_envs()[0]["state"] == "idle" and in_use(server) == 1
        *_, info = env.step("wait(seconds=0)")  # the episode goes on
        assert info["step"] == 1
    finally:
        env.close()


def test_with_no_desktop_to_spare_the_reset_still_succeeds_and_the_next_is_cold():
    with EnvServer(backend="loadtest", max_envs=1, warm=0, lease_ttl=60) as server:
        env = RemoteEnv(TASK, server.address, server.token, observation=["instruction"])
        try:
            observation, _ = env.reset(seed=1, options={"prefetch": {"seed": 2}})
            assert observation["instruction"]
            _, info = env.reset(seed=2)
            assert "prefetched" not in info
            assert in_use(server) == 1
        finally:
            env.close()
        assert in_use(server) == 0


def test_env_pool_passes_the_prefetch_through():
    async def run(server: EnvServer) -> dict:
        pool = EnvPool([(server.address, server.token)], observation=["instruction"])
        try:
            env_id = await pool.create(TASK)
            await pool.reset(env_id, seed=3, options={"prefetch": {"seed": 4}})
            _, info = await pool.reset(env_id, seed=4)
            return info
        finally:
            await pool.aclose()

    with EnvServer(backend="loadtest", max_envs=2, warm=0, lease_ttl=60) as server:
        assert asyncio.run(run(server))["prefetched"] is True
        assert in_use(server) == 0


@pytest.mark.slow
def test_a_prefetched_reset_on_real_desktops_is_the_cold_episode_and_runs():
    with EnvServer(backend="local", max_envs=2, warm=0, lease_ttl=300) as server:
        env = RemoteEnv(TASK, server.address, server.token, observation=["instruction", "screenshot"])
        try:
            _, info = env.reset(seed=1, options={"prefetch": {"seed": 2}})
            observation, info = env.reset(seed=2)
            assert info["prefetched"] is True and info["reset_seconds"] < info["prefetch_seconds"]
            assert "reports_" in observation["instruction"] and observation["screenshot"].any()
            from desktop_gym.tasks import get_task

            policy = get_task(TASK).oracle(info["params"])
            while True:
                observation, reward, terminated, truncated, info = env.step(policy(observation))
                if terminated or truncated:
                    break
            assert terminated and info["success"], info
        finally:
            env.close()
        assert in_use(server) == 0
