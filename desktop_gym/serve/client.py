"""``RemoteEnv``: a ``gymnasium.Env`` whose desktop lives on an env server.

It behaves like ``DesktopEnv`` (same spaces, ``describe()``, ``tool_schemas()``), pickles as its
address + token + options, and connects on first use, so trainers can ship it (or a factory of
it) to other processes. A heartbeat thread renews the env's lease while the object lives. If the
server restarted or reclaimed the env, calls raise ``EnvLostError``: make a new ``RemoteEnv``.
A ``step`` is never retried.
"""

from __future__ import annotations

import json
import threading
import weakref
from typing import Any

import grpc
import gymnasium
import numpy as np

from ..env import DEFAULT_OBSERVATION
from ..errors import EnvClosedError, UnsendableActionError
from ..spaces import Unicode, observation_space
from .protos import env_pb2 as pb
from .protos import env_pb2_grpc as pb_grpc
from .wire import GRPC_OPTIONS, auth_metadata, decode_step, error_from_rpc, keep_large_allocations

CALL_TIMEOUT_S = 300.0  # a reset may start a desktop; a step may wait for apps
HEARTBEAT_FRACTION = 1 / 3  # renew the lease after this fraction of its TTL
MAX_SENT_ACTION_CHARS = 15 * 1024 * 1024  # longer text is cut in transit (at most 60 MB of UTF-8 < the 64 MB cap)


class EnvConnection:
    """A channel to one env server with typed errors (shared by ``RemoteEnv`` and tools).

    Args:
        address: gRPC target (``"127.0.0.1:50051"``, ``"unix:/path/env.sock"``).
        token: the server's token.
        timeout: per-call deadline in seconds.
    """

    def __init__(self, address: str, token: str | None = None, timeout: float = CALL_TIMEOUT_S) -> None:
        keep_large_allocations()
        self.address = address
        self.timeout = timeout
        self.metadata = auth_metadata(token)
        self.channel = grpc.insecure_channel(address, options=GRPC_OPTIONS)
        self.stub = pb_grpc.EnvServiceStub(self.channel)

    def call(self, name: str, request: Any, env_id: str = "", timeout: float | None = None) -> Any:
        """Call ``name``; raise the typed error on failure (``EnvLostError`` for a gone env)."""
        try:
            return getattr(self.stub, name)(request, timeout=timeout or self.timeout, metadata=self.metadata)
        except grpc.RpcError as exc:
            what = f"{name} on env {env_id} at {self.address}" if env_id else f"{name} at {self.address}"
            raise error_from_rpc(exc, what, lost_on_unavailable=bool(env_id)) from None

    def stats(self) -> dict[str, Any]:
        """The server's ``status()`` dict."""
        return json.loads(self.call("Stats", pb.Empty()).stats_json)

    def health(self, timeout: float = 5.0) -> pb.HealthReply:
        """The server's health reply."""
        return self.call("Health", pb.Empty(), timeout=timeout)

    def close(self) -> None:
        """Close the channel."""
        self.channel.close()


def encode_action(action: Any) -> tuple[str, bool]:
    """``(text, is_json)`` for a ``StepRequest``.

    Text longer than :data:`MAX_SENT_ACTION_CHARS` travels cut to that length: it is over every
    env's limit either way, and the env refuses it by its length (``last_action_error``).
    Anything else JSON can carry (a dict, a list, a number, None) travels as JSON, and the env on
    the server says what is wrong with it, as ``DesktopEnv`` would.

    Raises:
        UnsendableActionError: (a ``TypeError``) the action cannot travel (a typed ``Action``, a set,
            a value JSON cannot hold).
    """
    if isinstance(action, str):
        return action[:MAX_SENT_ACTION_CHARS], False
    try:
        text = json.dumps(action, allow_nan=False)
    except (TypeError, ValueError) as error:
        raise UnsendableActionError(
            f"action: a RemoteEnv takes agent text or a JSON tool-call dict, got {type(action).__name__} ({error})"
        ) from None
    return text[: MAX_SENT_ACTION_CHARS + 1], True


class RemoteEnv(gymnasium.Env[dict[str, Any], str]):
    """A ``DesktopEnv`` on an env server.

    Args:
        task_id: the task (may be changed per reset with ``options={"task_id": ...}``).
        address: the env server (``desktop-gym serve`` prints it).
        token: the server's token.
        screenshot_format: ``"raw"``, ``"jpeg"`` or ``"png"``: how screenshots travel.
        jpeg_quality: JPEG quality (1-100).
        heartbeat: renew the lease in a background thread while this object lives.
        timeout: per-call deadline in seconds.
        **env_options: ``DesktopEnv`` options (observation, coordinates, action_mode, api_scope,
            max_steps, a11y_max_nodes, app_info_max_chars, settle_timeout).
    """

    metadata = {"render_modes": ["rgb_array"], "render_fps": 4}

    def __init__(
        self,
        task_id: str | None = None,
        address: str = "127.0.0.1:50051",
        token: str | None = None,
        *,
        screenshot_format: str = "raw",
        jpeg_quality: int = 80,
        heartbeat: bool = True,
        timeout: float = CALL_TIMEOUT_S,
        render_mode: str | None = None,
        **env_options: Any,
    ) -> None:
        self.task_id = task_id
        self.address = address
        self.token = token
        self.screenshot_format = screenshot_format
        self.jpeg_quality = jpeg_quality
        self.heartbeat = heartbeat
        self.timeout = timeout
        self.render_mode = render_mode
        self.env_options = dict(env_options)
        self._init_lazy_state()

    def _init_lazy_state(self) -> None:
        self._connection: EnvConnection | None = None
        self.env_id: str | None = None
        self._parts: tuple[str, ...] = tuple(self.env_options.get("observation", DEFAULT_OBSERVATION))
        self._spaces: tuple[gymnasium.Space, gymnasium.Space] | None = None
        self._last_screenshot: np.ndarray | None = None
        self._heartbeat_stop = threading.Event()
        self._lock = threading.Lock()
        self._closed = False

    # ------------------------------------------------------------------ pickling and connecting
    def __getstate__(self) -> dict[str, Any]:
        """Only what is needed to reconnect: address, token, task and options (not the env id)."""
        keep = (
            "task_id",
            "address",
            "token",
            "screenshot_format",
            "jpeg_quality",
            "heartbeat",
            "timeout",
            "render_mode",
            "env_options",
        )
        return {key: self.__dict__[key] for key in keep}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._init_lazy_state()

    def _ensure(self) -> tuple[EnvConnection, str]:
        """Connect and create the env on the server (once)."""
        with self._lock:
            if self._closed:
                raise EnvClosedError(
                    f"this RemoteEnv ({self.task_id or 'no task'} at {self.address}) was closed; make a new RemoteEnv"
                )
            if self._connection is not None and self.env_id is not None:
                return self._connection, self.env_id
            connection = self._connection or EnvConnection(self.address, self.token, self.timeout)
            self._connection = connection
            reply = connection.call(
                "CreateEnv",
                pb.CreateEnvRequest(
                    task_id=self.task_id or "",
                    options_json=json.dumps(self.env_options),
                    screenshot_format=self.screenshot_format,
                    jpeg_quality=self.jpeg_quality,
                ),
            )
            self.env_id = reply.env_id
            self._parts = tuple(reply.observation_parts)
            self._spaces = (
                observation_space(reply.width, reply.height, self._parts),
                Unicode(max_length=reply.action_max_length),
            )
            if self.heartbeat:
                self._start_heartbeat(reply.lease_ttl_s)
            return connection, reply.env_id

    def _start_heartbeat(self, ttl: float) -> None:
        """Renew the lease every ``ttl/3`` s; the thread holds only a weak reference to ``self``."""
        stop, this = self._heartbeat_stop, weakref.ref(self)

        def beat() -> None:
            while not stop.wait(ttl * HEARTBEAT_FRACTION):
                env = this()
                if env is None or env._connection is None or env.env_id is None:
                    return
                try:
                    env._connection.call("RenewLease", pb.EnvRef(env_id=env.env_id), env.env_id, timeout=10.0)
                except Exception:  # noqa: BLE001 - a lost env shows at the next real call
                    return
                del env

        threading.Thread(target=beat, name=f"env-heartbeat-{self.env_id}", daemon=True).start()

    @property
    def observation_space(self) -> gymnasium.Space:  # type: ignore[override]
        """The same ``Dict`` space ``DesktopEnv`` declares (connects to learn the screen size)."""
        return self._space(0)

    @property
    def action_space(self) -> gymnasium.Space:  # type: ignore[override]
        """A ``Unicode`` text space, as ``DesktopEnv``'s."""
        return self._space(1)

    def _space(self, index: int) -> gymnasium.Space:
        if self._spaces is None:
            self._ensure()
        assert self._spaces is not None
        return self._spaces[index]

    # ------------------------------------------------------------------ the Gymnasium API
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[dict, dict]:
        super().reset(seed=seed)
        connection, env_id = self._ensure()
        request = pb.ResetRequest(env_id=env_id, options_json=json.dumps(options or {}))
        if seed is not None:
            request.has_seed, request.seed = True, int(seed)
        observation, _, _, _, info = decode_step(connection.call("Reset", request, env_id), self._parts)
        self._last_screenshot = observation.get("screenshot")
        return observation, info

    def step(self, action: Any) -> tuple[dict, float, bool, bool, dict]:
        connection, env_id = self._ensure()
        text, is_json = encode_action(action)
        reply = connection.call("Step", pb.StepRequest(env_id=env_id, action=text, action_is_json=is_json), env_id)
        observation, reward, terminated, truncated, info = decode_step(reply, self._parts)
        self._last_screenshot = observation.get("screenshot", self._last_screenshot)
        return observation, reward, terminated, truncated, info

    def describe(self, fmt: str = "python") -> str:
        """Prompt text for the actions and app APIs offered now (as ``DesktopEnv.describe``)."""
        connection, env_id = self._ensure()
        return connection.call("Describe", pb.DescribeRequest(env_id=env_id, fmt=fmt), env_id).text

    def tool_schemas(self) -> list[dict[str, Any]]:
        """OpenAI function-calling schemas of what is offered now (as ``DesktopEnv.tool_schemas``)."""
        connection, env_id = self._ensure()
        reply = connection.call("Describe", pb.DescribeRequest(env_id=env_id, fmt="python"), env_id)
        return json.loads(reply.tool_schemas_json)

    def render(self) -> np.ndarray | None:
        return self._last_screenshot if self.render_mode == "rgb_array" else None

    def close(self) -> None:
        """Close the env on the server (its desktop goes back to the pool) and the channel.

        Every later call raises ``EnvClosedError`` (a pickled copy connects anew); closing twice is fine.
        """
        self._heartbeat_stop.set()
        with self._lock:
            connection, env_id = self._connection, self.env_id
            self._connection, self.env_id, self._closed = None, None, True
        if connection is not None:
            if env_id is not None:
                try:
                    connection.call("Close", pb.EnvRef(env_id=env_id), env_id, timeout=60.0)
                except Exception:  # noqa: BLE001 - a lost env needs no closing; the lease reclaims the rest
                    pass
            connection.close()
        super().close()

    def __del__(self) -> None:
        self._heartbeat_stop.set()
