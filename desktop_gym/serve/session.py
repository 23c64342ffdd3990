"""One env hosted by the env server: its DesktopEnv, lease, lock and the figures a dashboard shows.

Also the checks on what a client may ask for in ``CreateEnv`` and ``Reset`` options: clients pick
DesktopEnv options, never the backend (that is the server's).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..backends import Backend
from .wire import SCREENSHOT_FORMATS

#: CreateEnv option -> (accepted types, description); anything else is refused by name.
ENV_OPTIONS: dict[str, tuple[tuple[type, ...], str]] = {
    "observation": ((list,), "list of observation part names"),
    "coordinates": ((str,), '"pixel" or "normalized"'),
    "action_mode": ((str,), '"hybrid", "gui" or "api"'),
    "api_scope": ((str,), '"focused" or "all"'),
    "app_info_max_chars": ((int,), "integer"),
    "max_steps": ((int, type(None)), "integer or null"),
    "a11y_max_nodes": ((int,), "integer"),
    "a11y_timeout": ((int, float), "number of seconds"),
    "settle_timeout": ((int, float), "number of seconds"),
}
OPTION_LIMITS = {
    "settle_timeout": (0, 30),
    "max_steps": (1, 10_000),
    "a11y_max_nodes": (0, 20_000),
    "a11y_timeout": (0.1, 60),
    "app_info_max_chars": (4, 1 << 20),
}
RESET_OPTIONS = {"task_id": (str,), "params": (dict,), "task": (dict,), "prefetch": (dict,)}
MAX_ENV_ID_CHARS = 128


def check_env_options(options: dict[str, Any]) -> dict[str, Any]:
    """Validate ``CreateEnv`` options; return them unchanged.

    Raises:
        ValueError: an unknown option, a wrong type or a value out of range (named in the message).
    """
    for key, value in options.items():
        if key not in ENV_OPTIONS:
            raise ValueError(f"options_json.{key}: unknown env option (known: {', '.join(sorted(ENV_OPTIONS))})")
        types, description = ENV_OPTIONS[key]
        if isinstance(value, bool) or not isinstance(value, types):
            raise ValueError(f"options_json.{key}: expected {description}, got {type(value).__name__}")
        if key == "observation" and not all(isinstance(part, str) for part in value):
            raise ValueError("options_json.observation: expected a list of strings")
        if key in OPTION_LIMITS and value is not None:
            low, high = OPTION_LIMITS[key]
            if not low <= value <= high:
                raise ValueError(f"options_json.{key}: {value} is outside [{low}, {high}]")
    return options


def check_reset_options(options: dict[str, Any]) -> dict[str, Any]:
    """Validate ``Reset`` options (``task_id``, ``params``, an inline ``task``, ``prefetch``); return them unchanged.

    Raises:
        ValueError: an unknown key or a wrong type (named in the message), or an inline task that
            is not a valid task definition (``TaskFileError``: before the env is touched, so a bad
            definition does not mark it crashed).
    """
    for key, value in options.items():
        if key not in RESET_OPTIONS:
            raise ValueError(f"options_json.{key}: unknown reset option (known: {', '.join(RESET_OPTIONS)})")
        if not isinstance(value, RESET_OPTIONS[key]):
            raise ValueError(
                f"options_json.{key}: expected {RESET_OPTIONS[key][0].__name__}, got {type(value).__name__}"
            )
    if "prefetch" in options:  # the next episode, prepared on a second desktop from the pool
        from ..episode_prefetch import PrefetchRequest
        from ..tasks import get_task

        try:
            request = PrefetchRequest.parse(options["prefetch"], options.get("task_id") or "the env's task")
            if "task_id" in options["prefetch"]:
                get_task(request.task_id)  # an unknown task is the client's error, known before the reset
        except (ValueError, KeyError) as error:
            raise ValueError(f"options_json.prefetch: {error}") from None
    if "task" in options:
        from ..tasks.inline import inline_task

        try:
            inline_task(options["task"])
        except ValueError as error:  # TaskFileError names the field: say where it came from too
            raise ValueError(f"options_json.task: {error}") from None
    return options


def check_screenshot_format(fmt: str, quality: int) -> tuple[str, int]:
    """``(format, quality)`` with defaults filled in ('' = raw, 0 = 80).

    Raises:
        ValueError: unknown format or quality outside 1-100.
    """
    fmt = fmt or "raw"
    if fmt not in SCREENSHOT_FORMATS:
        raise ValueError(f"screenshot_format: must be one of {', '.join(SCREENSHOT_FORMATS)}, got {fmt!r}")
    quality = quality or 80
    if not 1 <= quality <= 100:
        raise ValueError(f"jpeg_quality: must be between 1 and 100, got {quality}")
    return fmt, quality


@dataclass(eq=False)
class EnvSession:
    """An env on the server.

    Attributes:
        env_id: ``"<server id>-<n>-<tag>"`` (see ``env_ids``): tells a restarted server's ids from the old ones.
        env: the ``DesktopEnv`` (or load-test env) on a pooled desktop (``backend``: the one it
            holds now; a prefetching env holds a second one, and the two swap at each prefetched reset).
        state: ``idle``, ``resetting``, ``stepping`` or ``crashed``.
        lease_deadline: ``time.monotonic()`` after which the env is reclaimed.
    """

    env_id: str
    task_id: str
    env: Any
    screenshot_format: str
    jpeg_quality: int
    lease_ttl: float
    lease_deadline: float = 0.0
    created: float = field(default_factory=time.monotonic)
    state: str = "idle"
    step: int = 0
    episode_return: float = 0.0
    last_error: str = ""
    crashed_episode: bool = False
    last_screenshot: np.ndarray | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)
    waiting: int = 0  # calls queued on ``lock`` (bounded: a flood on one env must not eat every worker)

    @property
    def backend(self) -> Backend:
        """The pooled desktop the env runs its episode on now."""
        return self.env.backend

    def renew(self) -> None:
        """Push the lease deadline ``lease_ttl`` into the future."""
        self.lease_deadline = time.monotonic() + self.lease_ttl

    def summary(self) -> dict[str, Any]:
        """What ``ListEnvs`` and the dashboard show for this env."""
        return {
            "env_id": self.env_id,
            "task_id": self.task_id,
            "state": self.state,
            "step": self.step,
            "episode_return": self.episode_return,
            "uptime_s": time.monotonic() - self.created,
            "last_error": self.last_error,
            "lease_left_s": max(0.0, self.lease_deadline - time.monotonic()),
        }


def blank_observation(env: Any) -> dict[str, Any]:
    """An observation inside ``env.observation_space`` with nothing in it (for a desktop that died)."""
    observation: dict[str, Any] = {}
    for key, space in env.observation_space.spaces.items():
        observation[key] = np.zeros(space.shape, dtype=np.uint8) if key == "screenshot" else ""
    return observation
