"""A desktop in a container, through the Docker API (Docker, or podman's compatible service).

The container runs the desktop image's entrypoint (:mod:`.container_entry`: the local backend's
session, inside). It has no network (``--network none``), an init process (``--init``), memory
and CPU limits, and one bind mount: a host folder mounted at the same path inside, holding the
guest's unix socket and ``ready.json``. So the guest address the container reports works on the
host as it is.

Reset modes: ``"restart_apps"`` keeps the container and kills the apps + wipes the home through the
guest (what ``DesktopEnv.reset`` does anyway, ~1 s with Calc); ``"recreate"`` starts a new
container per :meth:`ContainerBackend.reset_desktop` (clean, ~2-3 s).
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import socket
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from ..guest.client import GuestClient
from ..guest.proc_table import stat_fields
from .base import Backend, BackendError, DesktopHandle
from .container_entry import ERROR_FILE, READY_FILE
from .podman_service import EngineUnavailableError, find_engine, start_command

LABEL_BACKEND = "org.desktop-gym.backend"
LABEL_OWNER = "org.desktop-gym.owner"  # "<hostname>:<pid>:<process start time>" of the process that started it
RESET_MODES = ("restart_apps", "recreate")
# podman's defaults (1M files) make Xvfb and soffice slow to start; same values as containers.conf.
ULIMITS = (("nofile", 1024, 4096), ("nproc", 1024, 4096))
POLL_INTERVAL_S = 0.02
BUILD_HINT = "desktop-gym image build --offline --engine podman"


def _process_start_time(pid: int) -> str | None:
    fields = stat_fields(pid)
    return fields[19] if fields is not None else None


def owner_label(pid: int | None = None) -> str:
    """This process's owner label: host, pid and start time (so a reused pid is not mistaken for us)."""
    pid = pid or os.getpid()
    return f"{socket.gethostname()}:{pid}:{_process_start_time(pid)}"


def owner_alive(label: str) -> bool:
    """Whether the process named by an owner label still runs (labels of other hosts count as alive)."""
    try:
        host, pid, started = label.rsplit(":", 2)
    except ValueError:
        return False
    if host != socket.gethostname():
        return True
    return pid.isdigit() and _process_start_time(int(pid)) == started


class ContainerBackend(Backend):
    """A desktop session in a container.

    Args:
        image: Image to run; ``None`` = the image of this checkout (``desktop_gym.images.image_tag()``).
        width: Screen width in pixels.
        height: Screen height in pixels.
        base_url: Docker API URL; ``None`` = ``$DOCKER_HOST``, the Docker socket or podman's socket.
        start_podman_service: Start ``podman system service`` when no engine answers.
        reset_mode: ``"restart_apps"`` (fast, same container) or ``"recreate"`` (new container).
        mem_limit: Memory limit (Docker syntax, e.g. ``"2g"``).
        cpus: CPU limit (fractional cores).
        warm_spare: Passed to the in-container session (a LibreOffice ready for the next launch).
        startup_timeout: Seconds allowed for the container's desktop to answer.
        build_image: Build the image (offline, through ``desktop-gym image build``'s code) if missing.
        share_shm: Mount the host's ``/dev/shm`` in the container, so screenshots travel through shared
            memory (~2 ms) instead of the socket (~8-20 ms). Off by default: the desktop's apps then
            see the host's shared-memory files.
    """

    name = "container"

    def __init__(
        self,
        image: str | None = None,
        width: int = 1280,
        height: int = 720,
        base_url: str | None = None,
        start_podman_service: bool = False,
        reset_mode: str = "restart_apps",
        mem_limit: str = "2g",
        cpus: float = 2.0,
        warm_spare: bool = False,
        startup_timeout: float = 60.0,
        build_image: bool = False,
        share_shm: bool = False,
    ) -> None:
        if reset_mode not in RESET_MODES:
            raise ValueError(f"unknown reset_mode {reset_mode!r} (choose {' or '.join(RESET_MODES)})")
        self.image = image
        self.width, self.height = width, height
        self.base_url = base_url
        self.start_podman_service = start_podman_service
        self.reset_mode = reset_mode
        self.mem_limit, self.cpus = mem_limit, cpus
        self.warm_spare = warm_spare
        self.startup_timeout = startup_timeout
        self.build_image = build_image
        self.share_shm = share_shm
        self._docker: Any = None
        self._container: Any = None
        self._handle: DesktopHandle | None = None
        self.workdir: Path | None = None

    # -- engine ----------------------------------------------------------------------------------

    def _engine(self) -> Any:
        if self._docker is None:
            try:
                import docker
            except ImportError:
                raise BackendError(
                    "the container backend needs the docker SDK: pip install 'desktop-gym[container]'"
                ) from None
            try:
                url = self.base_url or find_engine(start_podman=self.start_podman_service)
            except EngineUnavailableError as exc:
                raise BackendError(str(exc)) from None
            try:
                self._docker = docker.DockerClient(base_url=url, timeout=120)  # asks the engine its version
                self._docker.ping()
            except Exception as exc:  # noqa: BLE001 - transport errors of any kind
                self._docker = None
                raise BackendError(
                    f"no container engine answers at {url}: {exc}. Start podman's API service: {start_command()}"
                ) from None
        return self._docker

    def _image(self) -> str:
        import docker

        from ..images import ensure_image, image_tag

        image = self.image or image_tag()
        try:
            self._engine().images.get(image)
        except docker.errors.ImageNotFound:
            if not self.build_image:
                raise BackendError(f"image {image} is not built: run `{BUILD_HINT}`") from None
            image = ensure_image("podman" if shutil.which("podman") else "docker")
        return image

    def remove_stale_containers(self) -> list[str]:
        """Remove containers of this backend whose starting process is gone; return their names."""
        removed = []
        for container in self._engine().containers.list(all=True, filters={"label": LABEL_BACKEND}):
            if not owner_alive(container.labels.get(LABEL_OWNER, "")):
                container.remove(force=True, v=True)
                removed.append(container.name)
        return removed

    # -- lifecycle -------------------------------------------------------------------------------

    def _start(self) -> DesktopHandle:
        """Start a container and return once its guest answers.

        Raises:
            BackendError: no engine answers, the image is missing, or the desktop failed to start
                (the container's log tail is in the message).
            TimeoutError: the desktop did not answer within ``startup_timeout``.
        """
        image = self._image()
        self.remove_stale_containers()
        return self._run(image)

    def _run(self, image: str) -> DesktopHandle:
        from docker.types import Ulimit

        # Short path: the guest's unix socket lives below it (108-byte limit).
        self.workdir = Path(tempfile.mkdtemp(prefix="dg-ctr-", dir="/tmp"))
        name = f"desktop-gym-{uuid.uuid4().hex[:12]}"
        volumes = {str(self.workdir): {"bind": str(self.workdir), "mode": "rw"}}
        if self.share_shm:
            volumes["/dev/shm"] = {"bind": "/dev/shm", "mode": "rw"}
        self._container = self._engine().containers.run(
            image,
            command=["--workdir", str(self.workdir), "--width", str(self.width), "--height", str(self.height)]
            + (["--warm-spare"] if self.warm_spare else []),
            name=name,
            detach=True,
            init=True,
            network_mode="none",
            volumes=volumes,
            mem_limit=self.mem_limit,
            nano_cpus=int(self.cpus * 1e9),
            **({} if self.share_shm else {"shm_size": "256m"}),
            ulimits=[Ulimit(name=n, soft=soft, hard=hard) for n, soft, hard in ULIMITS],
            labels={LABEL_BACKEND: "container", LABEL_OWNER: owner_label()},
        )
        ready = self._wait_ready_file(time.monotonic() + self.startup_timeout)
        self.wait_for_guest(ready["address"], ready["token"], self.startup_timeout, self._exit_reason)
        return self._new_handle(
            ready["address"],
            ready["token"],
            {
                "container": name,
                "container_id": self._container.id,
                "image": image,
                "reset_mode": self.reset_mode,
                **{key: ready[key] for key in ("display", "home", "session")},
            },
            alive_check=functools.partial(self._container_alive, self._container, ready["address"]),
        )

    def _exit_reason(self) -> str | None:
        assert self._container is not None
        self._container.reload()
        if self._container.status in ("created", "running"):
            return None
        return f"container {self._container.name} exited ({self._container.status}); log: {self.logs()[-800:]!r}"

    def _wait_ready_file(self, deadline: float) -> dict:
        assert self.workdir is not None and self._container is not None
        ready, error = self.workdir / READY_FILE, self.workdir / ERROR_FILE
        next_status_check = 0.0
        while not ready.exists():
            if error.exists():
                raise BackendError(f"the desktop in container {self._container.name} failed: {error.read_text()}")
            now = time.monotonic()
            if now > next_status_check:  # an API round trip: not on every poll
                self._container.reload()
                if self._container.status not in ("created", "running"):
                    raise BackendError(
                        f"container {self._container.name} exited ({self._container.status}) before its desktop "
                        f"was ready; log: {self.logs()[-800:]!r}"
                    )
                next_status_check = now + 0.5
            if now > deadline:
                raise TimeoutError(f"timed out waiting for the desktop in container {self._container.name}")
            time.sleep(POLL_INTERVAL_S)
        return json.loads(ready.read_text())

    def logs(self) -> str:
        """The container's output (the in-container session's messages)."""
        if self._container is None:
            return ""
        try:
            return self._container.logs().decode(errors="replace")
        except Exception as exc:  # noqa: BLE001 - the container may be gone already
            return f"<no logs: {exc}>"

    def is_alive(self) -> bool:
        """Whether the current container runs and its guest socket exists."""
        if self._container is None or self._handle is None:
            return False
        return self._container_alive(self._container, self._handle.address)

    @staticmethod
    def _container_alive(container: Any, address: str) -> bool:
        """Per handle: a handle of a replaced (``recreate``) container reports dead, not its successor's state."""
        try:
            container.reload()
        except Exception:  # noqa: BLE001 - removed behind our back, or the engine went away
            return False
        return container.status == "running" and Path(address[len("unix://") :]).exists()

    def reset_desktop(self) -> DesktopHandle:
        """Bring the desktop back to its initial state, per ``reset_mode``; return its handle.

        ``"restart_apps"``: kill every app and empty the home through the guest (the container stays).
        ``"recreate"``: replace the container by a new one.
        """
        if self.reset_mode == "recreate" or self._handle is None or not self.is_alive():
            self.close()
            return self.start()
        client = GuestClient(self._handle.address, token=self._handle.token)
        try:
            client.clear_session()
        finally:
            client.close()
        return self._handle

    def containers_named(self, name: str) -> list[str]:
        """Names of this backend's containers (any state) called ``name``: empty once it is removed."""
        found = self._engine().containers.list(all=True, filters={"label": LABEL_BACKEND, "name": name})
        return [c.name for c in found if c.name == name]

    def memory_bytes(self) -> int | None:
        """Memory the container's cgroup uses now (``memory.current`` / ``memory.usage_in_bytes``)."""
        if self._container is None:
            return None
        stats = self._container.stats(stream=False)
        usage = stats.get("memory_stats", {}).get("usage")
        return int(usage) if usage else None

    def _close(self, timeout: float) -> None:
        """Kill and remove the container (no grace period) and remove its bind-mounted folder."""
        if self._container is not None:
            import docker

            container, self._container = self._container, None
            try:  # SIGKILL first: a forced remove alone may wait out the engine's stop timeout (10 s on podman)
                container.kill()
            except docker.errors.APIError:
                pass  # exited already, or gone
            try:
                container.remove(force=True, v=True)
            except docker.errors.NotFound:
                pass
            except docker.errors.APIError as exc:
                raise BackendError(f"could not remove container {container.name}: {exc}") from exc
        if self.workdir is not None:
            shutil.rmtree(self.workdir, ignore_errors=True)
            self.workdir = None
