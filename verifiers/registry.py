"""Naming verifiers by string: ``@register_verifier("xlsx_cells", reads="file")`` and ``get_verifier``.

A registered verifier takes the artifact it reads as its first argument (for ``reads="file"`` the
saved file's bytes, None when the file is missing; for ``reads="live"`` an object fetched from the
guest, such as an ``ExecResult``) plus keyword arguments, and returns a ``VerifierResult``. The
decorator also turns a missing or unreadable document into a failed result, so a verifier never
raises on a malformed file; a helper that finds a check cannot go on (no such sheet) raises
``CheckFailed``, which the decorator returns as a failed result too.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

from ..errors import UnknownVerifierError
from .result import CheckFailed, VerifierResult

Reads = Literal["file", "live"]
VerifierFn = Callable[..., VerifierResult]
F = TypeVar("F", bound=VerifierFn)


@dataclass(frozen=True)
class VerifierSpec:
    """A registered verifier.

    Attributes:
        name: the string tasks use to name it (``"xlsx_cells"``).
        reads: ``"file"`` (a saved artifact given as bytes) or ``"live"`` (app state via the guest).
        fn: the verifier function.
    """

    name: str
    reads: Reads
    fn: VerifierFn


_REGISTRY: dict[str, VerifierSpec] = {}


def register_verifier(name: str, *, reads: Reads = "file") -> Callable[[F], F]:
    """Register a verifier function under ``name``.

    Args:
        name: unique registry name, snake_case (``"docx_page_setup"``).
        reads: what the verifier reads: ``"file"`` or ``"live"``.

    Returns:
        a decorator; the decorated function gets ``verifier_name`` and ``reads`` attributes and
        returns a failed result (instead of raising) when its document is missing or unreadable
        or a helper raised ``CheckFailed``.

    Raises:
        ValueError: ``name`` is already registered or ``reads`` is not a known kind.
    """
    if reads not in ("file", "live"):
        raise ValueError(f"verifier {name!r}: reads must be 'file' or 'live', not {reads!r}")

    def decorate(fn: F) -> F:
        if name in _REGISTRY:
            raise ValueError(f"verifier name {name!r} is already registered by {_REGISTRY[name].fn.__qualname__}")

        @functools.wraps(fn)
        def guarded(artifact: Any, *args: Any, **kwargs: Any) -> VerifierResult:
            try:
                return fn(artifact, *args, **kwargs)
            except CheckFailed as error:
                return error.to_result(verifier=name)

        guarded.verifier_name = name  # type: ignore[attr-defined]
        guarded.reads = reads  # type: ignore[attr-defined]
        _REGISTRY[name] = VerifierSpec(name=name, reads=reads, fn=guarded)
        return guarded  # type: ignore[return-value]

    return decorate


def get_verifier(name: str) -> VerifierFn:
    """The verifier registered under ``name``.

    Raises:
        UnknownVerifierError: nothing is registered under ``name`` (the message lists what is).
    """
    return get_verifier_spec(name).fn


def get_verifier_spec(name: str) -> VerifierSpec:
    """The registry entry (name, reads, function) for ``name``.

    Raises:
        UnknownVerifierError: nothing is registered under ``name``.
    """
    try:
        return _REGISTRY[name]
    except KeyError:
        raise UnknownVerifierError(f"no verifier named {name!r}; registered: {', '.join(sorted(_REGISTRY))}") from None


def list_verifiers(reads: Reads | None = None) -> list[str]:
    """Registered verifier names, sorted; only those reading ``reads`` when given."""
    return sorted(name for name, spec in _REGISTRY.items() if reads is None or spec.reads == reads)
