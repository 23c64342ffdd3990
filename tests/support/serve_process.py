"""Starting ``desktop-gym serve`` as a real process, for tests that talk to it."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
from pathlib import Path

import pytest

from desktop_gym.serve.cluster import SERVER_MARKER

CLI = str(Path(sys.executable).with_name("desktop-gym"))
SERVER_START_TIMEOUT_S = 120


def read_json_line(proc: subprocess.Popen, timeout: float) -> dict:
    """The first stdout line of ``proc`` as JSON (fails the test naming what it waited for)."""
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], timeout)
    if not ready:
        proc.kill()
        pytest.fail(f"desktop-gym serve printed no address within {timeout}s; stderr: {proc.stderr.read()[-2000:]}")
    return json.loads(proc.stdout.readline())


def start_serve(key: str, timeout: float = SERVER_START_TIMEOUT_S) -> tuple[subprocess.Popen, dict]:
    """Start ``desktop-gym serve`` (2 envs, 1 warm) with its processes marked ``key``.

    Returns:
        the process and the line it printed once listening (``address``, ``token``).
    """
    proc = subprocess.Popen(
        [CLI, "serve", "--address", "127.0.0.1:0", "--max-envs", "2", "--warm", "1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, SERVER_MARKER: key},
    )
    return proc, read_json_line(proc, timeout)
