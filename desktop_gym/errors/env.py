"""The env, remote envs and the env server.

:class:`EpisodeNotStartedError` is a ``gymnasium.error.ResetNeeded``; the guest agent imports this
package and has no gymnasium, so that one class is built on first use (:func:`episode_not_started_error`).
"""

from __future__ import annotations

import functools
from typing import Any

from .base import DesktopGymError


class ResetFailedError(DesktopGymError, RuntimeError, code="reset_failed"):
    """``reset`` could not set up the episode after its bounded retries; the message lists each try."""


class EpisodeNotRunningError(DesktopGymError, RuntimeError, code="episode_not_running"):
    """An action arrived while no episode runs (before ``start``, or after the episode ended)."""


class EnvLostError(DesktopGymError, RuntimeError, code="env_lost"):
    """A remote env is gone (its server restarted or reclaimed it); create a new one."""


class EnvClosedError(DesktopGymError, RuntimeError, code="env_closed"):
    """A call on a ``RemoteEnv`` after its ``close()``; make a new env."""


class UnsendableActionError(DesktopGymError, TypeError, code="unsendable_action"):
    """An action a ``RemoteEnv`` cannot send (a typed ``Action``, a set, a value JSON cannot hold)."""


class VectorStepError(DesktopGymError, RuntimeError, code="vector_step"):
    """Some envs of a vector step failed (an env lost, a server error); the others' results are kept.

    Attributes:
        failures: ``{env index: the exception}``.
        results: one ``(observation, reward, terminated, truncated, info)`` per env, None where it failed.
            The envs that stepped did step: their next step follows these results.
    """

    def __init__(self, failures: dict[int, BaseException] | str, results: list[Any] | None = None) -> None:
        if isinstance(failures, str):  # rebuilt from its message (``from_code``): no results travel
            self.failures, self.results = {}, list(results or [])
            super().__init__(failures)
            return
        self.failures = failures
        self.results = list(results or [])
        named = "; ".join(f"env {index}: {type(error).__name__}: {error}" for index, error in failures.items())
        super().__init__(f"{len(failures)} of {len(self.results)} envs failed to step ({named})")


class EnvServerError(DesktopGymError, RuntimeError, code="env_server"):
    """The env server refused or failed a request."""


class UnknownEnvError(EnvServerError, LookupError, code="unknown_env"):
    """No env with that id lives on this server."""


class EnvBusyError(EnvServerError, code="env_busy"):
    """An env already has a call running and one queued."""


class ServerDrainingError(EnvServerError, code="server_draining"):
    """The server is shutting down and takes no new envs."""


class CapacityError(EnvServerError, code="capacity"):
    """No desktop can be given out now: the configured maximum or free memory is reached."""


@functools.cache
def episode_not_started_error() -> type[DesktopGymError]:
    """``EpisodeNotStartedError``, built (and registered under its code) on the first call."""
    from gymnasium.error import ResetNeeded

    class EpisodeNotStartedError(DesktopGymError, ResetNeeded, RuntimeError, code="episode_not_started"):
        """``step`` was called before ``reset`` or after the episode ended."""

    EpisodeNotStartedError.__module__, EpisodeNotStartedError.__qualname__ = (
        "desktop_gym.errors",
        "EpisodeNotStartedError",
    )
    return EpisodeNotStartedError


class VideoError(DesktopGymError, code="video"):
    """An episode video could not be written (no ffmpeg, no frames, or ffmpeg failed); the message says why."""
