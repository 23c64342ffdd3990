"""The gRPC face of ``EnvServer``: requests in, typed Python calls, status codes out.

Status codes: unknown env (an id no run of the server issued) -> NOT_FOUND; bad options, types
or a malformed JSON action -> INVALID_ARGUMENT (an action the env cannot use is the step's
``last_action_error`` instead, as with ``DesktopEnv``); no capacity or a busy env ->
RESOURCE_EXHAUSTED; draining -> UNAVAILABLE; step before reset -> FAILED_PRECONDITION; an env
that is gone (reclaimed, or from an earlier server run) -> DATA_LOSS with
``x-desktop-gym-error: env_lost`` (the client's ``EnvLostError``). Every message names the call
and the env id, field or limit at fault.
"""

from __future__ import annotations

import functools
import json
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import grpc

from .. import errors
from .protos import env_pb2 as pb
from .protos import env_pb2_grpc as pb_grpc
from .wire import MAX_ACTION_CHARS, dumps, encode_step, loads_object

if TYPE_CHECKING:
    from .server import EnvServer

log = logging.getLogger(__name__)


def _status(exc: BaseException) -> tuple[grpc.StatusCode, str | None]:
    """The status a failure travels under, and its error ``code`` so the client rebuilds the same type."""
    code = exc.code if isinstance(exc, errors.DesktopGymError) else None
    if isinstance(exc, errors.EnvLostError):
        return grpc.StatusCode.DATA_LOSS, code
    if isinstance(exc, errors.UnknownTaskError | errors.ActionParseError | ValueError | TypeError):
        return grpc.StatusCode.INVALID_ARGUMENT, code
    if isinstance(exc, errors.UnknownEnvError):
        return grpc.StatusCode.NOT_FOUND, code
    if isinstance(exc, errors.CapacityError | errors.EnvBusyError):
        return grpc.StatusCode.RESOURCE_EXHAUSTED, code
    if isinstance(exc, errors.ServerDrainingError):
        return grpc.StatusCode.UNAVAILABLE, code
    if isinstance(exc, errors.EpisodeNotStartedError):
        return grpc.StatusCode.FAILED_PRECONDITION, code
    return grpc.StatusCode.INTERNAL, code or errors.EnvServerError.code


def _rpc(method: Callable) -> Callable:
    """Turn exceptions into status codes whose message names the call and the env."""

    @functools.wraps(method)
    def wrapper(self: EnvServicer, request: Any, context: grpc.ServicerContext) -> Any:
        try:
            return method(self, request, context)
        except Exception as exc:  # noqa: BLE001 - every failure must reach the client as a status
            code, error_code = _status(exc)
            message = str(exc) or type(exc).__name__
            if code == grpc.StatusCode.INTERNAL:
                log.exception("%s failed", method.__name__)
                message = f"{type(exc).__name__}: {message}"
            env_id = getattr(request, "env_id", "")
            where = f"{method.__name__} on env {env_id[:64]!r}" if env_id else method.__name__
            if error_code:
                context.set_trailing_metadata(((errors.ERROR_CODE_METADATA_KEY, error_code),))
            context.abort(code, f"{where}: {message}")

    return wrapper


class EnvServicer(pb_grpc.EnvServiceServicer):
    """Implements ``EnvService`` over an ``EnvServer``."""

    def __init__(self, server: EnvServer) -> None:
        self.server = server

    @_rpc
    def CreateEnv(self, request: pb.CreateEnvRequest, context: grpc.ServicerContext) -> pb.CreateEnvReply:
        options = loads_object(request.options_json, "options_json")
        session = self.server.create_env(request.task_id, options, request.screenshot_format, request.jpeg_quality)
        env = session.env
        width, height = env.backend.screen_size
        return pb.CreateEnvReply(
            env_id=session.env_id,
            lease_ttl_s=session.lease_ttl,
            width=width,
            height=height,
            observation_parts=list(env.observation_space.spaces),
            action_max_length=env.action_space.max_length,
            server_id=self.server.server_id,
        )

    @_rpc
    def Reset(self, request: pb.ResetRequest, context: grpc.ServicerContext) -> pb.StepReply:
        options = loads_object(request.options_json, "options_json")
        seed = request.seed if request.has_seed else None
        session, observation, info = self.server.reset(request.env_id, seed, options)
        return encode_step(observation, 0.0, False, False, info, session.screenshot_format, session.jpeg_quality)

    @_rpc
    def Step(self, request: pb.StepRequest, context: grpc.ServicerContext) -> pb.StepReply:
        # As DesktopEnv: an action the env cannot use (too long, not an action) is the step's
        # last_action_error, and the episode goes on. JSON over the text limit stays text, so the
        # env refuses it by its length without decoding it.
        action: Any = request.action
        if request.action_is_json and len(action) <= MAX_ACTION_CHARS:
            try:
                action = json.loads(action)
            except json.JSONDecodeError as error:
                raise ValueError(f"action: not valid JSON ({error.msg} at position {error.pos})") from None
        session, observation, reward, terminated, truncated, info = self.server.step(request.env_id, action)
        return encode_step(
            observation, reward, terminated, truncated, info, session.screenshot_format, session.jpeg_quality
        )

    @_rpc
    def Close(self, request: pb.EnvRef, context: grpc.ServicerContext) -> pb.Empty:
        self.server.close_env(request.env_id)
        return pb.Empty()

    @_rpc
    def RenewLease(self, request: pb.EnvRef, context: grpc.ServicerContext) -> pb.LeaseReply:
        session = self.server.session(request.env_id)  # looking it up renews it
        return pb.LeaseReply(lease_ttl_s=session.lease_ttl)

    @_rpc
    def Describe(self, request: pb.DescribeRequest, context: grpc.ServicerContext) -> pb.DescribeReply:
        env = self.server.session(request.env_id).env
        return pb.DescribeReply(text=env.describe(request.fmt or "python"), tool_schemas_json=dumps(env.tool_schemas()))

    @_rpc
    def ListEnvs(self, request: pb.Empty, context: grpc.ServicerContext) -> pb.ListEnvsReply:
        fields = set(pb.EnvSummary.DESCRIPTOR.fields_by_name)
        summaries = [
            pb.EnvSummary(**{key: value for key, value in env.items() if key in fields})
            for env in self.server.list_envs()
        ]
        return pb.ListEnvsReply(envs=summaries)

    @_rpc
    def Stats(self, request: pb.Empty, context: grpc.ServicerContext) -> pb.StatsReply:
        return pb.StatsReply(stats_json=dumps(self.server.status()))

    @_rpc
    def Health(self, request: pb.Empty, context: grpc.ServicerContext) -> pb.HealthReply:
        counts = self.server.pool.counts()
        return pb.HealthReply(
            serving=not self.server.draining,
            draining=self.server.draining,
            server_id=self.server.server_id,
            envs=counts["in_use"],
            pool_ready=counts["ready"],
        )

    @_rpc
    def Thumbnail(self, request: pb.ThumbnailRequest, context: grpc.ServicerContext) -> pb.ThumbnailReply:
        data, width, height = self.server.thumbnail(request.env_id, request.max_width or 320)
        return pb.ThumbnailReply(jpeg=data, width=width, height=height)
