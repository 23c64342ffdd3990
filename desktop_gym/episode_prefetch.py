"""Prepare the next episode on a second desktop while the current one runs (``reset`` prefetch).

``DesktopEnv.reset(options={"prefetch": {"task_id": ..., "seed": ..., "params": {...}}})`` names
the episode the caller will reset to next. A shadow env (the same constructor arguments, a desktop
of its own) resets to it on a worker thread while the current episode runs; the matching
``reset`` then swaps the two envs' desktops and episode state, so the caller waits for a swap
instead of an app launch. The other desktop becomes the shadow for the prefetch after that, so the
two alternate. The cost is a second desktop's memory and the setup's CPU during the episode, which
``info["prefetch_seconds"]`` reports apart from the reset the caller saw.

A reset that names another episode, or a prefetch that failed, falls back to an ordinary reset
(the prepared episode is dropped; a failure is logged). The prepared episode is the shadow's
ordinary reset, so its observation and parameters are those a cold reset gives.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

log = logging.getLogger(__name__)

#: What a swap exchanges between an env and its shadow: the desktop and the episode on it.
EPISODE_STATE = (
    "backend",
    "_handle",
    "_client",
    "_ctx",
    "_task",
    "task_id",
    "_steps",
    "_episode_active",
    "_instruction",
    "_last_screenshot",
    "_observation_cost",
    "_reset_phases",
    "_prefetcher",
    "_elements",
    "_observed_focus",
    "_offered_apps",
    "_np_random",
    "_np_random_seed",
)
#: How long ``close`` waits for a prefetch in flight before closing its desktop under it.
CLOSE_JOIN_TIMEOUT_S = 30.0
#: How long a matching ``reset`` waits for a prefetch still in flight (a reset's own budget).
TAKE_TIMEOUT_S = 300.0


@dataclass(frozen=True)
class PrefetchRequest:
    """The episode to prepare: a task, a seed (required: the setup must be reproducible) and parameters."""

    task_id: str
    seed: int
    params: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def parse(cls, value: Any, default_task: str | None) -> PrefetchRequest:
        """Check ``options["prefetch"]``; raise ``ValueError`` naming the field that is wrong."""
        if not isinstance(value, Mapping):
            raise ValueError(
                f"options['prefetch'] must be a dict with task_id, seed and params, got {type(value).__name__}"
            )
        unknown = sorted(set(value) - {"task_id", "seed", "params"})
        if unknown:
            raise ValueError(f"options['prefetch'] has unknown keys {unknown}; known: task_id, seed, params")
        task_id = value.get("task_id", default_task)
        if not isinstance(task_id, str) or not task_id:
            raise ValueError("options['prefetch']['task_id'] must name a task (or the env needs a task_id)")
        seed = value.get("seed")
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise ValueError(f"options['prefetch']['seed'] must be an int, got {seed!r}")
        params = value.get("params", {})
        if not isinstance(params, Mapping):
            raise ValueError(f"options['prefetch']['params'] must be a dict, got {type(params).__name__}")
        return cls(task_id=task_id, seed=seed, params=dict(params))

    def matches(self, task_id: str, seed: int | None, params: Mapping[str, Any]) -> bool:
        """Whether a reset to (``task_id``, ``seed``, ``params``) is this episode."""
        return task_id == self.task_id and seed == self.seed and dict(params) == self.params


@dataclass
class Prepared:
    """A prefetch's outcome: the shadow env's reset result, or the error it raised."""

    request: PrefetchRequest
    observation: dict[str, Any] | None = None
    info: dict[str, Any] | None = None
    error: BaseException | None = None
    seconds: float = 0.0  # the background reset's wall time


class EpisodePrefetch:
    """One shadow env and at most one prefetch in flight on it.

    Args:
        make_shadow: Builds the shadow env (called once, on the first prefetch). An error it raises
            (e.g. an env server's pool has no desktop to spare) makes that prefetch a failed one:
            the matching reset is an ordinary reset.
        give_back: Called with the shadow's desktop once the shadow env is closed, when the desktops
            are lent (an env server's pool) rather than owned by the envs; its second argument says
            whether the desktop may be reused (False: a prefetch hung on it).
    """

    def __init__(self, make_shadow: Callable[[], Any], give_back: Callable[[Any, bool], None] | None = None) -> None:
        self._make_shadow = make_shadow
        self._give_back = give_back
        self.shadow: Any = None
        self._thread: threading.Thread | None = None
        self._prepared: Prepared | None = None

    @property
    def pending(self) -> PrefetchRequest | None:
        """The episode being (or already) prepared, if any."""
        return self._prepared.request if self._prepared is not None else None

    def start(self, request: PrefetchRequest) -> None:
        """Prepare ``request`` on the shadow env in the background (after any prefetch still in flight)."""
        self._join()
        prepared = self._prepared = Prepared(request)
        if self.shadow is None:
            try:
                self.shadow = self._make_shadow()
            except Exception as error:  # noqa: BLE001 - the matching reset falls back to a cold one
                prepared.error = error
                return
        shadow = self.shadow

        def run() -> None:
            started = time.perf_counter()
            try:
                prepared.observation, prepared.info = shadow.reset(
                    seed=request.seed, options={"task_id": request.task_id, "params": request.params}
                )
            except BaseException as error:  # noqa: BLE001 - kept; the matching reset falls back to a cold one
                prepared.error = error
            prepared.seconds = time.perf_counter() - started

        self._thread = threading.Thread(target=run, name=f"prefetch-{request.task_id}", daemon=True)
        self._thread.start()

    def take(self, task_id: str, seed: int | None, params: Mapping[str, Any]) -> Prepared | None:
        """The prepared episode if it is (``task_id``, ``seed``, ``params``) and succeeded; else None.

        Waits for a matching prefetch still in flight. Any prepared episode is used up by this call.
        """
        if self._prepared is None:
            return None
        self._join()
        prepared, self._prepared = self._prepared, None
        if prepared is None:  # it ran over its time and was dropped
            return None
        if not prepared.request.matches(task_id, seed, params):
            log.info("reset to %s seed %s, not the prefetched %s: reset as usual", task_id, seed, prepared.request)
            return None
        if prepared.error is not None or prepared.observation is None:
            log.warning("the prefetch of %s failed (%s): reset as usual", prepared.request, prepared.error)
            return None
        return prepared

    def swap_in(self, env: Any, prepared: Prepared, started: float) -> tuple[dict[str, Any], dict[str, Any]]:
        """Give ``env`` the shadow's prepared episode and the shadow ``env``'s desktop; the reset's result.

        ``started`` is when the caller's reset began: ``info["reset_seconds"]`` is what it waited,
        ``info["prefetch_seconds"]`` the background reset's time.
        """
        assert prepared.observation is not None and prepared.info is not None
        for name in EPISODE_STATE:
            mine, theirs = getattr(env, name), getattr(self.shadow, name)
            setattr(env, name, theirs)
            setattr(self.shadow, name, mine)
        self.shadow._episode_active = False  # the desktop it got back is the old episode's: only a reset reuses it
        info = dict(prepared.info)
        info["prefetched"] = True
        info["prefetch_seconds"] = round(prepared.seconds, 4)
        info["reset_seconds"] = time.perf_counter() - started
        return prepared.observation, info

    def _join(self, timeout: float = TAKE_TIMEOUT_S) -> None:
        """Wait for the prefetch in flight; one stuck past ``timeout`` loses its shadow (closed, rebuilt later)."""
        thread, self._thread = self._thread, None
        if thread is None:
            return
        thread.join(timeout)
        if thread.is_alive():
            log.warning("the prefetch of %s ran over %.0f s: closing its desktop", self.pending, timeout)
            self._prepared = None
            self._close_shadow(reusable=False)  # its desktop goes away, so the thread's calls fail and it ends
            thread.join(CLOSE_JOIN_TIMEOUT_S)

    def close(self) -> None:
        """Wait (capped) for a prefetch in flight, then close the shadow env and its desktop."""
        thread, self._thread = self._thread, None
        if thread is not None:
            thread.join(CLOSE_JOIN_TIMEOUT_S)
        self._prepared = None
        self._close_shadow(reusable=thread is None or not thread.is_alive())

    def _close_shadow(self, reusable: bool) -> None:
        shadow, self.shadow = self.shadow, None
        if shadow is None:
            return
        try:
            shadow.close()
        finally:
            if self._give_back is not None:
                self._give_back(shadow.backend, reusable)


def lent_prefetch(env: Any, acquire: Callable[[], Any], give_back: Callable[[Any, bool], None]) -> EpisodePrefetch:
    """A prefetch for ``env`` whose shadow env runs on a desktop from ``acquire`` (an env server's pool).

    The shadow is ``env``'s class with ``env``'s arguments on that desktop. ``give_back(desktop,
    reusable)`` takes the desktop back when the shadow closes; swaps move desktops between the two
    envs, so whoever lent them also takes back the one ``env`` holds at the end (``env.backend``).
    """

    def make_shadow() -> Any:
        desktop = acquire()
        try:
            return type(env)(**{**env._constructor, "backend": desktop})
        except BaseException:
            give_back(desktop, True)
            raise

    return EpisodePrefetch(make_shadow, give_back)
