"""The outcome every verifier returns."""

from __future__ import annotations

from collections.abc import Mapping
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


class CheckFailed(Exception):
    """A check that cannot go on (no such sheet, slide or paragraph): the registry returns it as a failed result.

    Helpers such as ``pick_sheet`` raise it instead of returning a result, so a verifier reads
    straight through and the registered wrapper turns the exception into ``VerifierResult.failed``.

    Attributes:
        reason: the failed result's reason.
        score: the failed result's partial credit.
        details: the failed result's details.
    """

    def __init__(self, reason: str, score: float = 0.0, **details: Any) -> None:
        super().__init__(reason)
        self.reason = reason
        self.score = score
        self.details = details

    def to_result(self, **extra: Any) -> VerifierResult:
        """The failed ``VerifierResult`` this exception stands for, with ``extra`` details added."""
        return VerifierResult.failed(self.reason, score=self.score, **self.details, **extra)


def count_mismatch(
    found: int,
    noun: str,
    /,
    count: int | None = None,
    min_count: int | None = None,
    max_count: int | None = None,
    **details: Any,
) -> VerifierResult | None:
    """The failed result when ``found`` misses the exact / least / most count, else None.

    Args:
        found: How many there are (positional: ``found=`` may be one of the ``details``).
        noun: What is counted, as the message says it (``"slides"``, ``"charts on sheet 'Data'"``).
        count: The exact number.
        min_count: The least number.
        max_count: The most.
        details: Extra details of the failed result (``found=found`` when none are given).
    """
    details = details or {"found": found}
    if count is not None and found != count:
        return VerifierResult.failed(f"expected {count} {noun}, found {found}", **details)
    if min_count is not None and found < min_count:
        return VerifierResult.failed(f"expected at least {min_count} {noun}, found {found}", **details)
    if max_count is not None and found > max_count:
        return VerifierResult.failed(f"expected at most {max_count} {noun}, found {found}", **details)
    return None


def differences_verdict(differences: list[str], what: str, shown: int = 6) -> VerifierResult:
    """A whole-state check's result: passed when ``differences`` is empty, else the first ``shown`` of them."""
    if not differences:
        return VerifierResult.passed(f"the {what} is exactly as expected")
    listed = "; ".join(differences[:shown])
    more = f" (+{len(differences) - shown} more)" if len(differences) > shown else ""
    return VerifierResult.failed(f"{len(differences)} difference(s): {listed}{more}", differences=len(differences))


def sequence_differences(
    have: list[Mapping[str, Any]], want: list[Mapping[str, Any]], keys: tuple[str, ...], unit: str, first: int = 0
) -> list[str]:
    """Each way a found list of parts (paragraphs, slides) differs from the expected one, by part and key.

    Args:
        have / want: the found and expected parts, in order.
        keys: the properties compared.
        unit: what a part is called (``paragraph``); parts are numbered from ``first``.
    """
    differences = [f"{len(have)} {unit}s, expected {len(want)}"] if len(have) != len(want) else []
    for number, (got, wanted) in enumerate(zip(have, want, strict=False), first):
        for key in keys:
            if got.get(key) != wanted.get(key):
                differences.append(f"{unit} {number} {key}: expected {wanted.get(key)!r}, found {got.get(key)!r}")
    return differences
