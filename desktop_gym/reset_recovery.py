"""Setting an episode up with bounded retries: a trainer never sees a raw guest error from ``reset``.

A setup that fails or hangs (an app that does not start, a UNO call the guest's watchdog stops,
the guest gone) is retried after a recovery step; after the last try one :class:`ResetFailedError`
says what failed on each try and what was done in between.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from .errors import DesktopGymError, ResetFailedError

T = TypeVar("T")

DEFAULT_RESET_ATTEMPTS = 3
MAX_RESET_ATTEMPTS = 10
#: Failures worth another try: every desktop-gym error (guest, backend, task setup, waits) and OS errors.
RECOVERABLE: tuple[type[BaseException], ...] = (DesktopGymError, OSError)


def check_attempts(attempts: int) -> int:
    """``attempts`` if it is 1..MAX_RESET_ATTEMPTS, else a ValueError naming the field."""
    if not isinstance(attempts, int) or not 1 <= attempts <= MAX_RESET_ATTEMPTS:
        raise ValueError(f"reset_attempts must be an int from 1 to {MAX_RESET_ATTEMPTS}, got {attempts!r}")
    return attempts


def _describe(error: BaseException) -> str:
    return f"{type(error).__name__}: {str(error)[:400]}"


def set_up_with_retries(
    set_up: Callable[[], T], recover: Callable[[int], str], attempts: int, what: str
) -> tuple[T, int]:
    """Run ``set_up`` until it succeeds, calling ``recover(try number)`` after each failure.

    Args:
        set_up: the setup; raises a :data:`RECOVERABLE` error on failure (others propagate at once).
        recover: puts the desktop back in a state to try again; returns what it did, for the message.
        attempts: how many tries in all.
        what: what is being set up, for the message (``"reset of task calc.sort_rows"``).

    Returns:
        ``(what set_up returned, the number of tries it took)``.

    Raises:
        ResetFailedError: every try failed; the message lists each failure and recovery, and the
            last failure is its ``__cause__``.
    """
    history: list[str] = []
    for attempt in range(1, attempts + 1):
        try:
            return set_up(), attempt
        except RECOVERABLE as error:
            last_error = error
            history.append(f"try {attempt}: {_describe(error)}")
        if attempt < attempts:
            try:
                history.append(f"then {recover(attempt)}")
            except RECOVERABLE as error:
                history.append(f"then recovering failed: {_describe(error)}")
    raise ResetFailedError(f"{what} failed {attempts} times: " + "; ".join(history)) from last_error
