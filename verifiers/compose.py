"""Combining verifier results: ``all_of``, ``any_of`` and ``not_``.

Checks are given as a list (named ``check 1``, ``check 2``, ... in reasons) or as a mapping from a
name to a result, so a failed composition says which sub-check failed and why.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from .result import VerifierResult

Checks = Sequence[VerifierResult] | Mapping[str, VerifierResult]


def _named(checks: Checks) -> list[tuple[str, VerifierResult]]:
    if isinstance(checks, Mapping):
        items = list(checks.items())
    else:
        items = [(f"check {index}", result) for index, result in enumerate(checks, start=1)]
    for name, result in items:
        if not isinstance(result, VerifierResult):
            raise TypeError(f"{name} is a {type(result).__name__}, not a VerifierResult")
    return items


def _details(items: list[tuple[str, VerifierResult]]) -> dict[str, object]:
    return {"checks": {name: result.to_dict() for name, result in items}}


def all_of(checks: Checks) -> VerifierResult:
    """Success when every check succeeds; the score is the mean of the scores.

    Args:
        checks: results, as a list or a mapping from a check name to its result.

    Returns:
        a result whose reason names the first failed check and repeats its reason; an empty
        ``checks`` succeeds (vacuous truth).
    """
    items = _named(checks)
    if not items:
        return VerifierResult.passed("no checks to run", checks={})
    failed = [(name, result) for name, result in items if not result.success]
    score = sum(min(max(result.score, 0.0), 1.0) for _, result in items) / len(items)
    if not failed:
        return VerifierResult.passed(f"all {len(items)} checks passed", **_details(items))
    name, first = failed[0]
    more = f" (and {len(failed) - 1} more failed)" if len(failed) > 1 else ""
    return VerifierResult.failed(
        f"{name} failed: {first.reason}{more}",
        score=min(score, 0.999999),
        failed_checks=[n for n, _ in failed],
        **_details(items),
    )


def any_of(checks: Checks) -> VerifierResult:
    """Success when at least one check succeeds; the score is the best score.

    Args:
        checks: results, as a list or a mapping from a check name to its result.

    Returns:
        a result naming the first check that passed, or, when none did, every check's reason.
    """
    items = _named(checks)
    if not items:
        return VerifierResult.failed("no checks to run, so none passed", checks={})
    for name, result in items:
        if result.success:
            return VerifierResult.passed(f"{name} passed: {result.reason}", passed_check=name, **_details(items))
    best = max(min(max(result.score, 0.0), 1.0) for _, result in items)
    reasons = "; ".join(f"{name}: {result.reason}" for name, result in items)
    return VerifierResult.failed(f"none of {len(items)} checks passed ({reasons})", score=best, **_details(items))


def not_(check: VerifierResult, name: str = "the check") -> VerifierResult:
    """Success exactly when ``check`` fails (e.g. "the draft file must be gone").

    Args:
        check: the result to negate.
        name: how the reason refers to the negated check.

    Returns:
        a result with score 1.0 or 0.0 that quotes ``check``'s reason.
    """
    if not isinstance(check, VerifierResult):
        raise TypeError(f"{name} is a {type(check).__name__}, not a VerifierResult")
    details = {"negated": check.to_dict()}
    if check.success:
        return VerifierResult.failed(f"{name} passed but must not: {check.reason}", **details)
    return VerifierResult.passed(f"{name} failed as required: {check.reason}", **details)
