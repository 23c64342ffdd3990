"""Every error desktop-gym raises, under one root: ``except DesktopGymError`` catches them all.

Families: backend, guest, task, action, verifier, env (episode/reset) and the env server's. Stdlib
bases are kept where callers rely on them (``UnknownTaskError`` is a ``KeyError``, a guest "not
found" is a ``LookupError``). Each class has a short ``code``; errors that cross the guest's gRPC
boundary travel as ``(status code, error code, message)`` and :func:`from_code` rebuilds the same
class on the client side (android_env's ``errors.from_code``).

The guest agent imports this module, so it imports nothing heavy (no gymnasium, no grpc). The one
class that needs gymnasium, :class:`EpisodeNotStartedError` (a ``gymnasium.error.ResetNeeded``), is
built on first access.
"""

from __future__ import annotations

from typing import Any, ClassVar

#: Trailing-metadata key carrying an error's ``code`` across gRPC.
ERROR_CODE_METADATA_KEY = "x-desktop-gym-error"

_BY_CODE: dict[str, type[DesktopGymError]] = {}


class DesktopGymError(Exception):
    """Root of every desktop-gym error."""

    code: ClassVar[str] = "desktop_gym"

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "code" in cls.__dict__:
            _BY_CODE.setdefault(cls.code, cls)


_BY_CODE[DesktopGymError.code] = DesktopGymError


class WaitTimeoutError(DesktopGymError, TimeoutError):
    """A polled condition did not hold in time; the message names what was awaited."""

    code = "wait_timeout"


# -- backends ------------------------------------------------------------------------------------


class BackendError(DesktopGymError, RuntimeError):
    """A backend could not start (or keep) its desktop."""

    code = "backend"


# -- the guest agent -----------------------------------------------------------------------------


class GuestError(DesktopGymError, RuntimeError):
    """The guest agent answered with an error (the message is the guest's)."""

    code = "guest"


class GuestUnavailableError(GuestError):
    """The guest agent never answered (deadline passed, socket gone): the one type every backend raises."""

    code = "guest_unavailable"


class GuestNeverAnsweredError(GuestUnavailableError, BackendError, TimeoutError):
    """A backend started a desktop but its guest agent never answered within the startup timeout."""

    code = "guest_never_answered"


class GuestNotFoundError(GuestError, LookupError):
    """The guest looked for something (a window, an app, an API method) that is not there."""

    code = "not_found"


class GuestFileNotFoundError(GuestNotFoundError, FileNotFoundError):
    """A file or folder asked for does not exist in the desktop."""

    code = "file_not_found"


class GuestInvalidArgumentError(GuestError, ValueError):
    """The guest refused a request's arguments."""

    code = "invalid_argument"


class GuestPermissionError(GuestError, PermissionError):
    """The desktop's user may not do that (read a file, signal a process)."""

    code = "permission_denied"


class GuestTimeoutError(GuestError, TimeoutError):
    """A wait inside the guest ran out (an app, a UNO call, the a11y tree); the guest itself answered."""

    code = "guest_timeout"


class GuestUnsupportedError(GuestError, NotImplementedError):
    """The guest cannot do that here (a missing library, an app without that feature)."""

    code = "unsupported"


class GuestPreconditionError(GuestError):
    """The desktop is not in a state that allows the request (an app did not start, the app refused a call)."""

    code = "failed_precondition"


class AppLaunchFailedError(GuestPreconditionError):
    """An app did not start, or its window/UNO did not come up in time."""

    code = "app_launch"


class ApiCallFailedError(GuestPreconditionError):
    """The app refused a well-formed API call (e.g. a UNO exception); the agent reads the message."""

    code = "api_call"


#: gRPC status code name -> the guest error it becomes when no finer ``code`` came with it.
GUEST_ERRORS_BY_STATUS: dict[str, type[GuestError]] = {
    "NOT_FOUND": GuestNotFoundError,
    "INVALID_ARGUMENT": GuestInvalidArgumentError,
    "PERMISSION_DENIED": GuestPermissionError,
    "UNIMPLEMENTED": GuestUnsupportedError,
    "ABORTED": GuestTimeoutError,
    "FAILED_PRECONDITION": GuestPreconditionError,
    "UNAVAILABLE": GuestUnavailableError,
    "DEADLINE_EXCEEDED": GuestUnavailableError,
}


# -- tasks ---------------------------------------------------------------------------------------


class TaskError(DesktopGymError):
    """A task could not be found, loaded or set up."""

    code = "task"


class UnknownTaskError(TaskError, KeyError):
    """No task is registered under that id."""

    code = "unknown_task"

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class TaskFileError(TaskError, ValueError):
    """A task file is invalid; the message names the file, the JSON path and the problem."""

    code = "task_file"

    def __init__(self, source: str, location: str = "", problem: str = "") -> None:
        self.source, self.location, self.problem = source, location, problem
        if not problem:
            message = source
        elif location:
            message = f"{source}: {location}: {problem}"
        else:
            message = f"{source}: {problem}"
        super().__init__(message)


class TemplateError(TaskError, ValueError):
    """A template is malformed or names a parameter that does not exist."""

    code = "task_template"


class TaskSetupError(TaskError, RuntimeError):
    """A task's setup failed (a file could not be written, an app did not start, ...)."""

    code = "task_setup"


# -- actions -------------------------------------------------------------------------------------


class ActionError(DesktopGymError):
    """An action could not be parsed or carried out."""

    code = "action"


class ActionParseError(ActionError, ValueError):
    """Agent text, a dict or an object could not be turned into actions; the message says why."""

    code = "action_parse"


# -- verifiers -----------------------------------------------------------------------------------


class VerifierError(DesktopGymError):
    """A verifier is unknown or was configured wrongly (a failed check is a result, not an error)."""

    code = "verifier"


class UnknownVerifierError(VerifierError, KeyError):
    """No verifier is registered under the requested name."""

    code = "unknown_verifier"

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


# -- the env -------------------------------------------------------------------------------------


class ResetFailedError(DesktopGymError, RuntimeError):
    """``reset`` could not set up the episode after its bounded retries; the message lists each try."""

    code = "reset_failed"


class EnvLostError(DesktopGymError, RuntimeError):
    """A remote env is gone (its server restarted or reclaimed it); create a new one."""

    code = "env_lost"


class EnvClosedError(DesktopGymError, RuntimeError):
    """A call on a ``RemoteEnv`` after its ``close()``; make a new env."""

    code = "env_closed"


class UnsendableActionError(DesktopGymError, TypeError):
    """An action a ``RemoteEnv`` cannot send (a typed ``Action``, a set, a value JSON cannot hold)."""

    code = "unsendable_action"


class VectorStepError(DesktopGymError, RuntimeError):
    """Some envs of a vector step failed (an env lost, a server error); the others' results are kept.

    Attributes:
        failures: ``{env index: the exception}``.
        results: one ``(observation, reward, terminated, truncated, info)`` per env, None where it failed.
            The envs that stepped did step: their next step follows these results.
    """

    code = "vector_step"

    def __init__(self, failures: dict[int, BaseException] | str, results: list[Any] | None = None) -> None:
        if isinstance(failures, str):  # rebuilt from its message (``from_code``): no results travel
            self.failures, self.results = {}, list(results or [])
            super().__init__(failures)
            return
        self.failures = failures
        self.results = list(results or [])
        named = "; ".join(f"env {index}: {type(error).__name__}: {error}" for index, error in failures.items())
        super().__init__(f"{len(failures)} of {len(self.results)} envs failed to step ({named})")


class EnvServerError(DesktopGymError, RuntimeError):
    """The env server refused or failed a request."""

    code = "env_server"


class UnknownEnvError(EnvServerError, LookupError):
    """No env with that id lives on this server."""

    code = "unknown_env"


class EnvBusyError(EnvServerError):
    """An env already has a call running and one queued."""

    code = "env_busy"


class ServerDrainingError(EnvServerError):
    """The server is shutting down and takes no new envs."""

    code = "server_draining"


class ConfigError(DesktopGymError, ValueError):
    """A training config names an unknown key or gives a value of the wrong type."""

    code = "training_config"


# -- training ------------------------------------------------------------------------------------


class TrainingError(DesktopGymError, RuntimeError):
    """The built-in trainer cannot go on with its config or its data."""

    code = "training"


class PromptTooLongError(TrainingError, ValueError):
    """A prompt (or the prompt budget plus the answer) does not fit the budget or the model's context."""

    code = "prompt_too_long"


# -- inside the desktop (the guest sends each as its Guest* counterpart: see guest/server.py) -----


class A11yError(DesktopGymError, RuntimeError):
    """The accessibility tree could not be read."""

    code = "a11y"


class A11yUnavailableError(A11yError):
    """No accessibility bus answers (the app or the session bus is gone)."""

    code = "a11y_unavailable"


class A11yTimeoutError(A11yError, TimeoutError):
    """Reading the accessibility tree took longer than its deadline."""

    code = "a11y_timeout"


class A11yNodeNotFoundError(DesktopGymError, LookupError):
    """The node a GUI script needs is not (yet) in the observation's accessibility tree."""

    code = "a11y_node_not_found"


class WindowNotFoundError(DesktopGymError, LookupError):
    """No managed window has the given id."""

    code = "window_not_found"


class AppLaunchError(DesktopGymError, RuntimeError):
    """An application could not be started (or died while starting)."""

    code = "app_start"


class OfficeProfileError(DesktopGymError, RuntimeError):
    """The LibreOffice profile template could not be built."""

    code = "office_profile"


class UnoError(DesktopGymError, RuntimeError):
    """A UNO call failed, or the office is unreachable."""

    code = "uno"


class UnoTimeoutError(UnoError, TimeoutError):
    """A UNO call did not return before its deadline (the office may hang)."""

    code = "uno_timeout"


class ApiArgumentError(DesktopGymError, ValueError):
    """The arguments of an API call do not fit the method's signature; the message names the arg."""

    code = "api_argument"


class UnknownApiMethodError(DesktopGymError, LookupError):
    """The tool class has no such method (the message names the closest ones)."""

    code = "unknown_api_method"


class UnknownAppApiError(DesktopGymError, LookupError):
    """No tool class exists for the app (or tool class name) asked for."""

    code = "unknown_app_api"


class ApiCallError(DesktopGymError, RuntimeError):
    """The app refused a well-formed API call (the message says why)."""

    code = "api_refused"


# -- actions, apps, backends, images, the host's tools -------------------------------------------


class LimitError(ActionError, ValueError):
    """An action asks for more than ``ActionLimits`` allows."""

    code = "action_limit"


class CoordinateError(ActionError, ValueError):
    """A coordinate lies outside the screen (or outside 0-1000 when normalized)."""

    code = "coordinate"


class AppPluginError(DesktopGymError, RuntimeError):
    """An entry point of ``desktop_gym.apps`` does not name an ``AppSpec`` (the message names it)."""

    code = "app_plugin"


class EngineUnavailableError(BackendError):
    """No container engine answers (the message says how to start one)."""

    code = "engine_unavailable"


class QmpError(DesktopGymError, RuntimeError):
    """A QMP command failed or QEMU did not connect."""

    code = "qmp"


class BackendCheckError(DesktopGymError, AssertionError):
    """A backend failed its conformance checks (the message lists each failure)."""

    code = "backend_check"


class ImageBuildError(DesktopGymError, RuntimeError):
    """The image could not be built (the message names the step that failed)."""

    code = "image_build"


class RootfsError(DesktopGymError, RuntimeError):
    """A root filesystem step (mirror lookup, debootstrap, chroot command) failed."""

    code = "rootfs"


class SystemDependencyError(DesktopGymError, RuntimeError):
    """A system package the desktop needs is missing."""

    code = "system_dependency"


class CapacityError(EnvServerError):
    """No desktop can be given out now: the configured maximum or free memory is reached."""

    code = "capacity"


class UnknownAgentError(DesktopGymError, ValueError):
    """An agent string no registered kind understands."""

    code = "unknown_agent"


class ModelNotAvailableError(DesktopGymError, RuntimeError):
    """The default model's wheel (or the libraries to load it) is not installed."""

    code = "model_not_available"


class EpisodeNotRunningError(DesktopGymError, RuntimeError):
    """An action arrived while no episode runs (before ``start``, or after the episode ended)."""

    code = "episode_not_running"


class ResultsError(DesktopGymError, ValueError):
    """A results file or output folder that cannot be used (names the file and the problem)."""

    code = "results"


class ArgumentError(ActionParseError):
    """An argument value is wrong; the caller prefixes the action name."""

    code = "action_argument"


class InputCancelledError(GuestPreconditionError):
    """Input in flight was stopped by ``InputController.cancel`` (the session was reset)."""

    code = "input_cancelled"


# -- API generation ------------------------------------------------------------------------------


class LLMError(DesktopGymError, RuntimeError):
    """A backend could not produce a reply (endpoint down, no recorded reply, bad option)."""

    code = "llm"


class RecordingMissError(LLMError):
    """The recording has no reply for this pipeline step, or one recorded for another prompt."""

    code = "recording_miss"


class ReplyFormatError(DesktopGymError, ValueError):
    """An LLM reply lacks what the stage asked for; the message says what and where.

    Attributes:
        reply: The reply's text (set by the stage that parsed it), for the report.
        tokens: What the call that gave the reply cost (set by the analysis), for the report.
    """

    code = "reply_format"
    reply: str = ""
    tokens: int = 0


class PromptError(DesktopGymError, KeyError):
    """A prompt file is missing, malformed, or refers to a field the stage did not give."""

    code = "prompt"


class SandboxError(DesktopGymError, RuntimeError):
    """The sandbox desktop itself failed (not the candidate): it could not start or lost its app."""

    code = "sandbox"


class TaskReferenceError(DesktopGymError, LookupError):
    """A ``--tasks`` entry is neither a known task id nor free text (``text:...``)."""

    code = "task_reference"


class RegistrationError(DesktopGymError, RuntimeError):
    """The registry file does not have the shape the registration stage edits."""

    code = "registration"


class UnknownTargetError(DesktopGymError, LookupError):
    """No generation target for the app asked for."""

    code = "unknown_target"


def _episode_not_started_error() -> type[DesktopGymError]:
    from gymnasium.error import ResetNeeded

    class EpisodeNotStartedError(DesktopGymError, ResetNeeded, RuntimeError):
        """``step`` was called before ``reset`` or after the episode ended."""

        code = "episode_not_started"

    EpisodeNotStartedError.__module__ = __name__
    return EpisodeNotStartedError


def __getattr__(name: str) -> Any:
    if name == "EpisodeNotStartedError":
        cls = _episode_not_started_error()
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
    if code == "episode_not_started" and "EpisodeNotStartedError" not in globals():
        __getattr__("EpisodeNotStartedError")  # built (and registered) once, on first use
    cls: type[DesktopGymError] | None = _BY_CODE.get(code or "")
    if cls is None:
        cls = GUEST_ERRORS_BY_STATUS.get(status or "", GuestError)
    return cls(message)


def is_known_code(code: str) -> bool:
    """Whether ``code`` names an error class of this module (so :func:`from_code` rebuilds that class)."""
    return code == "episode_not_started" or code in _BY_CODE


def status_for(cls: type[GuestError]) -> str:
    """The gRPC status code name a guest error travels under (its nearest class in the status table)."""
    for base in cls.__mro__:
        for status, guest_cls in GUEST_ERRORS_BY_STATUS.items():
            if guest_cls is base:
                return status
    return "INTERNAL"


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
    "BackendCheckError",
    "BackendError",
    "CapacityError",
    "CoordinateError",
    "DesktopGymError",
    "ERROR_CODE_METADATA_KEY",
    "EngineUnavailableError",
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
    "LimitError",
    "ModelNotAvailableError",
    "OfficeProfileError",
    "PromptTooLongError",
    "QmpError",
    "ResetFailedError",
    "ResultsError",
    "RootfsError",
    "SystemDependencyError",
    "TaskError",
    "TaskFileError",
    "TaskSetupError",
    "TemplateError",
    "TrainingError",
    "UnknownAgentError",
    "UnknownApiMethodError",
    "UnknownAppApiError",
    "UnknownTaskError",
    "UnknownVerifierError",
    "UnoError",
    "UnoTimeoutError",
    "VerifierError",
    "WaitTimeoutError",
    "WindowNotFoundError",
    "from_code",
    "status_for",
]
