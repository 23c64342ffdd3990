"""Desktops kept across trajectories, for trainers that build one adapter object per sample.

verl builds an agent loop per sample and OpenRLHF an agent instance per prompt; a desktop per
object would start a desktop (seconds, hundreds of MiB) per trajectory. They take one from
:data:`DESKTOP_POOL` instead: an idle desktop of the same :class:`EnvSource` is reset for the next
episode, a new one starts only when all are busy, and idle ones close at process exit.
"""

from __future__ import annotations

import atexit
import threading

from desktop_gym.train.adapters.episode import DesktopEpisode, EnvSource

MAX_IDLE_DESKTOPS = 64
"""Idle desktops a pool keeps per source at most (more are closed when given back)."""


class DesktopPool:
    """Desktops kept across trajectories, per :class:`EnvSource`: each trajectory resets one, none starts twice."""

    def __init__(self, max_idle: int = MAX_IDLE_DESKTOPS) -> None:
        if not 0 <= max_idle <= 4096:
            raise ValueError(f"max_idle must be in 0..4096, got {max_idle}")
        self.max_idle = max_idle
        self._idle: dict[str, list[DesktopEpisode]] = {}
        self._lock = threading.Lock()
        self.started = 0  # episodes (desktops) made, for logs and tests

    def acquire(self, source: EnvSource) -> DesktopEpisode:
        """An idle episode of ``source`` (its desktop kept), else a new one (connects on its first start)."""
        with self._lock:
            idle = self._idle.get(source.to_json())
            if idle:
                return idle.pop()
            self.started += 1
        return DesktopEpisode(source)

    def release(self, episode: DesktopEpisode) -> None:
        """Give ``episode`` back for the next trajectory (closed when the pool is full)."""
        with self._lock:
            idle = self._idle.setdefault(episode.source.to_json(), [])
            if len(idle) < self.max_idle:
                idle.append(episode)
                return
        episode.close()

    def close(self) -> None:
        """Close every idle desktop."""
        with self._lock:
            episodes = [episode for idle in self._idle.values() for episode in idle]
            self._idle.clear()
        for episode in episodes:
            episode.close()


DESKTOP_POOL = DesktopPool()
"""This process's desktops (verl's agent-loop worker and OpenRLHF's engine actor are each one process)."""
atexit.register(DESKTOP_POOL.close)
