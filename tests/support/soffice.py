"""A test's own X session and bare soffice (what the backend and launcher do, without the guest)."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import uuid
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

from desktop_gym.guest.apps import lo_profile


def start_soffice(
    work: Path, document: Path, env: Mapping[str, str], cache_dir: Path | None = None, module: str = "--calc"
) -> tuple[subprocess.Popen, str]:
    """Start ``soffice <module> <document>`` on a fresh profile under ``work``, listening on a UNO pipe.

    Args:
        work: The test's folder (the profile goes to ``work/profile``).
        document: The file to open.
        env: The desktop session's environment (``DISPLAY`` and friends).
        cache_dir: The profile template cache (``lo_profile``'s default when None).
        module: The soffice module flag.

    Returns:
        The process (leader of its own session, so ``os.killpg`` ends it) and the pipe name.
    """
    profile_url = lo_profile.fresh_profile(work / "profile", cache_dir)
    pipe = f"test_{uuid.uuid4().hex}"
    argv = ["soffice", f"-env:UserInstallation={profile_url}", "--norestore", "--nologo", "--nodefault"]
    argv += ["--nofirststartwizard", f"--accept=pipe,name={pipe};urp;", module, str(document)]
    process = subprocess.Popen(
        argv, env=dict(env), start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    return process, pipe


DESKTOP_TOOLS = ("soffice", "Xvfb", "openbox", "dbus-daemon")

needs_desktop_tools = pytest.mark.skipif(
    not all(shutil.which(tool) for tool in DESKTOP_TOOLS),
    reason=f"needs {', '.join(DESKTOP_TOOLS)} (scripts/install.sh installs them)",
)
"""Skips a module that starts its own X session and soffice when the desktop tools are missing."""


def start_x_session(runtime: Path, base_env: Mapping[str, str], procs: list[subprocess.Popen]) -> dict[str, str]:
    """Start Xvfb, a private session bus and openbox, each in its own process group.

    Args:
        runtime: The session's ``XDG_RUNTIME_DIR`` (mode 0700).
        base_env: The environment to extend with the session's variables.
        procs: Gets the processes, in start order (Xvfb, dbus-daemon, openbox), for :func:`stop_all`.

    Returns:
        ``base_env`` plus ``DISPLAY``, ``DBUS_SESSION_BUS_ADDRESS`` and ``XDG_RUNTIME_DIR``.
    """
    read_fd, write_fd = os.pipe()
    xvfb_argv = ["Xvfb", "-displayfd", str(write_fd), "-screen", "0", "1280x720x24", "-nolisten", "tcp"]
    procs.append(subprocess.Popen(xvfb_argv, pass_fds=(write_fd,), start_new_session=True, stderr=subprocess.DEVNULL))
    os.close(write_fd)
    with os.fdopen(read_fd, "rb") as display_pipe:
        display = ":" + display_pipe.readline().decode().strip()  # blocks until Xvfb is ready
    assert display != ":", "Xvfb printed no display number"
    dbus_argv = ["dbus-daemon", "--session", "--nofork", "--print-address"]
    dbus = subprocess.Popen(dbus_argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, start_new_session=True)
    procs.append(dbus)
    address = dbus.stdout.readline().decode().strip() if dbus.stdout else ""
    assert address, "dbus-daemon printed no address"
    env = {**base_env, "DISPLAY": display, "DBUS_SESSION_BUS_ADDRESS": address, "XDG_RUNTIME_DIR": str(runtime)}
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    procs.append(subprocess.Popen(["openbox", "--sm-disable"], env=env, start_new_session=True, **quiet))
    return env


def start_a11y_session(work: Path, procs: list[subprocess.Popen]) -> dict[str, str]:
    """:func:`start_x_session` on ``work / "run"`` whose apps use the session's own accessibility bus.

    Returns:
        The session's environment (without this process's ``AT_SPI_BUS_ADDRESS``).
    """
    from desktop_gym.guest import a11y

    runtime = work / "run"
    runtime.mkdir(mode=0o700)
    base = a11y.a11y_environment({k: v for k, v in os.environ.items() if k != "AT_SPI_BUS_ADDRESS"})
    return start_x_session(runtime, base, procs)


def stop_all(procs: list[subprocess.Popen]) -> None:
    """SIGKILL each process group, newest first (the dbus group also holds activated at-spi daemons)."""
    for proc in reversed(procs):
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait(timeout=10)
        if proc.stdout:
            proc.stdout.close()


@contextlib.contextmanager
def calc_on_a11y_bus(work: Path, document_name: str) -> Iterator[tuple[dict[str, str], object]]:
    """Xvfb + openbox + private dbus + soffice --calc on a small "Budget" sheet, on the a11y bus.

    This process's environment points at the session while the block runs (so the a11y module reads
    its bus); everything started is stopped on exit.

    Args:
        work: The test's folder (runtime dir, profile and document go under it).
        document_name: The xlsx file name to write and open.

    Yields:
        The session's environment and the office's UNO connection.
    """
    import openpyxl

    from desktop_gym.guest.apps import uno_bridge

    procs: list[subprocess.Popen] = []
    with pytest.MonkeyPatch.context() as patch:
        try:
            env = start_a11y_session(work, procs)
            for key in ("DISPLAY", "DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR"):
                patch.setenv(key, env[key])
            patch.delenv("AT_SPI_BUS_ADDRESS", raising=False)
            workbook = openpyxl.Workbook()
            workbook.active.title = "Budget"
            workbook.active["A1"], workbook.active["B1"], workbook.active["B2"] = "rent", 1200, 35
            document = work / document_name
            workbook.save(document)
            soffice, pipe = start_soffice(work, document, env, cache_dir=work / "cache")
            procs.append(soffice)
            yield env, uno_bridge.wait_for_uno(pipe, timeout=60)
        finally:
            stop_all(procs)
