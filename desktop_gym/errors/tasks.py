"""Tasks and verifiers: finding, loading and setting them up (a failed check is a result, not an error)."""

from __future__ import annotations

from .base import DesktopGymError, MessageKeyError


class TaskError(DesktopGymError, code="task"):
    """A task could not be found, loaded or set up."""


class UnknownTaskError(TaskError, MessageKeyError, code="unknown_task"):
    """No task is registered under that id."""


class TaskFileError(TaskError, ValueError, code="task_file"):
    """A task file is invalid; the message names the file, the JSON path and the problem."""

    def __init__(self, source: str, location: str = "", problem: str = "") -> None:
        self.source, self.location, self.problem = source, location, problem
        if not problem:
            message = source
        elif location:
            message = f"{source}: {location}: {problem}"
        else:
            message = f"{source}: {problem}"
        super().__init__(message)


class TemplateError(TaskError, ValueError, code="task_template"):
    """A template is malformed or names a parameter that does not exist."""


class TaskSetupError(TaskError, RuntimeError, code="task_setup"):
    """A task's setup failed (a file could not be written, an app did not start, ...)."""


class ProgramDropped(TaskError, code="program_dropped"):
    """The task miner drops a drawn program; ``reason`` is the report's word (``no-op``, ``undone``, ...)."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason
        self.detail = detail


class VerifierError(DesktopGymError, code="verifier"):
    """A verifier is unknown or was configured wrongly (a failed check is a result, not an error)."""


class UnknownVerifierError(VerifierError, MessageKeyError, code="unknown_verifier"):
    """No verifier is registered under the requested name."""
