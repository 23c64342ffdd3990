"""QEMU guest disks: ``desktop-gym image build --qemu-small`` (and ``--qemu``: the desktop flavor).

Built without a registry or a loop mount, cached under :func:`cache_dir` in two layers:

1. *rootfs* (keyed by the flavor's apt list, the recipe and the package's ``install_requires``):
   ``debootstrap --variant=minbase`` from this machine's apt mirror, ``linux-image-amd64`` (kernel +
   an initrd with the virtio modules), python3, and a venv at ``/opt/desktop-gym/venv`` with the
   package's dependencies (wheels built here).
2. *guest disk* (keyed by the rootfs key, the init script and the package sources): a copy of the
   rootfs + the package (``--no-deps``) + the flavor's init script as PID 1 -> ``mkfs.ext4 -d`` ->
   ``qemu-img convert`` to a read-only qcow2 base; the kernel and initrd sit beside it.

The recipes (what each flavor holds, the init script) are in :mod:`.qemu_recipes`.
"""

from __future__ import annotations

import configparser
import fcntl
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
from .qemu_recipes import AGENT_LAUNCHER, INITRAMFS_MODULES, PROFILE_CACHE, SMALL, UNUSED_MODULES, VENV, Flavor

SUITE = "bookworm"
RECIPE_VERSION = "1"  # bump when the build steps change


@dataclass(frozen=True)
class GuestImage:
    """A guest disk in the cache: the qcow2 base (read-only, overlays go on top), kernel and initrd."""

    disk: Path
    kernel: Path
    initrd: Path
    key: str
    flavor: Flavor = SMALL

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


def rootfs_key(flavor: Flavor = SMALL) -> str:
    """Hash of what goes into the flavor's cached rootfs: apt list, recipe, the package's dependencies."""
    spec = [SUITE, RECIPE_VERSION, flavor.name, flavor.apt_packages, flavor.extra_wheels, flavor.desktop_setup]
    spec += [UNUSED_MODULES, INITRAMFS_MODULES, _install_requires()]
    return hashlib.sha256(json.dumps(spec).encode()).hexdigest()[:12]


def guest_key(flavor: Flavor = SMALL, source_root: Path = REPO_ROOT) -> str:
    """Hash of the guest disk: the rootfs key, the init script, the launcher and the package sources."""
    digest = hashlib.sha256(f"{rootfs_key(flavor)}\0{flavor.init_script()}\0{AGENT_LAUNCHER}".encode())
    _hash_tree(digest, source_root / "desktop_gym", "desktop_gym")
    return digest.hexdigest()[:12]


def guest_image(flavor: Flavor = SMALL, key: str | None = None) -> GuestImage:
    """Where the guest of this checkout (or of ``key``) lives in the cache, built or not."""
    key = key or guest_key(flavor)
    folder = cache_dir() / f"guest-{flavor.name}-{key}"
    return GuestImage(folder / "disk.qcow2", folder / "vmlinuz", folder / "initrd.img", key, flavor)


def latest_guest_image(flavor: Flavor = SMALL) -> GuestImage | None:
    """The most recently built guest of ``flavor``, whatever sources it was built from (``None`` if none)."""
    prefix = f"guest-{flavor.name}-"
    built = [guest_image(flavor, path.name[len(prefix) :]) for path in cache_dir().glob(f"{prefix}*")]
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


def _wheels(src: Path, dest: Path, extra: tuple[str, ...] | None) -> list[Path]:
    """Wheels of the package's dependencies and ``extra`` (when given), or of the package alone."""
    deps_only = extra is not None
    argv = [sys.executable, "-m", "pip", "wheel", "-q", "--wheel-dir", str(dest)]
    argv += [str(src), *(extra or ())] if deps_only else ["--no-deps", str(src)]
    _run(argv, "pip wheel", cwd=dest.parent)
    own = sorted(dest.glob("desktop_gym-*.whl"))
    if deps_only:
        for wheel in own:
            wheel.unlink()
        return sorted(dest.glob("*.whl"))
    return own


def build_rootfs(target: Path, flavor: Flavor = SMALL, log: Log = _print) -> None:
    """debootstrap + kernel + python3 (+ the flavor's packages) + a venv with the dependencies, at ``target``."""
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
    log(f"[2/5] apt-get install of {len(flavor.apt_packages)} packages ({time.monotonic() - started:.0f} s)")
    quiet = _quiet(log, keep=("Setting up linux-image", "E:", "W:"))
    debian.chroot_apt_install(partial, flavor.apt_packages, log=quiet)
    log(f"[3/5] venv with the guest's dependencies ({time.monotonic() - started:.0f} s)")
    with tempfile.TemporaryDirectory(prefix="dg-qemu-wheels-", dir="/var/tmp") as tmp:
        src = copy_sources(Path(tmp))
        wheels = partial / "tmp/wheels"
        wheels.mkdir(parents=True)
        names = [w.name.split("-")[0] for w in _wheels(src, wheels, extra=flavor.extra_wheels)]
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
        if path.is_file():
            path.unlink()
    used = int(_run(["du", "-s", "--block-size=1M", str(root)], "du").split()[0])
    size_mb = used + max(512, used // 2)  # headroom for files written in the VM
    raw = partial / "disk.ext4"
    log(f"[5/5] mkfs.ext4 -d ({used} MiB used, {size_mb} MiB disk) -> qcow2")
    _run(["mkfs.ext4", "-q", "-F", "-L", "dg-guest", "-d", str(root), str(raw), f"{size_mb}M"], "mkfs.ext4 -d")
    _run(["qemu-img", "convert", "-f", "raw", "-O", "qcow2", str(raw), str(partial / image.disk.name)], "qemu-img")
    raw.unlink()
    manifest = {"key": image.key, "flavor": image.flavor.name, "rootfs": rootfs_key(image.flavor)}
    (partial / "manifest.json").write_text(json.dumps(manifest))
    _remove_tree(folder)
    partial.rename(folder)


def _install_package(root: Path, src: Path, flavor: Flavor) -> None:
    """The package (``--no-deps``) into the rootfs copy's venv, the launcher and the init script;
    for the desktop flavor also the UNO/pyatspi bridge and the baked LibreOffice profile template."""
    wheels = root / "tmp/wheels"
    wheels.mkdir(parents=True, exist_ok=True)
    own = [f"/tmp/wheels/{wheel.name}" for wheel in _wheels(src, wheels, extra=None)]
    with debian.chroot_mounts(root):
        pip = [f"{VENV}/bin/pip", "install", "-q", "--no-index", "--no-deps", *own]
        debian.chroot_run(root, pip, what="pip install of desktop-gym in the chroot")
        if flavor.desktop_setup:
            python = f"{VENV}/bin/python"
            debian.chroot_run(root, [python, "-m", "desktop_gym.sysdeps"], what="desktop_gym.sysdeps in the chroot")
            bake = "from desktop_gym.guest.apps.lo_profile import ensure_profile_template as e; print(e())"
            env = {"DESKTOP_GYM_CACHE": PROFILE_CACHE}
            debian.chroot_run(root, [python, "-c", bake], env=env, what="the LibreOffice profile template")
    shutil.rmtree(wheels)
    (root / "opt/desktop-gym/guest-agent.py").write_text(AGENT_LAUNCHER)
    init = root / "sbin/desktop-gym-init"
    init.write_text(flavor.init_script())
    init.chmod(0o755)


def build_guest_image(flavor: Flavor = SMALL, force: bool = False, log: Log = _print) -> GuestImage:
    """Build the flavor's guest unless the cache holds it; return where it is.

    Raises:
        ImageBuildError: not root, a tool is missing, or a step failed (the message names it).
    """
    image = guest_image(flavor)
    if image.exists() and not force:
        log(f"qemu guest {flavor.name}-{image.key} is up to date: {image.disk}")
        return image
    cache_dir().mkdir(parents=True, exist_ok=True)
    with open(cache_dir() / f"build-{flavor.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one build per flavor at a time; a waiter finds it built
        image = guest_image(flavor)
        if image.exists() and not force:
            log(f"qemu guest {flavor.name}-{image.key} was built meanwhile: {image.disk}")
            return image
        return _build_locked(flavor, force, log)


def _build_locked(flavor: Flavor, force: bool, log: Log) -> GuestImage:
    if not debian.is_root():
        raise ImageBuildError("the qemu guest build runs debootstrap and chroot: run it as root")
    for tool, package in (("qemu-img", "qemu-utils"), ("mkfs.ext4", "e2fsprogs"), ("debootstrap", "debootstrap")):
        if shutil.which(tool) is None:
            raise ImageBuildError(f"{tool} is not installed: apt-get install {package}")
    started = time.monotonic()
    rootfs = cache_dir() / f"rootfs-{flavor.name}-{rootfs_key(flavor)}"
    if not rootfs.is_dir() or force:
        _remove_tree(rootfs)
        log(f"building the qemu guest rootfs {rootfs.name} (debootstrap + kernel, a few minutes)")
        build_rootfs(rootfs, flavor, log)
    else:
        log(f"rootfs {rootfs.name} is up to date")
    with tempfile.TemporaryDirectory(prefix="dg-qemu-guest-", dir="/var/tmp") as tmp:
        work = Path(tmp)
        src = copy_sources(work)
        image = guest_image(flavor, guest_key(flavor, src))  # of the copy: the tree may change while we build
        root = work / "root"
        log(f"[4/5] the package into a copy of the rootfs ({time.monotonic() - started:.0f} s)")
        _run(["cp", "-a", str(rootfs), str(root)], "copy of the rootfs")
        _install_package(root, src, flavor)
        _disk_from_rootfs(root, image, log)
    removed = prune(flavor, keep={image.key, guest_key(flavor)})
    log(f"built qemu guest {flavor.name}-{image.key} in {time.monotonic() - started:.0f} s: {image.disk}")
    if removed:
        log(f"removed older cache entries: {', '.join(removed)}")
    return image


def prune(flavor: Flavor, keep: set[str]) -> list[str]:
    """Remove the flavor's cached guest disks whose key is not in ``keep`` and its stale rootfs; return names."""
    removed = []
    for path in cache_dir().glob(f"*-{flavor.name}-*"):
        stale_guest = path.name.startswith(f"guest-{flavor.name}-") and path.name.rsplit("-", 1)[1] not in keep
        stale_rootfs = path.name.startswith(f"rootfs-{flavor.name}-") and path.name != (
            f"rootfs-{flavor.name}-{rootfs_key(flavor)}"
        )
        if (stale_guest or stale_rootfs) and not path.name.endswith(".partial"):
            _remove_tree(path)
            removed.append(path.name)
    return removed
