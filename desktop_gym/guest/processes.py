"""Running commands and tracking spawned processes in the desktop session.

Command output is read through a bounded buffer (a command printing 300 MB costs the guest at
most :data:`DEFAULT_MAX_OUTPUT_BYTES` per stream). A command may run in a PID namespace of its
own, so that when it ends or times out everything it started dies with it, including children
that left its process group with ``setsid``; inside it, ``ps`` and ``kill`` see only its own processes.
"""

from __future__ import annotations

import contextlib
import functools
import os
import select
import shlex
import signal
import subprocess
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

from .proc_table import process_stats
from .types import ExecResult

POLL_INTERVAL = 0.01
DEFAULT_MAX_OUTPUT_BYTES = 16 * 1024 * 1024
"""Most bytes of stdout (and of stderr) a command's result keeps; the rest is read and dropped."""
DRAIN_AFTER_KILL_S = 2.0
_READ_CHUNK = 64 * 1024
# --mount-proc: ps and /proc inside show only the command's own processes, the pids it can signal.
_PID_NAMESPACE_ARGV = (
    ("unshare", "--pid", "--fork", "--kill-child", "--mount-proc"),  # as root
    # unprivileged: the command keeps its own uid inside (util-linux >= 2.38), else it is "root" there
    ("unshare", "--user", "--map-current-user", "--pid", "--fork", "--kill-child", "--mount-proc"),
    ("unshare", "--user", "--map-root-user", "--pid", "--fork", "--kill-child", "--mount-proc"),
)


# Process groups this process started (spawn, run_capped) and has not killed yet: what
# confine.kill_strays spares. The lock also holds off a scan while a Popen is forking.
_tracked_groups: set[int] = set()
_groups_lock = threading.RLock()


@contextlib.contextmanager
def frozen_groups() -> Iterator[frozenset[int]]:
    """Hold off new tracked processes and yield the process groups started here and not killed yet."""
    with _groups_lock:
        yield frozenset(_tracked_groups)


def _popen_tracked(argv: list[str] | str, **kwargs) -> subprocess.Popen:
    with _groups_lock:
        proc = subprocess.Popen(argv, start_new_session=True, **kwargs)
        _tracked_groups.add(proc.pid)
    return proc


def session_env(home: str | Path, base: Mapping[str, str] | None = None) -> dict[str, str]:
    """Return the environment apps run with: the guest's own, with ``HOME`` = the session home.

    Accessibility stays on (``NO_AT_BRIDGE`` removed) and LibreOffice uses the gtk3 toolkit, which
    is the one that exposes an accessibility tree.
    """
    env = dict(os.environ if base is None else base)
    env.pop("NO_AT_BRIDGE", None)
    env["HOME"] = str(home)
    env["SAL_USE_VCLPLUGIN"] = "gtk3"
    env["ACCESSIBILITY_ENABLED"] = "1"
    env.setdefault("LANG", "C.UTF-8")
    return env


def _argv(command: Sequence[str] | str, shell: bool) -> list[str] | str:
    if shell:
        return command if isinstance(command, str) else shlex.join(command)
    return shlex.split(command) if isinstance(command, str) else list(command)


@functools.cache
def pid_namespace_prefix() -> tuple[str, ...]:
    """The ``unshare`` command line that runs a command in a new PID namespace here, or ``()``."""
    for prefix in _PID_NAMESPACE_ARGV[0 if os.geteuid() == 0 else 1 :]:
        try:
            probe = subprocess.run([*prefix, "true"], capture_output=True, timeout=10, check=False)
        except (OSError, subprocess.TimeoutExpired):
            continue
        if probe.returncode == 0:
            return prefix
    return ()


def run_command(
    command: Sequence[str] | str,
    env: Mapping[str, str],
    timeout: float = 30.0,
    shell: bool = False,
    cwd: str | Path | None = None,
) -> ExecResult:
    """Run a command to completion in its own process group (see :func:`run_capped`).

    Output beyond :data:`DEFAULT_MAX_OUTPUT_BYTES` per stream is dropped and a note says so at its end.
    """
    result, cut = run_capped(command, env, timeout, shell, cwd)
    if not cut:
        return result
    note = f"\n... [output cut at {DEFAULT_MAX_OUTPUT_BYTES} bytes]"
    return ExecResult(result.returncode, result.stdout + note, result.stderr, result.timed_out)


def run_capped(
    command: Sequence[str] | str,
    env: Mapping[str, str],
    timeout: float = 30.0,
    shell: bool = False,
    cwd: str | Path | None = None,
    max_output_bytes: int = DEFAULT_MAX_OUTPUT_BYTES,
    pid_namespace: bool = False,
) -> tuple[ExecResult, bool]:
    """Run a command to completion; return its result and whether output was cut.

    On timeout the whole group is SIGKILLed (so children such as ``sleep`` in a shell die too)
    and the result has ``timed_out=True`` and ``returncode=-9``. With ``pid_namespace`` (where
    ``unshare`` works) the command is the init of a PID namespace: when it exits or is killed,
    the kernel kills everything left in the namespace, ``setsid`` daemons included.

    Raises:
        FileNotFoundError: the program (or ``cwd``) does not exist.
        ValueError: the command is empty.
    """
    argv = _argv(command, shell)
    if not argv:
        raise ValueError("exec needs a non-empty command")
    prefix = pid_namespace_prefix() if pid_namespace else ()
    if prefix:
        argv = [*prefix, *(["/bin/sh", "-c", argv] if isinstance(argv, str) else argv)]
        shell = False
    proc = _popen_tracked(
        argv,
        shell=shell,
        cwd=cwd or env.get("HOME"),
        env=dict(env),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        return _collect(proc, timeout, max_output_bytes)
    finally:
        with _groups_lock:
            _tracked_groups.discard(proc.pid)


def _collect(proc: subprocess.Popen, timeout: float, max_output_bytes: int) -> tuple[ExecResult, bool]:
    assert proc.stdout is not None and proc.stderr is not None
    deadline = time.monotonic() + timeout
    streams = {proc.stdout.fileno(): bytearray(), proc.stderr.fileno(): bytearray()}
    pending = list(streams)
    cut = _read_bounded(streams, pending, deadline, max_output_bytes)
    timed_out = bool(pending) or not _wait(proc, max(deadline - time.monotonic(), 0.0))
    if timed_out:
        kill_group(proc.pid)  # the namespace's init dies with unshare (--kill-child), and all in it
        # Grandchildren that escaped the group may hold the pipes open: bound the drain too.
        cut = _read_bounded(streams, pending, time.monotonic() + DRAIN_AFTER_KILL_S, max_output_bytes) or cut
        _wait(proc, DRAIN_AFTER_KILL_S)
    for stream in (proc.stdout, proc.stderr):
        stream.close()
    stdout, stderr = streams.values()
    returncode = proc.returncode if proc.returncode is not None and not timed_out else -signal.SIGKILL
    result = ExecResult(
        returncode=returncode,
        stdout=stdout.decode("utf-8", "replace"),
        stderr=stderr.decode("utf-8", "replace"),
        timed_out=timed_out,
    )
    return result, cut


def _wait(proc: subprocess.Popen, timeout: float) -> bool:
    """Whether ``proc`` exited within ``timeout`` seconds."""
    try:
        proc.wait(timeout=timeout)
        return True
    except subprocess.TimeoutExpired:
        return False


def _read_bounded(streams: dict[int, bytearray], pending: list[int], deadline: float, limit: int) -> bool:
    """Read the ``pending`` pipes until they close or ``deadline``, keeping ``limit`` bytes of each.

    Closed pipes are removed from ``pending``. Returns whether any output was dropped.
    """
    cut = False
    while pending:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            break
        ready, _, _ = select.select(pending, [], [], min(remaining, 0.5))
        for fd in ready:
            chunk = os.read(fd, _READ_CHUNK)
            if not chunk:
                pending.remove(fd)
                continue
            buffer = streams[fd]
            room = max(limit - len(buffer), 0)
            buffer += chunk[:room]
            cut = cut or len(chunk) > room
    return cut


def spawn(
    argv: Sequence[str], env: Mapping[str, str], cwd: str | Path | None = None, log_path: Path | None = None
) -> subprocess.Popen:
    """Start a long-running program as the leader of its own process group.

    Its stdout/stderr go to ``log_path`` (appended) or are discarded.
    """
    log = open(log_path, "ab") if log_path is not None else subprocess.DEVNULL  # noqa: SIM115
    try:
        return _popen_tracked(
            list(argv),
            cwd=cwd or env.get("HOME"),
            env=dict(env),
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    finally:
        if log_path is not None:
            log.close()


def process_group(pid: int | None) -> int | None:
    """The process group of ``pid``; None for no pid or a process that is gone."""
    if not pid:
        return None
    try:
        return os.getpgid(pid)
    except ProcessLookupError:
        return None


def group_alive(pgid: int) -> bool:
    """Whether any process (zombies excluded) is left in process group ``pgid``."""
    return any(fields[0] != "Z" and int(fields[2]) == pgid for _pid, fields in process_stats())


def kill_group(pgid: int, proc: subprocess.Popen | None = None, timeout: float = 5.0) -> None:
    """SIGKILL process group ``pgid``, reap ``proc`` and wait until the group is empty.

    Raises:
        TimeoutError: the group still has live processes after ``timeout``.
    """
    with _groups_lock:
        _tracked_groups.discard(pgid)
    try:
        os.killpg(pgid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    deadline = time.monotonic() + timeout
    if proc is not None:
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            raise TimeoutError(f"process {proc.pid} did not exit within {timeout:.1f}s of SIGKILL") from None
    while group_alive(pgid):
        if time.monotonic() > deadline:
            raise TimeoutError(f"process group {pgid} still has processes {timeout:.1f}s after SIGKILL")
        try:
            os.killpg(pgid, signal.SIGKILL)
        except ProcessLookupError:
            return
        time.sleep(POLL_INTERVAL)
