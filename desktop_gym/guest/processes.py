"""Running commands and tracking spawned processes in the desktop session."""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from .types import ExecResult

POLL_INTERVAL = 0.01


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


def run_command(
    command: Sequence[str] | str,
    env: Mapping[str, str],
    timeout: float = 30.0,
    shell: bool = False,
    cwd: str | Path | None = None,
) -> ExecResult:
    """Run a command to completion in its own process group.

    On timeout the whole group is SIGKILLed (so children such as ``sleep`` in a shell die too)
    and the result has ``timed_out=True`` and ``returncode=-9``.

    Raises:
        FileNotFoundError: the program (or ``cwd``) does not exist.
        ValueError: the command is empty.
    """
    argv = _argv(command, shell)
    if not argv:
        raise ValueError("exec needs a non-empty command")
    proc = subprocess.Popen(
        argv,
        shell=shell,
        cwd=cwd or env.get("HOME"),
        env=dict(env),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        stdout, stderr = proc.communicate(timeout=timeout)
        timed_out = False
    except subprocess.TimeoutExpired:
        kill_group(proc.pid)
        # Grandchildren that escaped the group may hold the pipes open: bound the drain too.
        try:
            stdout, stderr = proc.communicate(timeout=2.0)
        except subprocess.TimeoutExpired:
            proc.kill()
            stdout, stderr = b"", b""
        timed_out = True
    return ExecResult(
        returncode=proc.returncode if proc.returncode is not None else -signal.SIGKILL,
        stdout=stdout.decode("utf-8", "replace"),
        stderr=stderr.decode("utf-8", "replace"),
        timed_out=timed_out,
    )


def spawn(
    argv: Sequence[str], env: Mapping[str, str], cwd: str | Path | None = None, log_path: Path | None = None
) -> subprocess.Popen:
    """Start a long-running program as the leader of its own process group.

    Its stdout/stderr go to ``log_path`` (appended) or are discarded.
    """
    log = open(log_path, "ab") if log_path is not None else subprocess.DEVNULL  # noqa: SIM115
    try:
        return subprocess.Popen(
            list(argv),
            cwd=cwd or env.get("HOME"),
            env=dict(env),
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    finally:
        if log_path is not None:
            log.close()


def group_alive(pgid: int) -> bool:
    """Whether any process (zombies excluded) is left in process group ``pgid``."""
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            stat = Path(entry.path, "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2 :].split()
        if fields[0] != "Z" and int(fields[2]) == pgid:
            return True
    return False


def kill_group(pgid: int, proc: subprocess.Popen | None = None, timeout: float = 5.0) -> None:
    """SIGKILL process group ``pgid``, reap ``proc`` and wait until the group is empty.

    Raises:
        TimeoutError: the group still has live processes after ``timeout``.
    """
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
