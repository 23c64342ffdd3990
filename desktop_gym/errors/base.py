"""The root class, the registry of codes it keeps, and the errors that belong to no one family."""

from __future__ import annotations

from typing import Any, ClassVar

#: Trailing-metadata key carrying an error's ``code`` across gRPC.
ERROR_CODE_METADATA_KEY = "x-desktop-gym-error"

#: ``code`` -> the class that declared it first (what :func:`desktop_gym.errors.from_code` rebuilds).
BY_CODE: dict[str, type[DesktopGymError]] = {}


class DesktopGymError(Exception):
    """Root of every desktop-gym error.

    A subclass names its short wire code in its header, ``class QmpError(DesktopGymError,
    RuntimeError, code="qmp")``, and is registered under it; ``code = "qmp"`` in the body works too.
    """

    code: ClassVar[str] = "desktop_gym"

    def __init_subclass__(cls, code: str | None = None, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if code is not None:
            cls.code = code
        if "code" in cls.__dict__:
            BY_CODE.setdefault(cls.code, cls)


BY_CODE[DesktopGymError.code] = DesktopGymError


class MessageKeyError(KeyError):
    """A ``KeyError`` whose ``str`` is its message (``KeyError`` alone shows the message's repr)."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class WaitTimeoutError(DesktopGymError, TimeoutError, code="wait_timeout"):
    """A polled condition did not hold in time; the message names what was awaited."""
