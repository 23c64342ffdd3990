"""How observations, infos, options and errors travel between the env server and its clients.

Shared by the server, the blocking ``RemoteEnv`` and the asyncio ``EnvPool``, so both sides
encode and decode the same way. Screenshots travel as raw RGB (fastest on a fast link), JPEG
(~30x smaller) or PNG (lossless), chosen per env.
"""

from __future__ import annotations

import io
import json
import math
from typing import Any

import grpc
import numpy as np

from .. import errors
from ..guest.client import TOKEN_METADATA_KEY
from .protos import env_pb2 as pb

SCREENSHOT_FORMATS = ("raw", "jpeg", "png")
MAX_MESSAGE_BYTES = 64 * 1024 * 1024
MAX_ACTION_CHARS = 64 * 1024  # DesktopEnv's action space
MAX_OPTIONS_CHARS = 64 * 1024
GRPC_OPTIONS = [
    ("grpc.max_send_message_length", MAX_MESSAGE_BYTES),
    ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
]
#: Status codes on which a call that changes nothing (Health, Stats, ListEnvs) may be retried.
RETRYABLE_CODES = (grpc.StatusCode.UNAVAILABLE,)

__all__ = ["TOKEN_METADATA_KEY"]


_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3
_malloc_tuned = False


def keep_large_allocations() -> None:
    """Let glibc reuse freed screenshot-sized blocks instead of mmap/munmap per frame.

    Every raw frame allocates ~2.7 MB a few times (numpy bytes, the protobuf field); above glibc's
    default 128 KiB mmap threshold each one is a fresh mapping whose pages fault in on first touch
    (12.6 ms per 1280x720 frame on a loaded 2-core machine, 2.3 ms with this). Process-wide and
    idempotent; does nothing where glibc is absent.
    """
    global _malloc_tuned
    if _malloc_tuned:
        return
    _malloc_tuned = True
    try:
        import ctypes

        libc = ctypes.CDLL("libc.so.6")
        libc.mallopt(_M_MMAP_THRESHOLD, 64 << 20)
        libc.mallopt(_M_TRIM_THRESHOLD, 256 << 20)
    except (OSError, AttributeError):
        pass


def json_default(value: Any) -> Any:
    """JSON fallback for numpy scalars and arrays (task params, verifier details)."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, (set, tuple)):
        return list(value)
    return repr(value)


def dumps(value: Any) -> str:
    """JSON text of ``value`` (non-finite floats become null, numpy becomes plain Python)."""
    return json.dumps(_finite(value), default=json_default, allow_nan=False)


def _finite(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {str(key): _finite(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(item) for item in value]
    return value


def loads_object(text: str, field: str, max_chars: int = MAX_OPTIONS_CHARS) -> dict[str, Any]:
    """Parse ``text`` as a JSON object for request field ``field`` ('' means {}).

    Raises:
        ValueError: too long, not JSON, or not an object; the message names ``field``.
    """
    if not text:
        return {}
    if len(text) > max_chars:
        raise ValueError(f"{field}: {len(text)} characters is over the limit of {max_chars}")
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        raise ValueError(f"{field}: not valid JSON ({error.msg} at position {error.pos})") from None
    if not isinstance(value, dict):
        raise ValueError(f"{field}: expected a JSON object, got {type(value).__name__}")
    return value


# -- observations -----------------------------------------------------------------------------


def fill_image(target: pb.Image, array: np.ndarray, fmt: str, quality: int = 80) -> None:
    """Write an ``HxWx3`` uint8 array into the ``Image`` message ``target`` in ``fmt`` (raw, jpeg, png).

    Filled in place: building a message and passing it to a parent's constructor copies the
    bytes again (a 1280x720 raw frame took 20 ms that way, 1 ms this way).
    """
    target.height, target.width = int(array.shape[0]), int(array.shape[1])
    target.format = fmt
    if fmt == "raw":
        target.data = np.ascontiguousarray(array).tobytes()
        return
    from PIL import Image

    buffer = io.BytesIO()
    picture = Image.fromarray(array)
    if fmt == "jpeg":
        picture.save(buffer, format="JPEG", quality=quality)
    elif fmt == "png":
        picture.save(buffer, format="PNG", compress_level=1)
    else:
        raise ValueError(f"screenshot_format must be one of {', '.join(SCREENSHOT_FORMATS)}, got {fmt!r}")
    target.data = buffer.getvalue()


def encode_image(array: np.ndarray, fmt: str, quality: int = 80) -> pb.Image:
    """An ``HxWx3`` uint8 array as a new ``Image`` message in ``fmt`` (raw, jpeg or png)."""
    image = pb.Image()
    fill_image(image, array, fmt, quality)
    return image


def decode_image(image: pb.Image) -> np.ndarray:
    """The ``HxWx3`` uint8 array an ``Image`` message carries (a fresh, writable array)."""
    if image.format == "raw":
        expected = image.width * image.height * 3
        if len(image.data) != expected:
            raise errors.EnvServerError(
                f"raw screenshot of {image.width}x{image.height} has {len(image.data)} bytes, expected {expected}"
            )
        return np.frombuffer(image.data, dtype=np.uint8).reshape(image.height, image.width, 3).copy()
    from PIL import Image

    picture = Image.open(io.BytesIO(image.data)).convert("RGB")
    return np.asarray(picture, dtype=np.uint8).copy()


def fill_observation(target: pb.Observation, observation: dict[str, Any], fmt: str, quality: int = 80) -> None:
    """Write a ``DesktopEnv`` observation dict into the ``Observation`` message ``target``."""
    for key, value in observation.items():
        if key == "screenshot":
            fill_image(target.screenshot, value, fmt, quality)
            target.has_screenshot = True
        else:
            target.text[key] = value


def encode_observation(observation: dict[str, Any], fmt: str, quality: int = 80) -> pb.Observation:
    """A ``DesktopEnv`` observation dict as a new ``Observation`` message."""
    message = pb.Observation()
    fill_observation(message, observation, fmt, quality)
    return message


def decode_observation(message: pb.Observation, parts: tuple[str, ...]) -> dict[str, Any]:
    """The observation dict, keys in the order of ``parts`` (the env's observation space)."""
    observation: dict[str, Any] = {}
    for key in parts:
        if key == "screenshot":
            if not message.has_screenshot:
                raise errors.EnvServerError("the server sent an observation without the screenshot part")
            observation[key] = decode_image(message.screenshot)
        else:
            observation[key] = message.text.get(key, "")
    return observation


def encode_step(
    observation: dict[str, Any], reward: float, terminated: bool, truncated: bool, info: dict, fmt: str, quality: int
) -> pb.StepReply:
    """One ``step`` (or ``reset``, with reward 0) result as a ``StepReply``."""
    reply = pb.StepReply(
        reward=float(reward), terminated=bool(terminated), truncated=bool(truncated), info_json=dumps(info)
    )
    fill_observation(reply.observation, observation, fmt, quality)
    return reply


def decode_step(reply: pb.StepReply, parts: tuple[str, ...]) -> tuple[dict[str, Any], float, bool, bool, dict]:
    """``(observation, reward, terminated, truncated, info)`` from a ``StepReply``."""
    info = json.loads(reply.info_json) if reply.info_json else {}
    return decode_observation(reply.observation, parts), reply.reward, reply.terminated, reply.truncated, info


# -- errors -----------------------------------------------------------------------------------


def error_from_rpc(exc: grpc.RpcError, what: str, lost_on_unavailable: bool) -> Exception:
    """The typed error a failed call stands for.

    Args:
        exc: the gRPC error.
        what: the call and env id, for the message (``"Step on env 3f2a-1"``).
        lost_on_unavailable: whether a server that stopped answering means the env is gone (true for
            calls on an existing env: a restarted server has lost every env it held).

    Returns:
        The error the server raised, rebuilt from its ``code`` (``EpisodeNotStartedError``,
        ``UnknownTaskError``, ``UnknownEnvError``, ...); ``EnvLostError`` when the server is gone;
        for a failure that carried no code, ``ValueError`` for INVALID_ARGUMENT, ``LookupError`` for
        NOT_FOUND, else ``EnvServerError``.
    """
    code, details = exc.code(), exc.details() or ""
    error_code = dict(exc.trailing_metadata() or ()).get(errors.ERROR_CODE_METADATA_KEY)
    message = f"{what}: {code.name}: {details}"
    if error_code == errors.EnvLostError.code:
        return errors.EnvLostError(message)
    if error_code and error_code != errors.EnvServerError.code and errors.is_known_code(error_code):
        return errors.from_code(error_code, message)
    if code in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED) and lost_on_unavailable:
        return errors.EnvLostError(f"{message} (the env server is gone; its envs are lost: create a new env)")
    if code == grpc.StatusCode.INVALID_ARGUMENT:
        return ValueError(message)
    if code == grpc.StatusCode.NOT_FOUND:
        return LookupError(message)
    return errors.EnvServerError(message)


def auth_metadata(token: str | None) -> tuple[tuple[str, str], ...]:
    """The call metadata carrying ``token`` (the guest's scheme: ``x-desktop-gym-token``)."""
    return ((TOKEN_METADATA_KEY, token),) if token else ()


def check_bind(address: str, token: str | None) -> None:
    """Refuse to listen beyond this machine without a token.

    Raises:
        ValueError: ``address`` is neither loopback nor a unix socket and ``token`` is empty.
    """
    if address.startswith("unix:") or token:
        return
    host = address.rsplit(":", 1)[0].strip("[]")
    if host not in ("127.0.0.1", "localhost", "::1"):
        raise ValueError(f"refusing to listen on {address} without a token: pass token=... (or bind 127.0.0.1)")
