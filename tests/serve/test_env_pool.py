"""EnvPool (asyncio) and make_vec over env servers on the load-test backend."""

from __future__ import annotations

import asyncio

import numpy as np
import pytest

from desktop_gym.errors import EnvLostError
from desktop_gym.serve.env_pool import EnvPool
from desktop_gym.serve.server import EnvServer
from desktop_gym.serve.vector import make_vec

TASK = "starter.terminal_write_file"


@pytest.fixture
def two_servers():
    servers = [EnvServer(backend="loadtest", max_envs=3, warm=1).start() for _ in range(2)]
    yield servers
    for server in servers:
        if not server.draining:
            server.drain(grace=5)


def test_env_pool_spreads_envs_routes_by_id_and_yields_results_as_they_complete(two_servers):
    async def scenario() -> None:
        pool = EnvPool([(server.address, server.token) for server in two_servers], observation=["instruction"])
        ids = [await pool.create(TASK) for _ in range(6)]
        owners = {server.server_id: server for server in two_servers}
        assert sorted(env_id.split("-")[0] for env_id in ids) == sorted([s.server_id for s in two_servers] * 3)
        await asyncio.gather(*(pool.reset(env_id, seed=index) for index, env_id in enumerate(ids)))
        for env_id in ids:
            pool.submit(env_id, "wait()")
        seen = {}
        async for env_id, result in pool.results():
            seen[env_id] = result
        assert set(seen) == set(ids) and all(result[4]["step"] == 1 for result in seen.values())
        for env_id in ids:  # each step ran on the server that owns the env
            assert owners[env_id.split("-")[0]].session(env_id).step == 1
        with pytest.raises(Exception, match="RESOURCE_EXHAUSTED|no server could create"):
            await pool.create(TASK)
        await pool.aclose()
        assert all(not server.list_envs() for server in two_servers)

    asyncio.run(scenario())


def test_env_pool_never_retries_a_step_on_a_lost_server(two_servers):
    async def scenario() -> None:
        pool = EnvPool([(server.address, server.token) for server in two_servers])
        first = await pool.create(TASK)
        await pool.reset(first)
        owner = next(server for server in two_servers if first.startswith(server.server_id))
        owner.drain(grace=5)
        with pytest.raises(EnvLostError):
            await pool.step(first, "wait()")
        replacement = await pool.create(TASK)  # lands on the server that is still up
        assert not replacement.startswith(owner.server_id)
        await pool.aclose()

    asyncio.run(scenario())


def test_make_vec_uses_next_step_autoreset(two_servers):
    servers = [(server.address, server.token) for server in two_servers]
    vec = make_vec([TASK], 2, servers=servers, max_steps=2, observation=["instruction", "screenshot"])
    try:
        assert vec.metadata["autoreset_mode"].name == "NEXT_STEP"
        observations, infos = vec.reset(seed=5)
        assert vec.observation_space.contains(observations) and observations["screenshot"].shape == (2, 90, 160, 3)
        assert infos["_task_id"].all()
        _, rewards, terminated, truncated, _ = vec.step(["wait()", "wait()"])
        assert not (terminated.any() or truncated.any())
        _, rewards, terminated, truncated, infos = vec.step(["wait()", "wait()"])
        assert truncated.all() and not terminated.any()
        observations, rewards, terminated, truncated, infos = vec.step(["done()", "done()"])
        assert np.array_equal(rewards, [0.0, 0.0]) and not (terminated.any() or truncated.any())
        assert "reset_seconds" in infos  # this step was the reset of both envs
        assert all(summary["step"] == 0 for server in two_servers for summary in server.list_envs())
        assert len(vec.call("describe")) == 2
    finally:
        vec.close()
    assert all(not server.list_envs() for server in two_servers)
