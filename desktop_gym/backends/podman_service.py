"""Find a Docker-compatible engine API, and start podman's if asked.

The container backend talks the Docker API (the ``docker`` SDK). On a Docker host that is
``/var/run/docker.sock``; with podman it is ``podman system service --time=0 unix://<sock>``,
which :func:`start_podman_service` runs in the background (it outlives this process, like a
daemon, so later runs reuse it).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from desktop_gym.errors import EngineUnavailableError

from ..polling import poll_until

DOCKER_SOCKET = Path("/var/run/docker.sock")
POLL_INTERVAL_S = 0.05


def podman_socket() -> Path:
    """Where podman's API socket lives by convention (root: /run/podman; else $XDG_RUNTIME_DIR/podman)."""
    if os.geteuid() == 0:
        return Path("/run/podman/podman.sock")
    runtime = os.environ.get("XDG_RUNTIME_DIR") or f"/run/user/{os.geteuid()}"
    return Path(runtime) / "podman" / "podman.sock"


def start_command(socket: Path | None = None) -> str:
    """The shell line that starts podman's API service (for error messages)."""
    socket = socket or podman_socket()
    return f"podman system service --time=0 unix://{socket} &  export DOCKER_HOST=unix://{socket}"


def engine_answers(base_url: str, timeout: float = 2.0) -> bool:
    """Whether a Docker-compatible API answers ``/_ping`` at ``base_url``."""
    import docker

    try:
        client = docker.DockerClient(base_url=base_url, timeout=timeout)
    except docker.errors.DockerException:
        return False
    try:
        return bool(client.ping())
    except Exception:  # noqa: BLE001 - any transport error means "not answering"
        return False
    finally:
        client.close()


def start_podman_service(socket: Path | None = None, timeout: float = 15.0) -> str:
    """Start ``podman system service`` on ``socket`` unless something answers there; return its URL.

    Raises:
        EngineUnavailableError: podman is not installed, or its service did not answer within ``timeout``.
    """
    socket = socket or podman_socket()
    url = f"unix://{socket}"
    if socket.exists() and engine_answers(url):
        return url
    if shutil.which("podman") is None:
        raise EngineUnavailableError("podman is not installed: apt-get install podman runc")
    socket.parent.mkdir(parents=True, exist_ok=True)
    socket.unlink(missing_ok=True)  # a socket left by a dead service
    log = socket.parent / "podman-service.log"
    with open(log, "ab") as out:
        proc = subprocess.Popen(
            ["podman", "system", "service", "--time=0", url],
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=out,
            start_new_session=True,  # a daemon: not killed with our process group
        )

    def answers() -> bool:
        if socket.exists() and engine_answers(url):
            return True
        if proc.poll() is not None:
            tail = log.read_text(errors="replace")[-800:]
            raise EngineUnavailableError(f"podman system service exited with code {proc.returncode}: {tail}")
        return False

    poll_until(answers, timeout, f"podman system service to answer on {socket}", interval=POLL_INTERVAL_S,
               error=EngineUnavailableError)  # fmt: skip
    return url


def find_engine(start_podman: bool = False) -> str:
    """The URL of a Docker-compatible API: ``$DOCKER_HOST``, the Docker socket, or podman's socket.

    Args:
        start_podman: Start podman's service when nothing answers (and podman is installed).

    Raises:
        EngineUnavailableError: nothing answers; the message names what was tried and how to start podman.
    """
    tried = []
    candidates = []
    if os.environ.get("DOCKER_HOST"):
        candidates.append(os.environ["DOCKER_HOST"])
    candidates += [f"unix://{DOCKER_SOCKET}", f"unix://{podman_socket()}"]
    for url in candidates:
        tried.append(url)
        if (not url.startswith("unix://") or Path(url[len("unix://") :]).exists()) and engine_answers(url):
            return url
    if start_podman and shutil.which("podman") is not None:
        return start_podman_service()
    raise EngineUnavailableError(
        f"no Docker-compatible container engine answers (tried {', '.join(tried)}). "
        f"Start podman's API service: {start_command()} -- or pass start_podman_service=True"
    )
