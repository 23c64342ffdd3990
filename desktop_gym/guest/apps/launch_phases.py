"""Seconds per phase of one app launch, for the guest log and the launch record."""

from __future__ import annotations

import time


class PhaseClock:
    """Seconds per phase of one launch (each phase ends where the previous one's ``done`` was called)."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self._last = time.monotonic()

    def done(self, phase: str) -> None:
        """End ``phase`` now."""
        now = time.monotonic()
        self.seconds[phase] = round(now - self._last, 4)
        self._last = now

    def summary(self) -> str:
        """``"start 0.12 s, window 0.40 s, ..."``."""
        return ", ".join(f"{phase} {seconds:.2f} s" for phase, seconds in self.seconds.items())
