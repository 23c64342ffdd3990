"""``EnvServer``: one process per node hosting many envs, each on its own desktop, over gRPC.

- A pool of pre-started desktops makes ``CreateEnv`` instant; admission control by ``max_envs``
  and free memory answers RESOURCE_EXHAUSTED naming the limit.
- Steps of different envs run in parallel (a thread pool); steps of one env are serialized (a
  lock per env, at most one call queued behind the running one).
- Every env has a lease (``lease_ttl`` seconds) renewed by any call on it or by ``RenewLease``;
  a reaper thread reclaims envs of vanished clients (desktop wiped and returned to the pool).
  Calls on a reclaimed env raise ``EnvLostError`` on the client.
- A desktop that dies mid-episode truncates the episode with ``info["crash"]``; the next
  ``reset`` brings up a fresh desktop.
- ``drain()`` (on SIGTERM in ``serve_forever``): new creates refused, in-flight steps finish,
  every desktop closed.
- Binds 127.0.0.1 (or a unix socket) and requires a token by default; a non-loopback address
  without a token is refused.

The Python surface a dashboard builds on: :meth:`EnvServer.status`, :meth:`EnvServer.list_envs`,
:meth:`EnvServer.thumbnail`, and :meth:`EnvServer.add_startup_hook` to start an ASGI app next to
the gRPC port.
"""

from __future__ import annotations

import itertools
import logging
import os
import signal
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable, Iterator
from concurrent import futures
from contextlib import contextmanager
from typing import Any

import grpc

from desktop_gym.errors import EnvBusyError, ServerDrainingError, UnknownEnvError

from .. import errors
from ..backends import Backend
from ..env import DesktopEnv
from ..guest.auth import TokenInterceptor
from .env_ids import EnvIds
from .pool import CapacityError, DesktopPool
from .protos import env_pb2_grpc as pb_grpc
from .servicer import EnvServicer
from .session import (
    MAX_ENV_ID_CHARS,
    EnvSession,
    blank_observation,
    check_env_options,
    check_reset_options,
    check_screenshot_format,
)
from .stats import NodeProbe, ServerCounters
from .tokens import new_token
from .wire import GRPC_OPTIONS, check_bind, keep_large_allocations

log = logging.getLogger(__name__)

LOCK_WAIT_S = 600.0  # the longest a call waits for the step in flight on the same env
MAX_LOST_IDS = 10_000  # reclaimed env ids remembered (to answer "lost", not "unknown")
DEFAULT_MEMORY_MB = {"local": 300.0, "container": 400.0, "loadtest": 0.0}


class EnvServer:
    """Hosts many envs over gRPC (see the module docstring for the guarantees).

    Args:
        address: ``"127.0.0.1:PORT"`` (0 picks a free port), ``"unix:/path/env.sock"``, or another
            ``HOST:PORT`` (then a token is required).
        token: the token clients send as ``x-desktop-gym-token``; None generates one; ``""`` turns
            auth off (loopback and unix sockets only).
        backend: where desktops come from: ``"local"``, ``"container"`` or ``"loadtest"``.
        backend_kwargs: keyword arguments for each backend.
        max_envs: the most envs (= desktops) at once.
        warm: desktops kept pre-started for ``CreateEnv``.
        lease_ttl: seconds an env lives without a call or heartbeat.
        memory_per_desktop_mb: expected memory per desktop for admission (per-backend default).
        min_free_memory_mb: memory left free on the node.
        env_factory: ``(task_id, backend, options) -> env``; defaults to ``DesktopEnv`` (or the
            backend's ``env_class``).
    """

    def __init__(
        self,
        address: str = "127.0.0.1:0",
        token: str | None = None,
        *,
        backend: str = "local",
        backend_kwargs: dict[str, Any] | None = None,
        max_envs: int = 8,
        warm: int = 1,
        lease_ttl: float = 60.0,
        memory_per_desktop_mb: float | None = None,
        min_free_memory_mb: float = 1024.0,
        env_factory: Callable[[str, Backend, dict[str, Any]], Any] | None = None,
    ) -> None:
        if lease_ttl <= 0:
            raise ValueError(f"lease_ttl must be positive, got {lease_ttl}")
        self.token = new_token() if token is None else token
        check_bind(address, self.token)
        self.requested_address = address
        self.address = address
        self.server_id = uuid.uuid4().hex[:8]
        self.lease_ttl = lease_ttl
        self.max_envs = max_envs
        self.pool = DesktopPool(
            backend,
            backend_kwargs,
            max_desktops=max_envs,
            warm=min(warm, max_envs),
            memory_per_desktop_mb=DEFAULT_MEMORY_MB.get(backend, 300.0)
            if memory_per_desktop_mb is None
            else memory_per_desktop_mb,
            min_free_memory_mb=min_free_memory_mb,
        )
        self._env_factory = env_factory or _default_env_factory
        self._sessions: dict[str, EnvSession] = {}
        self._lost: OrderedDict[str, str] = OrderedDict()
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._env_ids = EnvIds(self.server_id, self.token)
        self._draining = False
        self._stopped = threading.Event()
        self._started_at = time.monotonic()
        self.counters = ServerCounters()
        self._node = NodeProbe()
        self._startup_hooks: list[Callable[[EnvServer], None]] = []
        self._grpc: grpc.Server | None = None
        self._reaper = threading.Thread(target=self._reap_loop, name="env-lease-reaper", daemon=True)

    # ------------------------------------------------------------------ life cycle
    def add_startup_hook(self, hook: Callable[[EnvServer], None]) -> None:
        """Run ``hook(server)`` right after ``start`` binds (e.g. to mount a dashboard)."""
        self._startup_hooks.append(hook)

    def start(self) -> EnvServer:
        """Bind and start serving; ``self.address`` is then the real address (port filled in).

        Raises:
            RuntimeError: the address could not be bound.
        """
        keep_large_allocations()
        workers = min(self.max_envs, 128) + 16
        interceptors = [TokenInterceptor(self.token)] if self.token else []
        self._grpc = grpc.server(
            futures.ThreadPoolExecutor(max_workers=workers, thread_name_prefix="env-server"),
            interceptors=interceptors,
            options=GRPC_OPTIONS,
            maximum_concurrent_rpcs=workers * 4,
        )
        pb_grpc.add_EnvServiceServicer_to_server(EnvServicer(self), self._grpc)
        old_umask = os.umask(0o177)  # a unix socket is created 0600 (only this user connects)
        try:
            port = self._grpc.add_insecure_port(self.requested_address)
        finally:
            os.umask(old_umask)
        if not port and not self.requested_address.startswith("unix:"):
            raise RuntimeError(f"could not bind the env server to {self.requested_address}")
        if not self.requested_address.startswith("unix:"):
            self.address = f"{self.requested_address.rsplit(':', 1)[0]}:{port}"
        self._grpc.start()
        self._reaper.start()
        for hook in self._startup_hooks:
            hook(self)
        log.info("env server %s listening on %s", self.server_id, self.address)
        return self

    def drain(self, grace: float = 30.0) -> None:
        """Refuse new envs, let in-flight calls finish (up to ``grace`` s), close every desktop, stop."""
        self._draining = True
        deadline = time.monotonic() + grace
        while any(session.lock.locked() for session in self._all_sessions()) and time.monotonic() < deadline:
            time.sleep(0.01)
        for session in self._all_sessions():
            self._remove(session, "the env server shut down")
        self.pool.close()
        if self._grpc is not None:
            self._grpc.stop(grace=1.0).wait(5.0)
        self._stopped.set()

    stop = drain

    def serve_forever(self) -> None:
        """Serve until SIGTERM or SIGINT, then drain (call from the main thread)."""
        requested = threading.Event()
        for signum in (signal.SIGTERM, signal.SIGINT):
            signal.signal(signum, lambda *_: requested.set())
        while not requested.wait(0.5) and not self._stopped.is_set():
            pass
        if not self._stopped.is_set():
            self.drain()

    def __enter__(self) -> EnvServer:
        return self.start() if self._grpc is None else self

    def __exit__(self, *_: object) -> None:
        if not self._stopped.is_set():
            self.drain()

    # ------------------------------------------------------------------ envs
    def create_env(
        self, task_id: str, options: dict[str, Any], screenshot_format: str = "raw", jpeg_quality: int = 80
    ) -> EnvSession:
        """Build an env for ``task_id`` on a pooled desktop.

        Raises:
            ServerDrainingError, CapacityError, ValueError (bad options, unknown task).
        """
        if self._draining:
            raise ServerDrainingError(f"env server {self.server_id} is draining and takes no new envs")
        from ..tasks import get_task

        if task_id:
            get_task(task_id)  # an unknown task is the client's error, before a desktop is taken
        check_env_options(options)
        fmt, quality = check_screenshot_format(screenshot_format, jpeg_quality)
        backend = self.pool.acquire()
        try:
            env = self._env_factory(task_id or None, backend, options)
        except BaseException:
            self.pool.release(backend)
            raise
        if isinstance(env, DesktopEnv):  # a reset's prefetch prepares the next episode on a second pooled desktop
            env.lend_desktops(self.pool.acquire, self._take_back)
        session = EnvSession(
            env_id=self._env_ids.issue(next(self._ids)),
            task_id=task_id,
            env=env,
            screenshot_format=fmt,
            jpeg_quality=quality,
            lease_ttl=self.lease_ttl,
        )
        session.renew()
        with self._lock:
            self._sessions[session.env_id] = session
        self.counters.add("creates")
        return session

    def _take_back(self, desktop: Backend, reusable: bool) -> None:
        """A desktop lent to a prefetch, back from its shadow env (closed when a prefetch hung on it)."""
        if reusable:
            self.pool.release(desktop)
        else:
            self.pool.forget(desktop)

    def session(self, env_id: str) -> EnvSession:
        """The live env ``env_id``, its lease renewed.

        Raises:
            EnvLostError: the env was reclaimed, or belongs to an earlier run of this server.
            UnknownEnvError: no run of this server (same token) issued that id.
        """
        with self._lock:
            session = self._sessions.get(env_id)
            if session is None:
                reason = self._lost.get(env_id)
                if reason is not None:
                    raise errors.EnvLostError(f"env {env_id} is lost: {reason}")
                if len(env_id) > MAX_ENV_ID_CHARS:
                    raise UnknownEnvError(f"env id of {len(env_id)} characters is not an env of this server")
                issuer = self._env_ids.issuer(env_id)
                if issuer is not None and issuer != self.server_id:
                    raise errors.EnvLostError(
                        f"env {env_id} belonged to an earlier env server (this one is {self.server_id});"
                        " create a new env"
                    )
                if issuer is not None:  # ours, closed or reclaimed longer ago than the lost-id memory
                    raise errors.EnvLostError(f"env {env_id} is lost: closed or reclaimed earlier")
                raise UnknownEnvError(f"no env {env_id!r} on env server {self.server_id}: no run of it issued that id")
        session.renew()
        return session

    @contextmanager
    def _exclusive(self, session: EnvSession) -> Iterator[None]:
        """Serialize calls on one env; refuse a third concurrent call rather than queueing it."""
        with self._lock:
            if session.waiting >= 2:
                raise EnvBusyError(f"env {session.env_id} has a call running and one queued; wait for them")
            session.waiting += 1
        try:
            if not session.lock.acquire(timeout=LOCK_WAIT_S):
                raise EnvBusyError(f"env {session.env_id}: the call in flight did not finish within {LOCK_WAIT_S:.0f}s")
            try:
                session.renew()
                yield
            finally:
                session.renew()
                session.lock.release()
        finally:
            with self._lock:
                session.waiting -= 1

    def reset(self, env_id: str, seed: int | None, options: dict[str, Any]) -> tuple[EnvSession, dict, dict]:
        """Reset env ``env_id``; returns ``(session, observation, info)``."""
        session = self.session(env_id)
        check_reset_options(options)
        with self._exclusive(session):
            recovering = session.state == "crashed"
            session.state = "resetting"
            try:
                observation, info = session.env.reset(seed=seed, options=options)
            except BaseException as error:
                session.state, session.last_error = "crashed", f"reset: {error}"
                raise
            session.state, session.step, session.episode_return = "idle", 0, 0.0
            session.crashed_episode = False
            session.task_id = info.get("task_id", session.task_id)
            session.last_screenshot = observation.get("screenshot", session.last_screenshot)
            self.counters.reset(float(info.get("reset_seconds", 0.0)))
            if recovering:
                self.counters.add("recoveries")
            return session, observation, info

    def step(self, env_id: str, action: Any) -> tuple[EnvSession, dict, float, bool, bool, dict]:
        """Step env ``env_id``; returns ``(session, observation, reward, terminated, truncated, info)``."""
        session = self.session(env_id)
        with self._exclusive(session):
            if session.crashed_episode:
                raise errors.EpisodeNotStartedError(f"env {env_id}: the episode ended with a crash; call reset")
            session.state = "stepping"
            try:
                observation, reward, terminated, truncated, info = session.env.step(action)
            except errors.EpisodeNotStartedError:
                session.state = "idle"
                raise
            except errors.GuestError as error:  # the desktop died in a way the env could not absorb
                observation, reward, terminated, truncated = blank_observation(session.env), 0.0, False, True
                info = {"step": session.step + 1, "crash": f"the desktop stopped answering: {error}", "success": False}
            session.step += 1
            session.episode_return += reward
            session.last_screenshot = observation.get("screenshot", session.last_screenshot)
            self.counters.step()
            if info.get("action_error"):
                session.last_error = str(info["action_error"])[:500]
            session.state = "idle"
            if "crash" in info:
                session.state, session.crashed_episode, session.last_error = "crashed", True, info["crash"]
                self.counters.add("crashes")
            if terminated or truncated:
                self.counters.episode(session.task_id, bool(info.get("success")))
            return session, observation, reward, terminated, truncated, info

    def close_env(self, env_id: str) -> None:
        """Close env ``env_id`` and return its desktop to the pool (waits for a call in flight)."""
        session = self.session(env_id)
        with self._exclusive(session):
            self._remove(session, "the client closed it")
        self.counters.add("closes")

    def _remove(self, session: EnvSession, reason: str) -> None:
        with self._lock:
            if self._sessions.pop(session.env_id, None) is None:
                return
            self._lost[session.env_id] = reason
            while len(self._lost) > MAX_LOST_IDS:
                self._lost.popitem(last=False)
        desktop = session.backend  # the one the env holds now (a prefetch's swaps move desktops)
        try:
            session.env.close()  # a prefetch's second desktop goes back to the pool here
        except Exception as error:  # noqa: BLE001 - the desktop is released either way
            log.warning("closing env %s failed: %s", session.env_id, error)
        self.pool.release(desktop)

    def _all_sessions(self) -> list[EnvSession]:
        with self._lock:
            return list(self._sessions.values())

    def _reap_loop(self) -> None:
        """Reclaim envs whose lease ran out; notice desktops that died while idle."""
        while not self._stopped.wait(min(1.0, self.lease_ttl / 4)):
            now = time.monotonic()
            for session in self._all_sessions():
                if now > session.lease_deadline and session.lock.acquire(blocking=False):
                    try:
                        if time.monotonic() > session.lease_deadline:
                            self._remove(session, f"reclaimed: no call or heartbeat for {self.lease_ttl:.0f}s")
                            self.counters.add("reclaimed")
                    finally:
                        session.lock.release()
                elif session.state == "idle" and not session.backend.is_alive():
                    session.state, session.last_error = "crashed", "the desktop died while the env was idle"
                    self.counters.add("crashes")

    # ------------------------------------------------------------------ what a dashboard reads
    def list_envs(self) -> list[dict[str, Any]]:
        """Per env: task, state (idle, resetting, stepping, crashed), step, return, uptime, last error."""
        return [session.summary() for session in self._all_sessions()]

    def status(self) -> dict[str, Any]:
        """Everything ``Stats`` returns: envs, pool, node CPU/memory, counters, rates, success per task."""
        return {
            "server_id": self.server_id,
            "address": self.address,
            "uptime_s": time.monotonic() - self._started_at,
            "draining": self._draining,
            "lease_ttl_s": self.lease_ttl,
            "backend": self.pool.backend_name,
            "envs": self.list_envs(),
            "pool": self.pool.counts(),
            "node": self._node.snapshot(),
            **self.counters.snapshot(),
        }

    def thumbnail(self, env_id: str, max_width: int = 320) -> tuple[bytes, int, int]:
        """The env's last screenshot as a small JPEG ``(bytes, width, height)``; never waits for a step.

        Returns ``(b"", 0, 0)`` before the env's first screenshot.
        """
        if not 8 <= max_width <= 4096:
            raise ValueError(f"max_width: must be between 8 and 4096, got {max_width}")
        shot = self.session(env_id).last_screenshot
        if shot is None:
            return b"", 0, 0
        import io

        from PIL import Image

        picture = Image.fromarray(shot)
        picture.thumbnail((max_width, max_width * shot.shape[0] // max(1, shot.shape[1]) or 1))
        buffer = io.BytesIO()
        picture.save(buffer, format="JPEG", quality=70)
        return buffer.getvalue(), picture.width, picture.height

    @property
    def draining(self) -> bool:
        """Whether the server is shutting down."""
        return self._draining


def _default_env_factory(task_id: str | None, backend: Backend, options: dict[str, Any]) -> Any:
    return backend.env_class(task_id, backend=backend, **options)


__all__ = ["CapacityError", "EnvBusyError", "EnvServer", "ServerDrainingError", "UnknownEnvError"]
