"""Guest agents forked from one pre-imported process (a zygote), so desktops share its imports.

Each desktop's guest agent used to be a fresh ``python -m desktop_gym.guest``, whose ~50 MiB of
private memory is mostly the Python heap of its imports. :func:`spawn_guest` asks a zygote
(``desktop_gym.guest.zygote``) that has imported them once to fork the guest instead: the pages
stay shared copy-on-write between every desktop of this host process. One zygote serves every
guest whose environment agrees on what is read while starting and importing (:func:`zygote_environment`:
``PYTHONPATH``, ``MALLOC_*``, ``DESKTOP_GYM_*`` settings, ...); another interpreter or setting gets a
zygote of its own, at most :data:`MAX_ZYGOTES`. The guest itself gets its session's whole environment.

A forked guest is a child of the zygote, not of this process: :class:`ForkedProcess` gives the part
of ``subprocess.Popen`` the local backend uses (``pid``, ``poll``, ``wait``, ``kill``), from the exit
code the zygote reports and a pidfd (signals go to that very process, never to a reused pid).
Its ``/proc/<pid>/environ`` is the zygote's (a fork keeps the environment block it started with), so
it shows no session marker: the local backend records its pid in the session folder for the reaper.

``DESKTOP_GYM_FORK_GUEST=0`` (or ``LocalBackend(fork_guest=False)``) starts each guest as its own
process, as before.
"""

from __future__ import annotations

import atexit
import json
import logging
import os
import select
import signal
import socket
import subprocess
import tempfile
import threading
import time
from collections import OrderedDict

from .base import BackendError

#: What a zygote is started with and keyed by: the variables read while starting or importing
#: (interpreter, loader, malloc, numpy's threads, typelibs, locale, this package's settings).
STARTUP_PREFIXES = ("PYTHON", "LD_", "MALLOC_", "GRPC_", "GI_", "OPENBLAS_", "OMP_", "MKL_", "LC_", "DESKTOP_GYM_")
STARTUP_VARIABLES = frozenset({"PATH", "LANG", "XDG_DATA_DIRS"})
#: Settings of a session, not of its imports: the zygote is not keyed by them (the guest gets them).
SESSION_SETTINGS = frozenset({"DESKTOP_GYM_SESSION", "DESKTOP_GYM_CACHE", "DESKTOP_GYM_REAPER_SESSION"})
FORK_GUEST_VARIABLE = "DESKTOP_GYM_FORK_GUEST"
ZYGOTE_START_TIMEOUT_S = 120.0  # the imports, on a loaded machine
SPAWN_TIMEOUT_S = 30.0  # a fork
MAX_ZYGOTES = 4
MAX_REPLY_BYTES = 64 * 1024
UNKNOWN_EXIT = -1  # the guest ended after its zygote: nobody could collect its exit code
ZYGOTE_MODULE = "desktop_gym.guest.zygote"
log = logging.getLogger(__name__)


class ForkedProcess:
    """A guest forked by a zygote, driven like a ``subprocess.Popen``."""

    def __init__(self, pid: int, channel: socket.socket, args: list[str]) -> None:
        self.pid = pid
        self.args = args
        self.returncode: int | None = None
        self.stdout = None  # the guest writes to its log
        self._channel: socket.socket | None = channel
        try:
            self._pidfd: int | None = os.pidfd_open(pid)
        except ProcessLookupError:  # already ended and collected: the zygote's report is on its way
            self._pidfd = None

    def poll(self) -> int | None:
        """The exit code once the guest has ended, else None."""
        if self.returncode is None:
            self._receive(0.0)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        """Wait for the guest to end; its exit code.

        Raises:
            subprocess.TimeoutExpired: still running after ``timeout`` seconds.
        """
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.returncode is None:
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                raise subprocess.TimeoutExpired(self.args, timeout or 0.0)
            self._receive(left)
        return self.returncode

    def send_signal(self, signum: int) -> None:
        """Signal the guest (through its pidfd: never another process that got its pid)."""
        if self.poll() is not None:
            return
        try:
            if self._pidfd is not None:
                signal.pidfd_send_signal(self._pidfd, signum)
            else:
                os.kill(self.pid, signum)
        except ProcessLookupError:
            pass

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)

    def _receive(self, timeout: float | None) -> None:
        watched = [fd for fd in (self._channel, self._pidfd) if fd is not None]
        if not watched:
            self._finish(UNKNOWN_EXIT)
            return
        # While the zygote answers, its report says when the guest ended; the pidfd only says so for an orphan.
        ready, _, _ = select.select([self._channel] if self._channel is not None else watched, [], [], timeout)
        if not ready:
            return
        if self._channel is not None:
            try:
                data = self._channel.recv(MAX_REPLY_BYTES)
            except OSError:
                data = b""
            if data:
                try:
                    code = json.loads(data).get("exit")
                except (ValueError, AttributeError):
                    code = None
                self._finish(code if isinstance(code, int) else UNKNOWN_EXIT)
                return
            self._channel.close()  # the zygote is gone: the guest, if alive, is an orphan now
            self._channel = None
            if self._pidfd is None or select.select([self._pidfd], [], [], 0)[0]:
                self._finish(UNKNOWN_EXIT)
            return
        self._finish(UNKNOWN_EXIT)  # an orphan's pidfd became readable: it has ended

    def _finish(self, code: int) -> None:
        self.returncode = code
        if self._channel is not None:
            self._channel.close()
            self._channel = None
        if self._pidfd is not None:
            os.close(self._pidfd)
            self._pidfd = None


class GuestZygote:
    """One zygote process and the socket its spawn requests go through."""

    def __init__(self, python: str, env: dict[str, str], timeout: float = ZYGOTE_START_TIMEOUT_S) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self._errors = tempfile.TemporaryFile()
        self._lock = threading.Lock()
        self.control = ours
        try:
            self.process = subprocess.Popen(
                [python, "-m", ZYGOTE_MODULE, "--fd", str(theirs.fileno())],
                env=env,
                pass_fds=[theirs.fileno()],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=self._errors,
                start_new_session=True,
            )
        except OSError as error:
            ours.close()
            self._errors.close()
            raise BackendError(f"could not start the guest zygote with {python}: {error}") from None
        finally:
            theirs.close()
        ready, _, _ = select.select([ours], [], [], timeout)
        reply = ours.recv(64) if ready else b""
        if reply != b"ready":
            self.control.close()
            try:
                self.process.wait(5.0)  # its stderr is complete once it has exited
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
            why = f"did not start in {timeout:.0f} s" if not ready else "exited"
            tail = self.error_tail()
            self._errors.close()
            raise BackendError(f"the guest zygote {why}: {tail!r}")

    def spawn(self, argv: list[str], env: dict[str, str], log_fd: int, timeout: float = SPAWN_TIMEOUT_S):
        """Fork a guest running ``python -m desktop_gym.guest <argv>`` with ``env``, logging to ``log_fd``.

        Raises:
            BackendError: the zygote refused, did not answer within ``timeout`` or is gone.
        """
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        request = json.dumps({"argv": argv, "env": env}).encode()
        try:
            with self._lock:
                socket.send_fds(self.control, [request], [log_fd, theirs.fileno()])
        except OSError as error:
            ours.close()
            raise BackendError(f"the guest zygote is gone ({error}): {self.error_tail()!r}") from None
        finally:
            theirs.close()
        ready, _, _ = select.select([ours], [], [], timeout)
        reply = ours.recv(MAX_REPLY_BYTES) if ready else b""
        try:
            answer = json.loads(reply) if reply else {}
        except ValueError:
            answer = {}
        if not isinstance(answer, dict) or not isinstance(answer.get("pid"), int):
            ours.close()
            why = answer.get("error") if isinstance(answer, dict) and answer.get("error") else "no answer"
            raise BackendError(f"the guest zygote could not fork a guest ({why}): {self.error_tail()!r}")
        return ForkedProcess(answer["pid"], ours, ["desktop_gym.guest", *argv])

    def alive(self) -> bool:
        return self.process.poll() is None

    def error_tail(self, size: int = 2000) -> str:
        """The end of what the zygote wrote to stderr."""
        try:
            self._errors.seek(0, os.SEEK_END)
            self._errors.seek(max(0, self._errors.tell() - size))
            return self._errors.read().decode(errors="replace")
        except (OSError, ValueError):
            return ""

    def close(self, timeout: float = 5.0) -> None:
        """Let the zygote go (it exits once its end closes; the guests it forked live on)."""
        self.control.close()
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self._errors.close()


_zygotes: OrderedDict[tuple, GuestZygote] = OrderedDict()
_zygotes_lock = threading.Lock()


def fork_by_default() -> bool:
    """Whether a local desktop forks its guest when not told (``DESKTOP_GYM_FORK_GUEST=0``: no)."""
    return os.environ.get(FORK_GUEST_VARIABLE, "1") != "0"


def zygote_environment(env: dict[str, str]) -> dict[str, str]:
    """What a zygote for guests with ``env`` starts with: the variables of ``env`` read at startup."""
    return {
        name: value
        for name, value in env.items()
        if (name in STARTUP_VARIABLES or name.startswith(STARTUP_PREFIXES)) and name not in SESSION_SETTINGS
    }


def zygote_for(python: str, env: dict[str, str]) -> GuestZygote:
    """This process's zygote for guests run by ``python`` with ``env`` (started on first use)."""
    base = zygote_environment(env)
    key = (python, tuple(sorted(base.items())))
    with _zygotes_lock:
        zygote = _zygotes.get(key)
        if zygote is not None and zygote.alive():
            _zygotes.move_to_end(key)
            return zygote
        if zygote is not None:
            del _zygotes[key]
            zygote.close()
        while len(_zygotes) >= MAX_ZYGOTES:
            _zygotes.popitem(last=False)[1].close()
        zygote = _zygotes[key] = GuestZygote(python, base)
        return zygote


def spawn_guest(python: str, argv: list[str], env: dict[str, str], log_fd: int) -> ForkedProcess:
    """A guest forked from this process's zygote for ``python`` and ``env`` (one retry with a new zygote).

    Raises:
        BackendError: no zygote could fork it.
    """
    zygote = zygote_for(python, env)
    try:
        return zygote.spawn(argv, env, log_fd)
    except BackendError as error:
        log.warning("retrying with a new guest zygote: %s", error)
        discard(zygote)
        return zygote_for(python, env).spawn(argv, env, log_fd)


def discard(zygote: GuestZygote) -> None:
    """Let ``zygote`` go and forget it (one that refused or did not answer)."""
    with _zygotes_lock:
        for key, known in list(_zygotes.items()):
            if known is zygote:
                del _zygotes[key]
    zygote.close()


def zygote_pids() -> list[int]:
    """Pids of this process's zygotes (what the memory benchmark charges to the desktops they serve)."""
    with _zygotes_lock:
        return [zygote.process.pid for zygote in _zygotes.values() if zygote.alive()]


@atexit.register
def close_zygotes() -> None:
    """Let every zygote of this process go."""
    with _zygotes_lock:
        while _zygotes:
            _zygotes.popitem()[1].close(timeout=1.0)
