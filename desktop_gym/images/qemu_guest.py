"""The small QEMU guest: ``desktop-gym image build --qemu-small``.

A headless Debian bookworm VM disk the project builds itself, without a registry or a loop mount:

1. *rootfs* (cached by the apt list, the recipe and ``setup.cfg``): ``debootstrap --variant=minbase``
   from this machine's apt mirror, ``linux-image-amd64`` (kernel + initrd, virtio drivers), python3,
   and a venv at ``/opt/desktop-gym/venv`` holding the package's dependencies (wheels built here).
2. *guest disk* (cached by the rootfs key, the package sources and the init script): a copy of the
   rootfs + the package (``--no-deps``) + :data:`INIT_SCRIPT` as PID 1 -> ``mkfs.ext4 -d`` ->
   ``qemu-img convert`` to a read-only qcow2 base; the kernel and initrd sit beside it.

The init script brings up ``eth0`` at QEMU's user-network address, reads the session token from
``fw_cfg`` (so it never shows on a command line) and runs ``python -m desktop_gym.guest --listen
tcp:0.0.0.0:7070``. The guest has no X display: ping, exec, files and API tools without an app.
"""

from __future__ import annotations

import configparser
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from . import debian
from .build import REPO_ROOT, ImageBuildError, Log, _hash_tree, _print, _quiet, copy_sources

SUITE = "bookworm"
RECIPE_VERSION = "1"  # bump when the build steps change
GUEST_PORT = 7070
TOKEN_FW_CFG = "opt/org.desktop-gym/token"
VENV = "/opt/desktop-gym/venv"
GUEST_HOME = "/home/user"
APT_PACKAGES: tuple[str, ...] = (
    "linux-image-amd64", "initramfs-tools", "python3", "python3-venv", "iproute2", "kmod", "procps",
)  # fmt: skip
EXTRA_WHEELS: tuple[str, ...] = ("mss", "python-xlib")  # server.py imports them (X parts stay unused)
# Kernel modules a virtio VM never loads: dropped from the disk (the initrd is built before).
UNUSED_MODULES = (
    "drivers/gpu", "drivers/media", "drivers/net/wireless", "drivers/net/ethernet", "drivers/infiniband",
    "drivers/staging", "drivers/scsi", "drivers/usb", "drivers/bluetooth", "drivers/iio", "drivers/hid",
    "drivers/input", "drivers/isdn", "drivers/mtd", "drivers/nfc", "drivers/platform", "sound", "net/wireless",
    "net/mac80211", "net/bluetooth", "fs/ocfs2", "fs/btrfs", "fs/xfs", "fs/nfs", "fs/smb", "fs/gfs2",
)  # fmt: skip
# The initrd holds only what mounts a virtio root (MODULES=list): smaller, built and unpacked faster.
INITRAMFS_MODULES = ("virtio_pci", "virtio_blk", "virtio_net", "ext4", "crc32c_generic")
# Starts the agent without running desktop_gym/__init__ (the public surface: gymnasium, tasks, env),
# which the guest never uses: importing the server drops from ~1.8 s to ~0.4 s natively, ~5x under TCG.
AGENT_LAUNCHER = """\
import importlib.util, runpy, sys, types
spec = importlib.util.find_spec("desktop_gym")
package = types.ModuleType("desktop_gym")
package.__path__, package.__spec__ = list(spec.submodule_search_locations), spec
sys.modules["desktop_gym"] = package
runpy.run_module("desktop_gym.guest", run_name="__main__", alter_sys=True)
"""
INIT_SCRIPT = f"""#!/bin/sh
# PID 1 of the small desktop-gym QEMU guest: mounts, network, token, then the guest agent.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 HOME={GUEST_HOME}
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev 2>/dev/null
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
mount -t tmpfs tmpfs /run
mount -t tmpfs tmpfs /tmp
mount -o remount,rw /
hostname desktop-gym-guest
ip link set lo up
ip link set eth0 up
ip addr add 10.0.2.15/24 dev eth0
modprobe qemu_fw_cfg
mkdir -p /run/desktop-gym {GUEST_HOME}
cp /sys/firmware/qemu_fw_cfg/by_name/{TOKEN_FW_CFG}/raw /run/desktop-gym/token
echo "desktop-gym-guest: starting the guest agent"
while true; do
  {VENV}/bin/python /opt/desktop-gym/guest-agent.py --listen tcp:0.0.0.0:{GUEST_PORT} --home {GUEST_HOME} \\
    --token-file /run/desktop-gym/token --state-dir /run/desktop-gym/state
  echo "desktop-gym-guest: the guest agent exited ($?), restarting"
  sleep 1
done
"""


@dataclass(frozen=True)
class GuestImage:
    """A built small guest: the qcow2 base disk (read-only, overlays go on top), kernel and initrd."""

    disk: Path
    kernel: Path
    initrd: Path
    key: str

    def exists(self) -> bool:
        return self.disk.is_file() and self.kernel.is_file() and self.initrd.is_file()

    @property
    def append(self) -> str:
        """The kernel command line that boots it."""
        return "root=/dev/vda rw console=ttyS0 net.ifnames=0 quiet mitigations=off init=/sbin/desktop-gym-init"


def cache_dir() -> Path:
    """``$XDG_CACHE_HOME/desktop-gym/qemu`` (``~/.cache/...`` by default)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "desktop-gym" / "qemu"


def _install_requires() -> list[str]:
    config = configparser.ConfigParser()
    config.read(REPO_ROOT / "setup.cfg")
    return config.get("options", "install_requires", fallback="").split()


def rootfs_key() -> str:
    """Hash of what goes into the cached rootfs: apt list, recipe, the package's dependencies."""
    spec = [SUITE, RECIPE_VERSION, APT_PACKAGES, EXTRA_WHEELS, UNUSED_MODULES, INITRAMFS_MODULES, _install_requires()]
    return hashlib.sha256(json.dumps(spec).encode()).hexdigest()[:12]


def guest_key(source_root: Path = REPO_ROOT) -> str:
    """Hash of the guest disk: the rootfs key, the init script and the package sources."""
    digest = hashlib.sha256(f"{rootfs_key()}\0{INIT_SCRIPT}\0{AGENT_LAUNCHER}".encode())
    _hash_tree(digest, source_root / "desktop_gym", "desktop_gym")
    return digest.hexdigest()[:12]


def guest_image(key: str | None = None) -> GuestImage:
    """Where the guest of this checkout (or of ``key``) lives in the cache, built or not."""
    key = key or guest_key()
    folder = cache_dir() / f"guest-{key}"
    return GuestImage(folder / "disk.qcow2", folder / "vmlinuz", folder / "initrd.img", key)


def latest_guest_image() -> GuestImage | None:
    """The most recently built guest in the cache, whatever sources it was built from (``None`` if none)."""
    built = [guest_image(path.name[len("guest-") :]) for path in cache_dir().glob("guest-*")]
    built = [image for image in built if image.exists()]
    return max(built, key=lambda image: image.disk.stat().st_mtime, default=None)


def _run(argv: list[str], what: str, **kwargs) -> str:
    result = subprocess.run(argv, capture_output=True, text=True, **kwargs)
    if result.returncode != 0:
        raise ImageBuildError(f"{what} failed (exit {result.returncode}): {result.stderr.strip()[-2000:]}")
    return result.stdout


def _remove_tree(path: Path) -> None:
    """``rm -rf`` a build folder, detaching first whatever is still mounted below it (a killed chroot
    step can leave its /dev bind mount behind, and deleting through it would hit the host's /dev)."""
    prefix = str(path.resolve()) + "/"
    for line in Path("/proc/mounts").read_text().splitlines():
        point = line.split()[1].replace("\\040", " ")
        if point.startswith(prefix):
            subprocess.run(["umount", "-l", point], capture_output=True)
    shutil.rmtree(path, ignore_errors=True)


def _wheels(src: Path, dest: Path, deps_only: bool) -> list[Path]:
    """Wheels of the package's dependencies (``deps_only``) or of the package alone."""
    argv = [sys.executable, "-m", "pip", "wheel", "-q", "--wheel-dir", str(dest)]
    argv += [str(src), *EXTRA_WHEELS] if deps_only else ["--no-deps", str(src)]
    _run(argv, "pip wheel", cwd=dest.parent)
    own = sorted(dest.glob("desktop_gym-*.whl"))
    if deps_only:
        for wheel in own:
            wheel.unlink()
        return sorted(dest.glob("*.whl"))
    return own


def build_rootfs(target: Path, log: Log = _print) -> None:
    """debootstrap + kernel + python3 + a venv with the dependencies, at ``target`` (absent before)."""
    if sys.version_info[:2] != (3, 11):
        raise ImageBuildError(f"wheels for the bookworm guest need Python 3.11, this is {sys.version.split()[0]}")
    partial = target.with_name(target.name + ".partial")
    _remove_tree(partial)
    started = time.monotonic()
    mirror = debian.debian_mirror(SUITE)
    log(f"[1/5] debootstrap --variant=minbase {SUITE} from {mirror}")
    debian.debootstrap(partial, SUITE, mirror, log=_quiet(log, keep=("E:", "W:")))
    debian.write_apt_sources(partial, debian.suite_sources(SUITE))
    initramfs = partial / "etc/initramfs-tools"
    (initramfs / "conf.d").mkdir(parents=True, exist_ok=True)
    (initramfs / "conf.d/desktop-gym").write_text("MODULES=list\nCOMPRESS=gzip\n")
    (partial / "usr/share/initramfs-tools/modules.d").mkdir(parents=True, exist_ok=True)
    (partial / "usr/share/initramfs-tools/modules.d/desktop-gym").write_text("\n".join(INITRAMFS_MODULES) + "\n")
    log(f"[2/5] apt-get install {' '.join(APT_PACKAGES)} ({time.monotonic() - started:.0f} s)")
    debian.chroot_apt_install(partial, APT_PACKAGES, log=_quiet(log, keep=("Setting up linux-image", "E:", "W:")))
    log(f"[3/5] venv with the guest's dependencies ({time.monotonic() - started:.0f} s)")
    with tempfile.TemporaryDirectory(prefix="dg-qemu-wheels-", dir="/var/tmp") as tmp:
        src = copy_sources(Path(tmp))
        wheels = partial / "tmp/wheels"
        wheels.mkdir(parents=True)
        names = [w.name.split("-")[0] for w in _wheels(src, wheels, deps_only=True)]
        with debian.chroot_mounts(partial):
            debian.chroot_run(partial, ["python3", "-m", "venv", VENV], what="python3 -m venv in the chroot")
            debian.chroot_run(
                partial,
                [f"{VENV}/bin/pip", "install", "-q", "--no-index", "--find-links", "/tmp/wheels", *names],
                what="pip install of the guest's dependencies in the chroot",
            )
        shutil.rmtree(wheels)
    modules = next((partial / "lib/modules").iterdir())
    for folder in UNUSED_MODULES:
        shutil.rmtree(modules / "kernel" / folder, ignore_errors=True)
    with debian.chroot_mounts(partial):
        debian.chroot_run(partial, ["depmod", modules.name], what="depmod")
    for folder in ("usr/share/doc", "usr/share/man", "usr/share/locale", "var/cache/apt"):
        shutil.rmtree(partial / folder, ignore_errors=True)
    partial.rename(target)


def _disk_from_rootfs(root: Path, image: GuestImage, log: Log) -> None:
    """ext4 via ``mkfs.ext4 -d`` (content + headroom), converted to qcow2; kernel and initrd beside it."""
    folder = image.disk.parent
    partial = folder.with_name(folder.name + ".partial")
    _remove_tree(partial)
    partial.mkdir(parents=True)
    boot = root / "boot"
    shutil.copy2(next(boot.glob("vmlinuz-*")), partial / image.kernel.name)
    shutil.copy2(next(boot.glob("initrd.img-*")), partial / image.initrd.name)
    for path in boot.iterdir():
        path.unlink() if path.is_file() else None
    used = int(_run(["du", "-s", "--block-size=1M", str(root)], "du").split()[0])
    size_mb = used + max(512, used // 2)  # headroom for files written in the VM
    raw = partial / "disk.ext4"
    log(f"[5/5] mkfs.ext4 -d ({used} MiB used, {size_mb} MiB disk) -> qcow2")
    _run(["mkfs.ext4", "-q", "-F", "-L", "dg-guest", "-d", str(root), str(raw), f"{size_mb}M"], "mkfs.ext4 -d")
    _run(["qemu-img", "convert", "-f", "raw", "-O", "qcow2", str(raw), str(partial / image.disk.name)], "qemu-img")
    raw.unlink()
    (partial / "manifest.json").write_text(json.dumps({"key": image.key, "rootfs": rootfs_key(), "apt": APT_PACKAGES}))
    _remove_tree(folder)
    partial.rename(folder)


def build_guest_image(force: bool = False, log: Log = _print) -> GuestImage:
    """Build the small guest unless the cache holds it; return where it is.

    Raises:
        ImageBuildError: not root, a tool is missing, or a step failed (the message names it).
    """
    image = guest_image()
    if image.exists() and not force:
        log(f"qemu guest {image.key} is up to date: {image.disk}")
        return image
    if not debian.is_root():
        raise ImageBuildError("the qemu guest build runs debootstrap and chroot: run it as root")
    for tool, package in (("qemu-img", "qemu-utils"), ("mkfs.ext4", "e2fsprogs"), ("debootstrap", "debootstrap")):
        if shutil.which(tool) is None:
            raise ImageBuildError(f"{tool} is not installed: apt-get install {package}")
    started = time.monotonic()
    cache_dir().mkdir(parents=True, exist_ok=True)
    rootfs = cache_dir() / f"rootfs-{rootfs_key()}"
    if not rootfs.is_dir() or force:
        _remove_tree(rootfs)
        log(f"building the qemu guest rootfs {rootfs.name} (debootstrap + kernel, a few minutes)")
        build_rootfs(rootfs, log)
    else:
        log(f"rootfs {rootfs.name} is up to date")
    with tempfile.TemporaryDirectory(prefix="dg-qemu-guest-", dir="/var/tmp") as tmp:
        work = Path(tmp)
        src = copy_sources(work)
        image = guest_image(guest_key(src))  # of the copy: the tree may change while we build
        root = work / "root"
        log(f"[4/5] the package into a copy of the rootfs ({time.monotonic() - started:.0f} s)")
        _run(["cp", "-a", str(rootfs), str(root)], "copy of the rootfs")
        wheels = root / "tmp/wheels"
        wheels.mkdir(parents=True, exist_ok=True)
        own = _wheels(src, wheels, deps_only=False)
        with debian.chroot_mounts(root):
            debian.chroot_run(
                root,
                [
                    f"{VENV}/bin/pip",
                    "install",
                    "-q",
                    "--no-index",
                    "--no-deps",
                    *[f"/tmp/wheels/{w.name}" for w in own],
                ],
                what="pip install of desktop-gym in the chroot",
            )
        shutil.rmtree(wheels)
        (root / "opt/desktop-gym/guest-agent.py").write_text(AGENT_LAUNCHER)
        init = root / "sbin/desktop-gym-init"
        init.write_text(INIT_SCRIPT)
        init.chmod(0o755)
        _disk_from_rootfs(root, image, log)
    prune(keep={image.key, guest_key()})
    log(f"built qemu guest {image.key} in {time.monotonic() - started:.0f} s: {image.disk}")
    return image


def prune(keep: set[str]) -> list[str]:
    """Remove cached guest disks whose key is not in ``keep`` and stale rootfs folders; return their names."""
    removed = []
    for path in cache_dir().glob("*"):
        stale_guest = path.name.startswith("guest-") and path.name[len("guest-") :] not in keep
        stale_rootfs = path.name.startswith("rootfs-") and path.name != f"rootfs-{rootfs_key()}"
        if stale_guest or stale_rootfs or path.name.endswith(".partial"):
            _remove_tree(path)
            removed.append(path.name)
    return removed
