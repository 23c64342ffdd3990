"""Every error desktop-gym raises, under one root: ``except DesktopGymError`` catches them all.

One module a family: backends, guest, apps (inside the desktop), tasks (and verifiers), actions,
env (the env and its server), train (and evaluation), apigen; :mod:`.base` holds the root. Import
them from here, ``desktop_gym.errors.X``: the family modules are where they are written, not an API.

Stdlib bases are kept where callers rely on them (``UnknownTaskError`` is a ``KeyError``, a guest
"not found" is a ``LookupError``). Each class has a short ``code``; errors that cross the guest's
gRPC boundary travel as ``(status code, error code, message)`` and :func:`from_code` rebuilds the
same class on the client side (android_env's ``errors.from_code``).

The guest agent imports this package, so it imports nothing heavy (no gymnasium, no grpc). The one
class that needs gymnasium, :class:`EpisodeNotStartedError` (a ``gymnasium.error.ResetNeeded``), is
built on first access.
"""

from __future__ import annotations

from typing import Any

from .actions import (
    ActionError,
    ActionParseError,
    ArgumentError,
    CoordinateError,
    ElementError,
    LimitError,
)
from .apigen import (
    LLMError,
    PromptError,
    RecordingMissError,
    RegistrationError,
    ReplyFormatError,
    SandboxError,
    TaskReferenceError,
    UnknownTargetError,
)
from .apps import (
    A11yError,
    A11yNodeNotFoundError,
    A11yTimeoutError,
    A11yUnavailableError,
    ApiArgumentError,
    ApiCallError,
    AppLaunchError,
    AppPluginError,
    DevToolsError,
    OfficeProfileError,
    UnknownApiMethodError,
    UnknownAppApiError,
    UnoError,
    UnoTimeoutError,
    WindowNotFoundError,
)
from .backends import (
    BackendCheckError,
    BackendError,
    EngineUnavailableError,
    ImageBuildError,
    QmpError,
    RootfsError,
    SystemDependencyError,
)
from .base import (
    BY_CODE,
    ERROR_CODE_METADATA_KEY,
    DesktopGymError,
    WaitTimeoutError,
)
from .env import (
    CapacityError,
    EnvBusyError,
    EnvClosedError,
    EnvLostError,
    EnvServerError,
    EpisodeNotRunningError,
    ResetFailedError,
    ServerDrainingError,
    UnknownEnvError,
    UnsendableActionError,
    VectorStepError,
    VideoError,
    episode_not_started_error,
)
from .guest import (
    GUEST_ERRORS_BY_STATUS,
    ApiCallFailedError,
    AppLaunchFailedError,
    GuestError,
    GuestFileNotFoundError,
    GuestInvalidArgumentError,
    GuestNeverAnsweredError,
    GuestNotFoundError,
    GuestPermissionError,
    GuestPreconditionError,
    GuestTimeoutError,
    GuestUnavailableError,
    GuestUnsupportedError,
    InputCancelledError,
    status_for,
)
from .tasks import (
    ProgramDropped,
    TaskError,
    TaskFileError,
    TaskSetupError,
    TemplateError,
    UnknownTaskError,
    UnknownVerifierError,
    VerifierError,
)
from .train import (
    ConfigError,
    ModelNotAvailableError,
    PromptTooLongError,
    ResultsError,
    TrainingError,
    UnknownAgentError,
)


def __getattr__(name: str) -> Any:
    if name == "EpisodeNotStartedError":
        cls = episode_not_started_error()
        globals()[name] = cls
        return cls
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def from_code(code: str | None, message: str, status: str | None = None) -> DesktopGymError:
    """Rebuild the error a remote side raised.

    Args:
        code: the error's ``code`` (from :data:`ERROR_CODE_METADATA_KEY`), or None.
        message: its message.
        status: the gRPC status code name, used when ``code`` is missing or unknown.

    Returns:
        An instance of the class registered under ``code``; else the guest error for ``status``;
        else a plain :class:`GuestError`.
    """
    if code == "episode_not_started":
        episode_not_started_error()  # built (and registered) once, on first use
    cls: type[DesktopGymError] | None = BY_CODE.get(code or "")
    if cls is None:
        cls = GUEST_ERRORS_BY_STATUS.get(status or "", GuestError)
    return cls(message)


def is_known_code(code: str) -> bool:
    """Whether ``code`` names an error class of this package (so :func:`from_code` rebuilds that class)."""
    return code == "episode_not_started" or code in BY_CODE


__all__ = [
    "A11yError",
    "A11yNodeNotFoundError",
    "A11yTimeoutError",
    "A11yUnavailableError",
    "ActionError",
    "ActionParseError",
    "ApiArgumentError",
    "ApiCallError",
    "ApiCallFailedError",
    "AppLaunchError",
    "AppLaunchFailedError",
    "AppPluginError",
    "DevToolsError",
    "ArgumentError",
    "BackendCheckError",
    "BackendError",
    "CapacityError",
    "ConfigError",
    "CoordinateError",
    "DesktopGymError",
    "ElementError",
    "ERROR_CODE_METADATA_KEY",
    "EngineUnavailableError",
    "EnvBusyError",
    "EnvClosedError",
    "EnvLostError",
    "EnvServerError",
    "EpisodeNotRunningError",
    "EpisodeNotStartedError",  # noqa: F822 - built on first access by __getattr__
    "GUEST_ERRORS_BY_STATUS",
    "GuestError",
    "GuestFileNotFoundError",
    "GuestInvalidArgumentError",
    "GuestNeverAnsweredError",
    "GuestNotFoundError",
    "GuestPermissionError",
    "GuestPreconditionError",
    "GuestTimeoutError",
    "GuestUnavailableError",
    "GuestUnsupportedError",
    "ImageBuildError",
    "InputCancelledError",
    "LLMError",
    "LimitError",
    "ModelNotAvailableError",
    "OfficeProfileError",
    "PromptError",
    "PromptTooLongError",
    "QmpError",
    "RecordingMissError",
    "RegistrationError",
    "ReplyFormatError",
    "ResetFailedError",
    "ResultsError",
    "ProgramDropped",
    "RootfsError",
    "SandboxError",
    "ServerDrainingError",
    "SystemDependencyError",
    "TaskError",
    "TaskFileError",
    "TaskReferenceError",
    "TaskSetupError",
    "TemplateError",
    "TrainingError",
    "UnknownAgentError",
    "UnknownApiMethodError",
    "UnknownAppApiError",
    "UnknownEnvError",
    "UnknownTargetError",
    "UnknownTaskError",
    "UnknownVerifierError",
    "UnoError",
    "UnoTimeoutError",
    "UnsendableActionError",
    "VectorStepError",
    "VideoError",
    "VerifierError",
    "WaitTimeoutError",
    "WindowNotFoundError",
    "from_code",
    "status_for",
]

# Tracebacks, reprs and pickles name the public path, as when this package was one module.
for _name in __all__:
    _value = globals().get(_name)
    if isinstance(_value, type):
        _value.__module__ = __name__
del _name, _value
