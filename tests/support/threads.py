"""Running one call from several threads at once, for tests of what concurrent callers get."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def run_in_threads(call: Callable[[], T], copies: int, timeout: float) -> tuple[list[T], list[BaseException]]:
    """Run ``call`` in ``copies`` threads started together and wait for them (``timeout`` seconds each).

    Returns:
        what the calls returned and what they raised, each in the order they finished.
    """
    results: list[T] = []
    errors: list[BaseException] = []

    def worker() -> None:
        try:
            results.append(call())
        except BaseException as exc:  # noqa: BLE001 - handed to the test, which asserts on it
            errors.append(exc)

    threads = [threading.Thread(target=worker) for _ in range(copies)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=timeout)
    return results, errors
