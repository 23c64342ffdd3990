"""The outcome every verifier returns."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class VerifierResult:
    """Whether a task was solved, a score in [0, 1], and details saying what was checked.

    Attributes:
        success: the task's success criterion holds.
        score: partial credit in [0, 1] (1.0 exactly when ``success``).
        reason: one sentence naming the first failed check, or what passed.
        details: per-check facts (expected vs found), JSON-serialisable.
    """

    success: bool
    score: float
    reason: str
    details: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def passed(cls, reason: str, **details: Any) -> VerifierResult:
        return cls(True, 1.0, reason, details)

    @classmethod
    def failed(cls, reason: str, score: float = 0.0, **details: Any) -> VerifierResult:
        return cls(False, score, reason, details)

    def to_dict(self) -> dict[str, Any]:
        return {"success": self.success, "score": self.score, "reason": self.reason, "details": self.details}
