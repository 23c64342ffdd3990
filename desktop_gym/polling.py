"""The one way to wait for a condition: poll it until it holds, or fail naming what was awaited.

Importable by the guest agent (standard library only).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

from .errors import WaitTimeoutError

T = TypeVar("T")

DEFAULT_INTERVAL_S = 0.02
MAX_INTERVAL_S = 0.25


def poll_until(
    condition: Callable[[], T],
    timeout: float,
    what: str,
    *,
    interval: float = DEFAULT_INTERVAL_S,
    backoff: float = 1.0,
    retry_on: tuple[type[BaseException], ...] = (),
    error: Callable[[str], BaseException] = WaitTimeoutError,
) -> T:
    """Call ``condition`` until it returns a truthy value, and return that value.

    Args:
        condition: the check; called at least once, even with ``timeout <= 0``.
        timeout: the longest wait in seconds.
        what: what is awaited, for the timeout message (``"the guest socket"``).
        interval: the pause between checks (a polling interval, not a fixed wait).
        backoff: each pause is the previous one times this, up to ``MAX_INTERVAL_S``.
        retry_on: exception types that mean "not yet"; the last one is named in the message.
        error: builds the exception raised at the deadline from its message.

    Raises:
        WaitTimeoutError: (or what ``error`` builds) ``condition`` did not hold within ``timeout``.
    """
    deadline = time.monotonic() + timeout
    last_error: BaseException | None = None
    pause = interval
    while True:
        try:
            value = condition()
            if value:
                return value
        except retry_on as exc:
            last_error = exc
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            detail = f" (last error: {last_error})" if last_error is not None else ""
            raise error(f"timed out after {timeout:.1f} s waiting for {what}{detail}")
        time.sleep(min(pause, remaining))
        pause = min(pause * backoff, max(MAX_INTERVAL_S, interval))


def wait_while(condition: Callable[[], object], timeout: float, *, interval: float = DEFAULT_INTERVAL_S) -> bool:
    """Wait while ``condition`` holds, at most ``timeout`` s; True if it stopped holding in time."""
    try:
        poll_until(lambda: not condition(), timeout, "a condition to clear", interval=interval)
    except WaitTimeoutError:
        return False
    return True
