"""API generation (``api_generators``): its LLM backends, prompts, sandbox and registration."""

from __future__ import annotations

from .base import DesktopGymError


class LLMError(DesktopGymError, RuntimeError, code="llm"):
    """A backend could not produce a reply (endpoint down, no recorded reply, bad option)."""


class RecordingMissError(LLMError, code="recording_miss"):
    """The recording has no reply for this pipeline step, or one recorded for another prompt."""


class ReplyFormatError(DesktopGymError, ValueError, code="reply_format"):
    """An LLM reply lacks what the stage asked for; the message says what and where.

    Attributes:
        reply: The reply's text (set by the stage that parsed it), for the report.
        tokens: What the call that gave the reply cost (set by the analysis), for the report.
    """

    reply: str = ""
    tokens: int = 0


class PromptError(DesktopGymError, KeyError, code="prompt"):
    """A prompt file is missing, malformed, or refers to a field the stage did not give."""


class SandboxError(DesktopGymError, RuntimeError, code="sandbox"):
    """The sandbox desktop itself failed (not the candidate): it could not start or lost its app."""


class TaskReferenceError(DesktopGymError, LookupError, code="task_reference"):
    """A ``--tasks`` entry is neither a known task id nor free text (``text:...``)."""


class RegistrationError(DesktopGymError, RuntimeError, code="registration"):
    """The registry file does not have the shape the registration stage edits."""


class UnknownTargetError(DesktopGymError, LookupError, code="unknown_target"):
    """No generation target for the app asked for."""
