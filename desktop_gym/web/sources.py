"""Where the dashboard's live data comes from: an in-process ``EnvServer`` or servers over gRPC."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

MAX_SERVERS = 1024  # a dashboard watches at most this many servers
MAX_CACHED_THUMBNAILS = 256  # (env, width) pairs; each holds one frame


class StatusSource(Protocol):
    """What the dashboard reads; every call is cheap and never waits for a running step."""

    def status(self) -> list[dict[str, Any]]:
        """One ``EnvServer.status()`` dict per server (an unreachable server: ``{"address", "error"}``)."""
        ...

    def thumbnail(self, server: int, env_id: str, max_width: int) -> bytes:
        """A small JPEG of the env's last screenshot (``b""`` before the first one)."""
        ...

    def close_env(self, server: int, env_id: str) -> None:
        """Close one env (its desktop goes back to the pool)."""
        ...


class LocalServerSource:
    """The dashboard of an ``EnvServer`` in this process (``desktop-gym serve --dashboard``)."""

    def __init__(self, server: Any) -> None:
        self.server = server
        self._thumbnails: dict[tuple[str, int], tuple[Any, bytes]] = {}  # encoded once per screenshot

    def status(self) -> list[dict[str, Any]]:
        return [self.server.status()]

    def thumbnail(self, server: int, env_id: str, max_width: int) -> bytes:
        _check_index(server, 1)
        shot = getattr(self.server.session(env_id), "last_screenshot", None)
        key = (env_id, max_width)
        cached = self._thumbnails.get(key)
        if shot is not None and cached is not None and cached[0] is shot:
            return cached[1]
        data = self.server.thumbnail(env_id, max_width)[0]
        if shot is not None:
            if len(self._thumbnails) >= MAX_CACHED_THUMBNAILS:
                self._thumbnails.clear()
            self._thumbnails[key] = (shot, data)  # holds the frame, so identity cannot be reused
        return data

    def close_env(self, server: int, env_id: str) -> None:
        _check_index(server, 1)
        self.server.close_env(env_id)


class RemoteServersSource:
    """Several env servers over gRPC (the cluster view), by address and token."""

    def __init__(self, addresses: Sequence[str], token: str | None) -> None:
        if not 1 <= len(addresses) <= MAX_SERVERS:
            raise ValueError(f"addresses: between 1 and {MAX_SERVERS} servers, got {len(addresses)}")
        from ..serve.client import EnvConnection

        self.connections = [EnvConnection(address, token, timeout=5.0) for address in addresses]

    def status(self) -> list[dict[str, Any]]:
        result = []
        for connection in self.connections:
            try:
                result.append(connection.stats())
            except Exception as error:  # noqa: BLE001 - a dead server shows as an error row
                result.append({"address": connection.address, "error": str(error), "envs": []})
        return result

    def thumbnail(self, server: int, env_id: str, max_width: int) -> bytes:
        from ..serve.protos import env_pb2 as pb

        _check_index(server, len(self.connections))
        reply = self.connections[server].call("Thumbnail", pb.ThumbnailRequest(env_id=env_id, max_width=max_width))
        return bytes(reply.jpeg)

    def close_env(self, server: int, env_id: str) -> None:
        from ..serve.protos import env_pb2 as pb

        _check_index(server, len(self.connections))
        self.connections[server].call("Close", pb.EnvRef(env_id=env_id), env_id=env_id)


def _check_index(server: int, count: int) -> None:
    if not 0 <= server < count:
        raise LookupError(f"server: no server {server} (there are {count})")
