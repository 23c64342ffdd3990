"""What the host offers a VM: whether KVM really runs, and a free TCP port for the guest's forward."""

from __future__ import annotations

import fcntl
import functools
import os
import shutil
import socket
import subprocess

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
    return result.returncode == 0


def free_port() -> int:
    """A TCP port on 127.0.0.1 that is free now (the caller binds it soon; another process may race it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]
