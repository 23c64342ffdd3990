"""``EnvPool``: many episodes in flight at once from asyncio, over one or many env servers.

Each env is created on the server with the fewest of this pool's envs and stays there (sticky
routing by env id). Submit steps for any env and take results as they complete. Only calls that
change nothing are retried (``Health``, ``Stats``), and ``CreateEnv`` when the server could not be
reached; a ``step`` or ``reset`` never is: a lost server raises ``EnvLostError`` for its envs and
the caller creates new ones (with an ``EnvCluster``, ``create`` then asks the cluster for the
restarted server's address).

Example::

    pool = EnvPool(cluster)                       # or [(address, token), ...]
    ids = [await pool.create("starter.terminal_write_file") for _ in range(8)]
    await asyncio.gather(*(pool.reset(env_id, seed=i) for i, env_id in enumerate(ids)))
    for env_id in ids:
        pool.submit(env_id, "wait()")
    async for env_id, result in pool.results():   # (obs, reward, terminated, truncated, info)
        ...
    await pool.aclose()
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import grpc

from .. import errors
from .protos import env_pb2 as pb
from .protos import env_pb2_grpc as pb_grpc
from .vector import _server_list
from .wire import GRPC_OPTIONS, auth_metadata, decode_step, error_from_rpc

CALL_TIMEOUT_S = 300.0
CREATE_ATTEMPTS = 3


class _Server:
    def __init__(self, address: str, token: str | None) -> None:
        self.address = address
        self.token = token
        self.metadata = auth_metadata(token)
        self.channel = grpc.aio.insecure_channel(address, options=GRPC_OPTIONS)
        self.stub = pb_grpc.EnvServiceStub(self.channel)
        self.envs: set[str] = set()


class EnvPool:
    """Asyncio client for many envs on many env servers.

    Args:
        servers: ``[(address, token)]``, addresses, or an ``EnvCluster`` (its addresses are re-read
            when a server cannot be reached, so creates land on restarted servers).
        screenshot_format: how screenshots travel (``"raw"``, ``"jpeg"``, ``"png"``).
        heartbeat: renew every env's lease in the background.
        timeout: per-call deadline in seconds.
        **env_options: default ``DesktopEnv`` options for ``create``.
    """

    def __init__(
        self,
        servers: Any,
        *,
        screenshot_format: str = "raw",
        jpeg_quality: int = 80,
        heartbeat: bool = True,
        timeout: float = CALL_TIMEOUT_S,
        **env_options: Any,
    ) -> None:
        self._source = servers
        self.screenshot_format = screenshot_format
        self.jpeg_quality = jpeg_quality
        self.timeout = timeout
        self.env_options = env_options
        self._servers: dict[str, _Server] = {}
        self._every_server: list[_Server] = []  # also the ones that moved away, to close their channels
        self._route: dict[str, _Server] = {}
        self._parts: dict[str, tuple[str, ...]] = {}
        self._ttl: float | None = None
        self._heartbeat = heartbeat
        self._heartbeat_task: asyncio.Task | None = None
        self._inflight: set[asyncio.Task] = set()
        self._done: asyncio.Queue | None = None
        self._unread = 0  # submitted steps whose result results() has not handed out yet
        self._refresh_servers(initial=True)

    def _refresh_servers(self, initial: bool = False) -> None:
        if not initial and hasattr(self._source, "refresh"):
            self._source.refresh()
        current = dict(_server_list(self._source))
        for address in [address for address in self._servers if address not in current]:
            self._servers.pop(address)  # a server that moved (restarted); its envs keep their old route
        for address, token in current.items():
            if address not in self._servers:
                self._servers[address] = _Server(address, token)
                self._every_server.append(self._servers[address])

    async def _call(self, server: _Server, name: str, request: Any, env_id: str = "") -> Any:
        try:
            return await getattr(server.stub, name)(request, timeout=self.timeout, metadata=server.metadata)
        except grpc.RpcError as exc:
            what = f"{name} on env {env_id} at {server.address}" if env_id else f"{name} at {server.address}"
            raise error_from_rpc(exc, what, lost_on_unavailable=bool(env_id)) from None

    def _server_of(self, env_id: str) -> _Server:
        try:
            return self._route[env_id]
        except KeyError:
            raise LookupError(f"env {env_id!r} is not an env of this pool") from None

    # ------------------------------------------------------------------ envs
    async def create(self, task_id: str, **options: Any) -> str:
        """Create an env for ``task_id`` on the least-loaded server; returns its env id.

        Raises:
            EnvServerError: every server refused or could not be reached (after refreshing the list).
        """
        merged = {**self.env_options, **options}
        request = pb.CreateEnvRequest(
            task_id=task_id,
            options_json=json.dumps(merged),
            screenshot_format=self.screenshot_format,
            jpeg_quality=self.jpeg_quality,
        )
        failures: list[str] = []
        for attempt in range(CREATE_ATTEMPTS):
            for server in sorted(self._servers.values(), key=lambda s: len(s.envs)):
                try:
                    reply = await self._call(server, "CreateEnv", request)
                except errors.EnvServerError as error:
                    failures.append(str(error))
                    continue  # unreachable or full: the next server may have room
                server.envs.add(reply.env_id)
                self._route[reply.env_id] = server
                self._parts[reply.env_id] = tuple(reply.observation_parts)
                self._ttl = min(self._ttl or reply.lease_ttl_s, reply.lease_ttl_s)
                self._ensure_heartbeat()
                return reply.env_id
            if attempt + 1 < CREATE_ATTEMPTS:
                self._refresh_servers()
                await asyncio.sleep(0.5 * (attempt + 1))
        raise errors.EnvServerError(f"no server could create an env for {task_id!r}: " + " | ".join(failures[-4:]))

    async def reset(self, env_id: str, seed: int | None = None, options: dict[str, Any] | None = None):
        """Reset env ``env_id``; returns ``(observation, info)``."""
        server = self._server_of(env_id)
        request = pb.ResetRequest(env_id=env_id, options_json=json.dumps(options or {}))
        if seed is not None:
            request.has_seed, request.seed = True, int(seed)
        observation, _, _, _, info = decode_step(
            await self._call(server, "Reset", request, env_id), self._parts[env_id]
        )
        return observation, info

    async def step(self, env_id: str, action: Any):
        """Step env ``env_id`` once (never retried); returns ``(obs, reward, terminated, truncated, info)``."""
        from .client import encode_action

        server = self._server_of(env_id)
        text, is_json = encode_action(action)
        reply = await self._call(
            server, "Step", pb.StepRequest(env_id=env_id, action=text, action_is_json=is_json), env_id
        )
        return decode_step(reply, self._parts[env_id])

    def submit(self, env_id: str, action: Any) -> asyncio.Task:
        """Start a step without waiting; its result comes out of :meth:`results` (or await the task)."""
        if self._done is None:
            self._done = asyncio.Queue()
        done = self._done

        async def run() -> Any:
            try:
                result: Any = await self.step(env_id, action)
            except Exception as error:  # noqa: BLE001 - handed to the caller through results()
                result = error
            await done.put((env_id, result))
            return result

        task = asyncio.ensure_future(run())
        self._unread += 1
        self._inflight.add(task)
        task.add_done_callback(self._inflight.discard)
        return task

    async def results(self) -> AsyncIterator[tuple[str, Any]]:
        """Yield ``(env_id, result)`` for submitted steps as they complete, until none is in flight.

        ``result`` is the step tuple, or the exception the step raised (e.g. ``EnvLostError``).
        """
        if self._done is None:
            return
        while self._unread > 0:
            item = await self._done.get()
            self._unread -= 1
            yield item

    async def close(self, env_id: str) -> None:
        """Close env ``env_id`` (its desktop goes back to its server's pool)."""
        server = self._route.pop(env_id, None)
        self._parts.pop(env_id, None)
        if server is None:
            return
        server.envs.discard(env_id)
        try:
            await self._call(server, "Close", pb.EnvRef(env_id=env_id), env_id)
        except (errors.EnvLostError, LookupError):
            pass  # already gone

    async def stats(self) -> dict[str, dict[str, Any]]:
        """Every server's ``status()`` by address (a server that does not answer maps to its error)."""
        result: dict[str, dict[str, Any]] = {}
        for address, server in self._servers.items():
            try:
                result[address] = json.loads((await self._call(server, "Stats", pb.Empty())).stats_json)
            except errors.DesktopGymError as error:
                result[address] = {"error": str(error)}
        return result

    @property
    def env_ids(self) -> list[str]:
        """The envs this pool holds."""
        return list(self._route)

    # ------------------------------------------------------------------ leases
    def _ensure_heartbeat(self) -> None:
        if self._heartbeat and self._heartbeat_task is None:
            self._heartbeat_task = asyncio.ensure_future(self._beat())

    async def _beat(self) -> None:
        while True:
            await asyncio.sleep((self._ttl or 60.0) / 3)
            for env_id, server in list(self._route.items()):
                try:
                    await self._call(server, "RenewLease", pb.EnvRef(env_id=env_id), env_id)
                except errors.DesktopGymError:
                    continue  # a lost env shows at its next real call

    async def aclose(self) -> None:
        """Close every env and channel."""
        for task in list(self._inflight):
            await asyncio.wait([task])
        await asyncio.gather(*(self.close(env_id) for env_id in list(self._route)), return_exceptions=True)
        if self._heartbeat_task is not None:
            self._heartbeat_task.cancel()
            self._heartbeat_task = None
        for server in self._every_server:
            await server.channel.close()
