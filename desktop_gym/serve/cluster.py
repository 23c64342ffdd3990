"""``EnvCluster``: Ray places one env server per node; gRPC carries the data.

Each node that hosts desktops is started with a custom resource, e.g.
``ray start --resources='{"desktop": 4}'``. ``EnvCluster(num_envs, envs_per_node=4)`` starts
``ceil(num_envs / envs_per_node)`` server actors, each asking for ``{"desktop": envs_per_node}``,
so each lands on its own desktop node. An actor that dies is restarted by Ray (``max_restarts``;
``max_task_retries=0``, since a retried step is not idempotent). The restarted actor is a new
server with none of the old envs: clients of the old one get ``EnvLostError`` and create new envs;
``EnvPool(cluster)`` re-reads the addresses to find it. The restarted actor first kills what its
predecessor left running (every process it started carries ``DESKTOP_GYM_ENV_SERVER=<key>``).

Example::

    cluster = EnvCluster(num_envs=8, envs_per_node=4)   # needs ray.init() or address=
    pool = cluster.pool()                               # an EnvPool over every server
    vec = cluster.make_vec("starter.terminal_write_file", 8)
    cluster.shutdown()
"""

from __future__ import annotations

import math
import os
import secrets
import signal
import time
from pathlib import Path
from typing import Any

from .tokens import new_token

NAMESPACE = "desktop_gym"
ACTOR_PREFIX = "desktop-gym-env-server-"
SERVER_MARKER = "DESKTOP_GYM_ENV_SERVER"
START_TIMEOUT_S = 600.0


def marked_processes(key: str) -> list[int]:
    """Pids of live processes (but this one) whose environment has ``DESKTOP_GYM_ENV_SERVER=<key>``."""
    needle, pids = f"{SERVER_MARKER}={key}".encode(), []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            if needle in Path(entry.path, "environ").read_bytes().split(b"\0"):
                pids.append(int(entry.name))
        except OSError:
            continue
    return pids


def kill_marked_processes(key: str) -> int:
    """SIGKILL every process left by an earlier server with ``key`` (its desktops); returns how many."""
    killed = 0
    for pid in marked_processes(key):
        try:
            os.kill(pid, signal.SIGKILL)
            killed += 1
        except ProcessLookupError:
            continue
    return killed


class EnvServerActor:
    """A Ray actor that runs one ``EnvServer`` on its node (see the module docstring)."""

    def __init__(self, key: str, token: str, server_kwargs: dict[str, Any]) -> None:
        import ray

        from .server import EnvServer

        self.key = key
        self.orphans_killed = kill_marked_processes(key)  # a restart: the dead predecessor's desktops
        os.environ[SERVER_MARKER] = key  # inherited by every desktop process this server starts
        host = ray.util.get_node_ip_address()
        self.server = EnvServer(f"{host}:0", token, **server_kwargs).start()
        self.started_at = time.time()

    def connection(self) -> tuple[str, str]:
        """``(address, token)`` of this node's server."""
        return self.server.address, self.server.token

    def info(self) -> dict[str, Any]:
        """Key, node, pid, address, server id, when it started and how many orphans it killed."""
        import ray

        return {
            "key": self.key,
            "node_id": ray.get_runtime_context().get_node_id(),
            "pid": os.getpid(),
            "address": self.server.address,
            "server_id": self.server.server_id,
            "started_at": self.started_at,
            "orphans_killed": self.orphans_killed,
        }

    def status(self) -> dict[str, Any]:
        """The server's ``status()``."""
        return self.server.status()

    def drain(self, grace: float = 30.0) -> None:
        """Drain the server (new envs refused, desktops closed)."""
        self.server.drain(grace)


class EnvCluster:
    """One env-server actor per desktop node of a Ray cluster.

    Args:
        num_envs: how many envs the cluster must hold in total.
        backend: desktop backend on each node (``"local"``, ``"container"``, ``"loadtest"``).
        envs_per_node: envs per server; each server actor asks for this many ``desktop`` resources.
        resources: the actor's resource request (default ``{"desktop": envs_per_node}``).
        address: Ray address for ``ray.init`` when Ray is not initialised yet.
        backend_kwargs: backend options.
        lease_ttl: env lease on each server.
        warm: pre-started desktops per server (default: all of them).
        max_restarts: how often Ray restarts a dead server actor.
        detached: keep the actors after this process exits (``desktop-gym cluster up``).
        start_timeout: seconds to wait for every server to answer.
    """

    def __init__(
        self,
        num_envs: int,
        backend: str = "local",
        envs_per_node: int = 4,
        resources: dict[str, float] | None = None,
        *,
        address: str | None = None,
        backend_kwargs: dict[str, Any] | None = None,
        lease_ttl: float = 60.0,
        warm: int | None = None,
        max_restarts: int = 3,
        detached: bool = False,
        start_timeout: float = START_TIMEOUT_S,
    ) -> None:
        import ray

        if num_envs < 1 or envs_per_node < 1:
            raise ValueError(f"num_envs and envs_per_node must be at least 1, got {num_envs} and {envs_per_node}")
        if not ray.is_initialized():
            ray.init(address=address, namespace=NAMESPACE, log_to_driver=False)
        self.token = new_token()
        server_kwargs = {
            "backend": backend,
            "backend_kwargs": backend_kwargs or {},
            "max_envs": envs_per_node,
            "warm": envs_per_node if warm is None else warm,
            "lease_ttl": lease_ttl,
        }
        actor_class = ray.remote(EnvServerActor)
        options: dict[str, Any] = {
            "resources": resources if resources is not None else {"desktop": envs_per_node},
            "num_cpus": 0,
            "max_restarts": max_restarts,
            "max_task_retries": 0,
            "max_concurrency": 8,
            "scheduling_strategy": "SPREAD",
        }
        count = math.ceil(num_envs / envs_per_node)
        self._actors = []
        run = secrets.token_hex(4)
        for index in range(count):
            extra = (
                {"name": f"{ACTOR_PREFIX}{index}", "namespace": NAMESPACE, "lifetime": "detached"} if detached else {}
            )
            self._actors.append(
                actor_class.options(**options, **extra).remote(f"{run}-{index}", self.token, server_kwargs)
            )
        self._servers: list[tuple[str, str]] = []
        self.refresh(timeout=start_timeout)

    @classmethod
    def attach(cls, address: str | None = None) -> EnvCluster:
        """The detached servers started by ``desktop-gym cluster up`` (found by name)."""
        import ray

        if not ray.is_initialized():
            ray.init(address=address, namespace=NAMESPACE, log_to_driver=False)
        cluster = cls.__new__(cls)
        cluster._actors = []
        for index in range(10_000):
            try:
                cluster._actors.append(ray.get_actor(f"{ACTOR_PREFIX}{index}", namespace=NAMESPACE))
            except ValueError:
                break
        if not cluster._actors:
            raise LookupError(
                f"no desktop-gym env servers in Ray namespace {NAMESPACE!r} (run `desktop-gym cluster up`)"
            )
        cluster._servers = []
        cluster.refresh()
        cluster.token = cluster._servers[0][1]
        return cluster

    def _ask_all(self, method: str, timeout: float, *args: Any) -> list[Any]:
        """Call ``method`` on every actor; wait out actors that are restarting (up to ``timeout``)."""
        import ray
        from ray.exceptions import ActorUnavailableError

        deadline = time.monotonic() + timeout
        while True:
            try:
                refs = [getattr(actor, method).remote(*args) for actor in self._actors]
                return list(ray.get(refs, timeout=max(1.0, deadline - time.monotonic())))
            except ActorUnavailableError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.5)  # Ray is restarting an actor; its __init__ brings up a new server

    def refresh(self, timeout: float = 180.0) -> list[tuple[str, str]]:
        """Ask every actor for its address (a restarted actor answers once its new server is up)."""
        self._servers = [tuple(pair) for pair in self._ask_all("connection", timeout)]
        return self._servers

    @property
    def servers(self) -> list[tuple[str, str]]:
        """``[(address, token)]`` of every server, as last refreshed."""
        return list(self._servers)

    @property
    def actors(self) -> list[Any]:
        """The Ray actor handles (one per server)."""
        return list(self._actors)

    def info(self, timeout: float = 60.0) -> list[dict[str, Any]]:
        """Each actor's pid, address, server id and start time."""
        return self._ask_all("info", timeout)

    def status(self, timeout: float = 60.0) -> list[dict[str, Any]]:
        """Each server's ``status()``."""
        return self._ask_all("status", timeout)

    def pool(self, **options: Any) -> Any:
        """An ``EnvPool`` over every server (it re-reads addresses after a restart)."""
        from .env_pool import EnvPool

        return EnvPool(self, **options)

    def make_vec(self, task_ids: Any, num_envs: int | None = None, **env_options: Any) -> Any:
        """A ``make_vec`` vector env spread over the cluster's servers."""
        from .vector import make_vec

        return make_vec(task_ids, num_envs, servers=self.servers, **env_options)

    def shutdown(self, grace: float = 30.0) -> None:
        """Drain every server (desktops closed), then kill the actors for good."""
        import ray

        try:
            ray.get([actor.drain.remote(grace) for actor in self._actors], timeout=grace + 60)
        except Exception:  # noqa: BLE001 - a dead actor has nothing left to drain
            pass
        for actor in self._actors:
            ray.kill(actor, no_restart=True)
        self._actors = []
