"""What the host offers a VM: whether KVM really runs, and a free TCP port for the guest's forward."""

from __future__ import annotations

import fcntl
import functools
import os
import shutil
import socket
import subprocess
import tempfile

QEMU = "qemu-system-x86_64"
KVM_GET_API_VERSION = 0xAE00


def _kvm_device_opens(device: str) -> bool:
    try:
        fd = os.open(device, os.O_RDWR | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        return fcntl.ioctl(fd, KVM_GET_API_VERSION, 0) == 12
    except OSError:
        return False
    finally:
        os.close(fd)


@functools.cache
def kvm_usable(device: str = "/dev/kvm") -> bool:
    """Whether QEMU can run a KVM vCPU here (cached per process).

    An openable ``/dev/kvm`` is not enough: under nested virtualization QEMU may abort while setting
    up the vCPU (seen: "failed to set MSR 0x10a"). So a paused VM is started and asked to quit over
    QMP; only a clean exit counts.
    """
    if not _kvm_device_opens(device) or shutil.which(QEMU) is None:
        return False
    probe = [QEMU, "-accel", "kvm", "-cpu", "host", "-machine", "pc", "-nodefaults", "-display", "none"]
    probe += ["-m", "16", "-S", "-qmp", "stdio"]
    try:
        result = subprocess.run(
            probe,
            input='{"execute":"qmp_capabilities"}\n{"execute":"quit"}\n',
            capture_output=True,
            text=True,
            timeout=30,
        )
    except subprocess.TimeoutExpired:
        return False
    return result.returncode == 0 and _kvm_runs_guest_code()


# A boot sector that writes to QEMU's isa-debug-exit port: QEMU then exits with (0x31 << 1) | 1.
_PROBE_BOOT_SECTOR = bytes([0xB0, 0x31, 0xE6, 0xF4, 0xF4, 0xEB, 0xFE]).ljust(510, b"\0") + b"\x55\xaa"
_PROBE_EXIT_CODE = 99
KVM_PROBE_TIMEOUT_S = 3.0  # a working KVM runs it in ~0.1 s; nested KVM here took 6 s (and guests never booted)


def _kvm_runs_guest_code(timeout: float = KVM_PROBE_TIMEOUT_S) -> bool:
    """Whether a KVM vCPU runs real guest code at a usable speed (a boot sector that exits QEMU).

    Under some nested virtualization a KVM VM sets up fine but crawls: the probe VM quits over
    QMP, yet a kernel does not print a line in minutes. TCG is then the faster choice.
    """
    with tempfile.NamedTemporaryFile(suffix=".img") as disk:
        disk.write(_PROBE_BOOT_SECTOR)
        disk.flush()
        probe = [QEMU, "-accel", "kvm", "-machine", "pc", "-nodefaults", "-display", "none", "-m", "16"]
        probe += ["-device", "isa-debug-exit,iobase=0xf4,iosize=0x04", "-boot", "c"]
        probe += ["-drive", f"file={disk.name},format=raw,if=ide"]
        try:
            result = subprocess.run(probe, capture_output=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return False
    return result.returncode == _PROBE_EXIT_CODE


def free_port() -> int:
    """A TCP port on 127.0.0.1 that is free now (the caller binds it soon; another process may race it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]
