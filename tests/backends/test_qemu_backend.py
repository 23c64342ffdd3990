"""The qemu backend on a real VM (TCG here: no nested KVM) booting the small guest the project builds.

The first run builds the guest through the cached code path (``build_guest_image``: debootstrap,
needs root and the apt mirror, a few minutes); later runs reuse it from the user cache.
"""

from __future__ import annotations

import os
import shutil
import socket
import time

import pytest

from desktop_gym.backend_check import check_backend
from desktop_gym.backends import BackendError, available_backends, make_backend, qemu
from desktop_gym.backends.qemu import QemuBackend, kvm_usable
from desktop_gym.guest.client import GuestClient
from desktop_gym.guest.proc_table import pid_running
from desktop_gym.guest.types import GuestError
from desktop_gym.images.qemu_guest import GuestImage, build_guest_image, latest_guest_image
from desktop_gym.images.qemu_recipes import DESKTOP

pytestmark = [
    pytest.mark.slow,
    pytest.mark.timeout(900),
    pytest.mark.skipif(shutil.which("qemu-system-x86_64") is None, reason="apt-get install qemu-system-x86"),
]


@pytest.fixture(scope="module")
def guest_image() -> GuestImage:
    if os.geteuid() != 0 or shutil.which("debootstrap") is None:
        pytest.skip("building the qemu guest needs root and debootstrap")
    return build_guest_image()


@pytest.fixture(scope="module")
def vm(guest_image):
    backend = QemuBackend(image=guest_image, startup_timeout=240)
    handle = backend.start()
    yield backend, handle
    backend.close()


def test_registered_by_name():
    assert "qemu" in available_backends()
    assert isinstance(make_backend("qemu"), QemuBackend)


def test_missing_image_names_the_build_command(tmp_path):
    missing = GuestImage(tmp_path / "disk.qcow2", tmp_path / "vmlinuz", tmp_path / "initrd.img", "nothing")
    with pytest.raises(BackendError, match="desktop-gym image build --qemu-small"):
        QemuBackend(image=missing).start()


def test_kvm_probe_matches_the_accelerator_used(vm):
    backend, handle = vm
    assert handle.info["accel"] == ("kvm" if kvm_usable() else "tcg")


def test_guest_answers_exec_and_files(vm):
    backend, handle = vm
    assert handle.address.startswith("ipv4:127.0.0.1:")
    with GuestClient(handle.address, token=handle.token, timeout=30) as client:
        result = client.exec(["sh", "-c", 'echo "$HOME"; uname -s; exit 3'])
        assert result.returncode == 3
        assert result.stdout.split() == ["/home/user", "Linux"]
        assert client.exec(["hostname"]).stdout.strip() == "desktop-gym-guest"  # really inside the VM
        client.put_file("~/hello.txt", b"from the host")
        assert client.get_file("~/hello.txt") == b"from the host"


def test_wrong_token_is_refused(vm):
    _, handle = vm
    with GuestClient(handle.address, token="not-the-token", timeout=10) as client:
        with pytest.raises(GuestError, match="token"):
            client.exec(["true"])


def test_headless_guest_says_it_has_no_display(vm):
    _, handle = vm
    with GuestClient(handle.address, token=handle.token, timeout=30) as client:
        with pytest.raises(GuestError, match="no X display"):
            client.screenshot()


def test_restore_puts_files_and_processes_back(vm):
    backend, handle = vm
    with GuestClient(handle.address, token=handle.token, timeout=30) as client:
        client.exec(["sh", "-c", "rm -f ~/state.txt"])
        backend.snapshot("before")
        client.put_file("~/state.txt", b"written after the snapshot")
        client.exec(["sh", "-c", "sleep 1000 > /dev/null 2>&1 & echo $! > ~/sleeper.pid"], shell=False)
        assert client.exec(["sh", "-c", "pgrep -x sleep"]).returncode == 0
    started = time.monotonic()
    handle = backend.restore("before")
    elapsed = time.monotonic() - started
    with GuestClient(handle.address, token=handle.token, timeout=30) as client:  # a fresh connection
        gone = client.exec(["sh", "-c", "test -e ~/state.txt || echo gone; pgrep -x sleep || echo no-sleep"])
        assert gone.stdout.split() == ["gone", "no-sleep"]
    assert elapsed < 30, f"restore took {elapsed:.1f} s"


def test_reset_desktop_restores_the_clean_boot_snapshot(vm):
    backend, handle = vm
    with GuestClient(handle.address, token=handle.token, timeout=30) as client:
        client.put_file("~/episode.txt", b"episode 1")
    handle = backend.reset_desktop()
    # The sync measures the offset at a round trip's midpoint and sends the time that much ahead.
    assert abs(backend.timings["clock_offset_s"]) < 0.04, backend.timings  # the old sync left it 40-80 ms behind
    with GuestClient(handle.address, token=handle.token, timeout=30) as client:
        assert client.exec(["sh", "-c", "test -e ~/episode.txt && echo present"]).stdout.strip() == ""
        assert client.exec(["sh", "-c", "test -e ~/hello.txt && echo present"]).stdout.strip() == ""
        # The clean snapshot is from boot: without a resync the guest clock lags (1.5 s seen after 10 s).
        before = time.time()
        guest_now = float(client.exec(["date", "+%s.%N"]).stdout)
        after = time.time()
        assert before - 0.5 < guest_now < after + 0.5, f"guest clock {guest_now - before:+.2f} s off after reset"


def test_bad_snapshot_names_are_refused(vm):
    backend, _ = vm
    with pytest.raises(ValueError, match="snapshot name"):
        backend.snapshot("two words; quit")
    with pytest.raises(BackendError, match="no snapshot 'never-taken'"):
        backend.restore("never-taken")


def test_conformance_checks_then_close_leaves_nothing(guest_image, monkeypatch):
    # The first port offered is taken (as when another process grabs it between pick and bind): start retries.
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    taken_port = taken.getsockname()[1]
    offered = [taken_port]
    monkeypatch.setattr(qemu, "free_port", lambda real=qemu.free_port: offered.pop() if offered else real())
    backend = QemuBackend(image=guest_image, startup_timeout=240)
    try:
        handle = backend.start()  # check_backend's own start() gets this running VM back
    finally:
        taken.close()
    assert not offered and handle.info["port"] != taken_port
    pid, workdir = handle.info["pid"], backend.workdir
    assert pid_running(pid) and workdir is not None and (workdir / "overlay.qcow2").exists()
    report = check_backend(backend, timeout=60)
    print(report.summary())
    verdicts = {check.name: check for check in report.checks}
    for name in ("start", "exec", "files", "close"):
        assert verdicts[name].ok, report.summary()
    # Screen, input and the accessibility tree need an X display, which the small guest lacks.
    assert not verdicts["screenshot"].ok and "no X display" in verdicts["screenshot"].detail, report.summary()
    assert not pid_running(pid), f"qemu {pid} still runs after close"
    assert not workdir.exists(), "the overlay folder survived close"
    with pytest.raises(BackendError, match="not running"):
        backend.snapshot()


def test_desktop_guest_passes_every_backend_check():
    """Opt-in (slow, ~1.5 GB image): runs when ``desktop-gym image build --qemu`` has been run."""
    image = latest_guest_image(DESKTOP)
    if image is None:
        pytest.skip("the desktop guest is not built: desktop-gym image build --qemu")
    report = check_backend(QemuBackend(image=image, cpus=2, startup_timeout=600), timeout=300)
    print(report.summary())
    report.raise_for_failures()
