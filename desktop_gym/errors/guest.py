"""The guest agent's errors, as a client sees them, and the gRPC status each travels under."""

from __future__ import annotations

from .backends import BackendError
from .base import DesktopGymError


class GuestError(DesktopGymError, RuntimeError, code="guest"):
    """The guest agent answered with an error (the message is the guest's)."""


class GuestUnavailableError(GuestError, code="guest_unavailable"):
    """The guest agent never answered (deadline passed, socket gone): the one type every backend raises."""


class GuestNeverAnsweredError(GuestUnavailableError, BackendError, TimeoutError, code="guest_never_answered"):
    """A backend started a desktop but its guest agent never answered within the startup timeout."""


class GuestNotFoundError(GuestError, LookupError, code="not_found"):
    """The guest looked for something (a window, an app, an API method) that is not there."""


class GuestFileNotFoundError(GuestNotFoundError, FileNotFoundError, code="file_not_found"):
    """A file or folder asked for does not exist in the desktop."""


class GuestInvalidArgumentError(GuestError, ValueError, code="invalid_argument"):
    """The guest refused a request's arguments."""


class GuestPermissionError(GuestError, PermissionError, code="permission_denied"):
    """The desktop's user may not do that (read a file, signal a process)."""


class GuestTimeoutError(GuestError, TimeoutError, code="guest_timeout"):
    """A wait inside the guest ran out (an app, a UNO call, the a11y tree); the guest itself answered."""


class GuestUnsupportedError(GuestError, NotImplementedError, code="unsupported"):
    """The guest cannot do that here (a missing library, an app without that feature)."""


class GuestPreconditionError(GuestError, code="failed_precondition"):
    """The desktop is not in a state that allows the request (an app did not start, the app refused a call)."""


class AppLaunchFailedError(GuestPreconditionError, code="app_launch"):
    """An app did not start, or its window/UNO did not come up in time."""


class ApiCallFailedError(GuestPreconditionError, code="api_call"):
    """The app refused a well-formed API call (e.g. a UNO exception); the agent reads the message."""


class InputCancelledError(GuestPreconditionError, code="input_cancelled"):
    """Input in flight was stopped by ``InputController.cancel`` (the session was reset)."""


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


def status_for(cls: type[GuestError]) -> str:
    """The gRPC status code name a guest error travels under (its nearest class in the status table)."""
    for base in cls.__mro__:
        for status, guest_cls in GUEST_ERRORS_BY_STATUS.items():
            if guest_cls is base:
                return status
    return "INTERNAL"
