"""The qemu guest recipe without a VM: flavors, cache keys, the KVM probe, and the guest agent as the
VM runs it (the launcher, ``--listen tcp:``, no X display), started here on the host."""

from __future__ import annotations

import os
import socket
import subprocess
import sys

import pytest

from desktop_gym.backends.qemu import kvm_usable
from desktop_gym.guest.client import GuestClient
from desktop_gym.guest.types import GuestError
from desktop_gym.images import qemu_guest
from desktop_gym.images.qemu_recipes import AGENT_LAUNCHER, DESKTOP, SMALL, flavor_named


def test_flavors_by_name():
    assert flavor_named("small") is SMALL and flavor_named("desktop") is DESKTOP
    with pytest.raises(ValueError, match="unknown qemu guest flavor 'huge'.*small or desktop"):
        flavor_named("huge")


def test_only_the_desktop_flavor_starts_an_x_session():
    assert "Xvfb" not in SMALL.init_script() and "DISPLAY" not in SMALL.init_script()
    desktop = DESKTOP.init_script()
    assert "Xvfb :0 -screen 0 1280x720x24" in desktop and "export DISPLAY=:0" in desktop
    assert desktop.index("openbox") < desktop.index("guest-agent.py")  # the session is up before the agent
    assert set(SMALL.apt_packages) < set(DESKTOP.apt_packages) and "libreoffice-calc" in DESKTOP.apt_packages


def test_cache_keys_follow_flavor_and_sources(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert qemu_guest.rootfs_key(SMALL) != qemu_guest.rootfs_key(DESKTOP)
    package = tmp_path / "src" / "desktop_gym"
    package.mkdir(parents=True)
    (package / "mod.py").write_text("A = 1\n")
    before = qemu_guest.guest_key(SMALL, tmp_path / "src")
    assert qemu_guest.guest_key(SMALL, tmp_path / "src") == before
    (package / "mod.py").write_text("A = 2\n")
    assert qemu_guest.guest_key(SMALL, tmp_path / "src") != before
    image = qemu_guest.guest_image(SMALL, "abc")
    assert image.disk == tmp_path / "cache/desktop-gym/qemu/guest-small-abc/disk.qcow2"
    assert not image.exists() and qemu_guest.latest_guest_image(SMALL) is None


def test_kvm_probe_is_false_without_a_device(tmp_path):
    assert kvm_usable(str(tmp_path / "no-kvm")) is False


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_headless_agent_over_tcp_as_the_vm_starts_it(tmp_path):
    launcher = tmp_path / "guest-agent.py"
    launcher.write_text(AGENT_LAUNCHER)
    (tmp_path / "token").write_text("secret-token")
    port = _free_port()
    env = {key: value for key, value in os.environ.items() if key not in ("DISPLAY", "WAYLAND_DISPLAY")}
    argv = [sys.executable, str(launcher), "--listen", f"tcp:127.0.0.1:{port}", "--home", str(tmp_path / "home")]
    argv += ["--token-file", str(tmp_path / "token"), "--state-dir", str(tmp_path / "state")]
    (tmp_path / "home").mkdir()
    agent = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        with GuestClient(f"ipv4:127.0.0.1:{port}", token="secret-token", timeout=10) as client:
            client.wait_ready(timeout=30)
            assert client.ping()["width"] == 0  # no display: a headless guest
            assert client.exec(["sh", "-c", 'echo "$HOME"']).stdout.strip() == str(tmp_path / "home")
            with pytest.raises(GuestError, match="no X display"):
                client.screenshot()
    finally:
        agent.terminate()
        agent.wait(10)
        assert agent.stderr is not None
        agent.stderr.close()


def test_listen_needs_tcp_prefix(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "desktop_gym.guest", "--listen", "127.0.0.1:1", "--home", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode != 0 and "--listen takes tcp:HOST:PORT" in result.stderr
