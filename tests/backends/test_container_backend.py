"""The container backend on real podman: the desktop image (built offline on first use, through
``desktop-gym image build``'s code), real containers, real Xvfb + LibreOffice inside."""

from __future__ import annotations

import shutil
import time
from collections.abc import Iterator

import pytest

if shutil.which("podman") is None:
    pytest.skip("podman is not installed (scripts/install.sh installs it)", allow_module_level=True)

import docker

from desktop_gym.backends import BackendError, make_backend, podman_service
from desktop_gym.backends.container import LABEL_BACKEND, LABEL_OWNER, ContainerBackend, owner_alive, owner_label
from desktop_gym.guest.client import GuestClient
from desktop_gym.images import ensure_image, image_exists

# The first test builds the image when it is missing (debootstrap ~1.5-3 min + package layer ~40 s).
pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]


@pytest.fixture(scope="module")
def engine_url() -> str:
    return podman_service.start_podman_service()


@pytest.fixture(scope="module")
def image() -> str:
    return ensure_image("podman")


@pytest.fixture(scope="module")
def engine(engine_url: str) -> Iterator[docker.DockerClient]:
    client = docker.DockerClient(base_url=engine_url)
    yield client
    client.close()


@pytest.fixture(scope="module")
def backend(image: str, engine_url: str) -> Iterator[ContainerBackend]:
    backend = ContainerBackend(image=image, base_url=engine_url)
    backend.start()
    yield backend
    backend.close()


@pytest.fixture
def client(backend: ContainerBackend) -> Iterator[GuestClient]:
    handle = backend.start()
    client = GuestClient(handle.address, token=handle.token, timeout=30.0)
    yield client
    client.kill_apps()
    client.close()


def test_container_is_isolated_and_labelled(backend: ContainerBackend, engine: docker.DockerClient) -> None:
    handle = backend.start()
    attrs = engine.containers.get(handle.info["container"]).attrs
    host = attrs["HostConfig"]
    assert host["NetworkMode"] == "none"
    assert host["Init"] is True
    assert host["Memory"] == 2 * 1024**3
    assert {u["Name"]: (u["Soft"], u["Hard"]) for u in host["Ulimits"]}["RLIMIT_NOFILE"] == (1024, 4096)
    labels = attrs["Config"]["Labels"]
    assert labels[LABEL_BACKEND] == "container" and owner_alive(labels[LABEL_OWNER])
    assert handle.address.startswith(f"unix://{backend.workdir}/")
    assert handle.is_alive()


def test_screenshot_and_keyboard_input(client: GuestClient, wait_until) -> None:
    client.launch_app("terminal")
    shot = client.screenshot()
    assert shot.shape == (720, 1280, 3) and shot.max() > shot.min()
    client.type_text("echo typed-in-a-container > ~/typed.txt\n")
    text = wait_until(lambda: client.get_file("~/typed.txt"), timeout=10, what="the typed command's file")
    assert text.strip() == b"typed-in-a-container"


def test_calc_launches_inside(client: GuestClient) -> None:
    started = time.monotonic()
    app = client.launch_app("calc", timeout=60)
    assert app.alive and app.window_id
    assert any(w.app == "libreoffice-calc" for w in client.windows())
    assert time.monotonic() - started < 30
    client.call_api("calc", "set_cell_value", '{"cell": "A1", "value": 7}')
    assert "7" in client.call_api("calc", "get_cell_value", '{"cell": "A1"}')


def test_restart_apps_reset_keeps_the_container(backend: ContainerBackend, client: GuestClient) -> None:
    container_id = backend.start().info["container_id"]
    client.put_file("~/left-over.txt", b"x")
    terminal = client.launch_app("terminal")
    started = time.monotonic()
    handle = backend.reset_desktop()
    assert time.monotonic() - started < 5
    assert handle.info["container_id"] == container_id
    assert "left-over.txt" not in client.exec("ls -A ~", shell=True).stdout.split()
    assert all(not app.alive for app in client.apps() if app.pid == terminal.pid)


def test_recreate_reset_starts_a_new_container(image: str, engine_url: str, engine: docker.DockerClient) -> None:
    backend = ContainerBackend(image=image, base_url=engine_url, reset_mode="recreate")
    try:
        first = backend.start()
        first_client = GuestClient(first.address, token=first.token)
        first_client.put_file("~/left-over.txt", b"x")
        first_client.close()
        second = backend.reset_desktop()
        assert second.info["container"] != first.info["container"]
        assert backend.containers_named(first.info["container"]) == []
        client = GuestClient(second.address, token=second.token)
        assert "left-over.txt" not in client.exec("ls -A ~", shell=True).stdout.split()
        client.close()
    finally:
        backend.close()
    assert backend.containers_named(second.info["container"]) == []


def test_start_removes_containers_of_dead_owners(image: str, engine_url: str, engine: docker.DockerClient) -> None:
    dead_owner = owner_label().rsplit(":", 1)[0] + ":not-this-start-time"
    stale = engine.containers.create(image, labels={LABEL_BACKEND: "container", LABEL_OWNER: dead_owner})
    live = engine.containers.create(image, labels={LABEL_BACKEND: "container", LABEL_OWNER: owner_label()})
    try:
        backend = ContainerBackend(image=image, base_url=engine_url)
        assert backend.remove_stale_containers() == [stale.name]
        names = {c.name for c in engine.containers.list(all=True, filters={"label": LABEL_BACKEND})}
        assert stale.name not in names and live.name in names
    finally:
        live.remove(force=True)
        try:
            stale.remove(force=True)
        except docker.errors.NotFound:
            pass


def test_missing_image_names_the_build_command(engine_url: str) -> None:
    backend = ContainerBackend(image="desktop-gym:no-such-image", base_url=engine_url)
    with pytest.raises(BackendError, match=r"desktop-gym:no-such-image is not built: run `desktop-gym image build"):
        backend.start()


def test_no_engine_says_how_to_start_podman(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("DOCKER_HOST", f"unix://{tmp_path}/nothing.sock")
    monkeypatch.setattr(podman_service, "DOCKER_SOCKET", tmp_path / "docker.sock")
    monkeypatch.setattr(podman_service, "podman_socket", lambda: tmp_path / "podman.sock")
    with pytest.raises(
        BackendError, match=r"no Docker-compatible container engine answers.*podman system service --time=0"
    ):
        ContainerBackend(image="desktop-gym:any").start()
    with pytest.raises(BackendError, match="no container engine answers at unix:///nonexistent"):
        ContainerBackend(base_url="unix:///nonexistent/docker.sock").start()


def test_registry_and_bad_arguments() -> None:
    assert isinstance(make_backend("container", image="x"), ContainerBackend)
    with pytest.raises(ValueError, match="unknown reset_mode 'snapshot'"):
        ContainerBackend(reset_mode="snapshot")


def test_close_removes_container_and_folder(image: str, engine_url: str) -> None:
    backend = ContainerBackend(image=image, base_url=engine_url)
    handle = backend.start()
    workdir = backend.workdir
    started = time.monotonic()
    backend.close()
    assert time.monotonic() - started < 5, "close must not wait for a stop timeout"
    assert backend.containers_named(handle.info["container"]) == []
    assert workdir is not None and not workdir.exists()
    assert not handle.is_alive()


def test_cli_image_build_is_skipped_when_up_to_date(image: str, capsys) -> None:
    from desktop_gym.cli import main

    # In a working tree others are editing, a run may find new sources and build; then the next is a no-op.
    outputs = []
    for _ in range(3):
        assert main(["image", "build", "--offline", "--engine", "podman"]) == 0
        outputs.append(capsys.readouterr().out)
        if "is up to date" in outputs[-1]:
            break
    tag = outputs[-1].strip().splitlines()[-1]
    assert f"image {tag} is up to date" in outputs[-1], outputs
    assert image_exists("podman", tag)


def test_shared_memory_screenshots_when_asked(image: str, engine_url: str) -> None:
    backend = ContainerBackend(image=image, base_url=engine_url, share_shm=True)
    try:
        handle = backend.start()
        client = GuestClient(handle.address, token=handle.token)
        client.launch_app("terminal")
        shot = client.screenshot()
        assert shot.shape == (720, 1280, 3) and shot.max() > shot.min()
        # The guest wrote into the client's /dev/shm frame instead of refusing it (then bytes would be sent).
        assert client._shared_frame is not None and client._try_shared_frame
        client.close()
    finally:
        backend.close()


def test_env_reset_recreates_the_container_in_recreate_mode(image: str, engine_url: str) -> None:
    from desktop_gym import DesktopEnv

    backend = ContainerBackend(image=image, base_url=engine_url, reset_mode="recreate")
    env = DesktopEnv(task_id="files.move_and_rename", backend=backend, observation=("instruction",))
    try:
        env.reset(seed=0)
        first = backend.start().info["container"]
        # Outside the home, so only a new container (not the env's app restart) removes it.
        assert env.client.exec("touch /tmp/left-behind", shell=True).returncode == 0
        env.reset(seed=1)
        assert backend.start().info["container"] != first
        assert env.client.exec("test -e /tmp/left-behind", shell=True).returncode != 0
        _, _, terminated, _, info = env.step("OSTools.list_folder(path='~/Downloads')")
        assert not terminated and info["action_error"] is None
    finally:
        env.close()
        backend.close()


def test_calc_task_is_proven_end_to_end_in_a_container(backend: ContainerBackend) -> None:
    from desktop_gym import DesktopEnv
    from desktop_gym.testing import check_task

    env = DesktopEnv(task_id="starter.calc_fill_totals", backend=backend)
    try:
        proof = check_task("starter.calc_fill_totals", seeds=(0,), env=env)
    finally:
        env.close()  # the backend (module fixture) stays up
    assert proof.proven, "\n".join(proof.why_unproven())
    assert {"api", "gui", "null", "perturbed"} <= {episode.kind for episode in proof.episodes}
