"""EnvCluster on a real 2-node Ray cluster (ray.cluster_utils.Cluster) with 8 real desktops.

One scenario, because Ray and 8 desktops are slow to start on 2 shared cores: one EnvPool drives
8 desktops over both nodes; then a server is killed with SIGKILL: Ray restarts it, its envs raise
EnvLostError, the other node's envs go on, and a new env works within a bounded time.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import time

import pytest

from desktop_gym.errors import EnvLostError
from desktop_gym.serve.client import EnvConnection, RemoteEnv
from desktop_gym.serve.cluster import EnvCluster, marked_processes
from desktop_gym.serve.protos import env_pb2 as pb

pytestmark = pytest.mark.stage_serve

TASK = "starter.terminal_write_file"
RESTART_BOUND_S = 180.0


@pytest.fixture(scope="module")
def ray_nodes():
    import ray
    from ray.cluster_utils import Cluster

    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "resources": {"desktop": 4}})
    cluster.add_node(num_cpus=1, resources={"desktop": 4})
    cluster.wait_for_nodes()
    ray.init(address=cluster.address, namespace="desktop_gym", log_to_driver=False)
    yield cluster
    ray.shutdown()
    cluster.shutdown()


def test_two_nodes_eight_desktops_one_pool_and_a_killed_server(ray_nodes, wait_until):
    cluster = EnvCluster(num_envs=8, envs_per_node=4, lease_ttl=120, max_restarts=2)
    keys = []
    try:
        infos = cluster.info()
        keys = [info["key"] for info in infos]
        assert len(infos) == 2 and len({info["node_id"] for info in infos}) == 2, infos
        asyncio.run(_scenario(cluster, infos))
    finally:
        cluster.shutdown()
    for key in keys:
        wait_until(lambda key=key: not marked_processes(key), timeout=60, what=f"the desktops of server {key} to exit")


async def _scenario(cluster: EnvCluster, infos: list[dict]) -> None:
    pool = cluster.pool(observation=["instruction", "last_action_error"], settle_timeout=0)
    ids = [await pool.create(TASK) for _ in range(8)]
    by_server: dict[str, list[str]] = {}
    for env_id in ids:
        by_server.setdefault(env_id.split("-")[0], []).append(env_id)
    assert sorted(len(group) for group in by_server.values()) == [4, 4]
    await asyncio.gather(*(pool.reset(env_id, seed=index) for index, env_id in enumerate(ids)))
    for env_id in ids:
        pool.submit(env_id, "wait(seconds=0)")
    results = {env_id: result async for env_id, result in pool.results()}
    assert all(not isinstance(result, Exception) and result[4]["step"] == 1 for result in results.values()), results

    victim = infos[0]
    old_desktop_pids = set(marked_processes(victim["key"]))
    assert old_desktop_pids, "the server's desktop processes should carry its marker"
    os.kill(victim["pid"], signal.SIGKILL)
    killed_at = time.monotonic()
    lost = by_server[victim["server_id"]]
    survivors = by_server[infos[1]["server_id"]]
    for env_id in lost:
        with pytest.raises(EnvLostError):
            await pool.step(env_id, "wait(seconds=0)")
        await pool.close(env_id)
    for env_id in survivors:
        assert (await pool.step(env_id, "wait(seconds=0)"))[4]["step"] == 2
    replacement = await pool.create(TASK)  # re-reads the addresses: lands on the restarted server
    await pool.reset(replacement, seed=0)
    assert (await pool.step(replacement, "wait(seconds=0)"))[4]["step"] == 1
    assert time.monotonic() - killed_at < RESTART_BOUND_S
    restarted = cluster.info()[0]
    assert restarted["pid"] != victim["pid"] and restarted["server_id"] != victim["server_id"]
    # Ray kills a dead worker's children; the restarted server kills any that survived (orphans_killed).
    assert not old_desktop_pids & set(marked_processes(victim["key"])), "the dead server's desktops still run"
    assert replacement.startswith(restarted["server_id"])
    # The restarted actor runs a new server with the same token: it knows the dead run's ids as lost
    # (not as ids it never issued), so a client holding one is told to make a new env.
    connection = EnvConnection(restarted["address"], cluster.token)
    try:
        with pytest.raises(EnvLostError, match="earlier env server"):
            connection.call("Step", pb.StepRequest(env_id=lost[0], action="wait(seconds=0)"), lost[0])
    finally:
        connection.close()
    await pool.aclose()


def test_cluster_up_status_down_commands(ray_nodes, capsys):
    from desktop_gym.cli import main

    assert main(["cluster", "up", "--num-envs", "2", "--envs-per-node", "1", "--backend", "loadtest"]) == 0
    report = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert len(report["servers"]) == 2 and report["token"]
    attached = EnvCluster.attach()
    env = RemoteEnv(TASK, *attached.servers[0], observation=["instruction"])
    env.reset(seed=0)
    assert main(["cluster", "status"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.strip().splitlines()]
    assert sorted(line["envs"] for line in lines) == [0, 1]
    env.close()
    assert main(["cluster", "down"]) == 0
    assert "stopped 2 env servers" in capsys.readouterr().out
    with pytest.raises(LookupError, match="cluster up"):
        EnvCluster.attach()
