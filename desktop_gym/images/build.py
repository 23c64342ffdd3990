"""Build the desktop image: ``desktop-gym image build [--engine podman|docker] [--offline]``.

Two ways to the same image (a Debian bookworm desktop stack, the package in a venv at
``/opt/desktop-gym`` with the ``[guest]`` extra, a LibreOffice profile template baked in, and
``python -m desktop_gym.backends.container_entry`` as entrypoint):

- ``offline=True`` (no registry needed): ``debootstrap --variant=minbase`` from this machine's apt
  mirror + chroot ``apt-get install`` -> ``<engine> import`` as the *base* image (cached by the
  package list), then ``images/app.Containerfile`` adds the package from wheels built here.
- ``offline=False``: ``<engine> build -f images/Dockerfile`` (pulls ``debian:bookworm-slim``).

Both tag the result ``desktop-gym:<content hash>``; a build is skipped when that tag exists.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from desktop_gym.errors import ImageBuildError

from ..apps.packages import image_packages
from . import debian

REPO_ROOT = Path(__file__).resolve().parents[2]
IMAGES_DIR = REPO_ROOT / "images"
IMAGE_REPOSITORY = "desktop-gym"
BASE_REPOSITORY = "desktop-gym-base"
SUITE = "bookworm"
BASE_RECIPE_VERSION = "1"  # bump when the base build steps change
# The desktop, every registered app's packages (their specs) and the guest's Python; the PyGObject/pycairo
# wheels are built on the host, so no compiler or -dev packages are needed in the image.
IMAGE_APT_PACKAGES: tuple[str, ...] = image_packages()
APT_LIST_FILE = "apt-packages.txt"  # the list, written into the Dockerfile build's context
_SOURCE_FILES = ("setup.cfg", "pyproject.toml", "README.md")
_IGNORED = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info", ".pytest_cache")

Log = Callable[[str], None]


def _print(line: str) -> None:
    print(line, flush=True)


def _engine_run(engine: str, args: list[str], what: str, log: Log | None = None, **kwargs) -> str:
    if shutil.which(engine) is None:
        raise ImageBuildError(f"{engine} is not installed (apt-get install {engine})")
    result = subprocess.run([engine, *args], capture_output=True, text=True, **kwargs)
    if result.returncode != 0:
        raise ImageBuildError(f"{what} failed (exit {result.returncode}): {result.stderr.strip()[-2000:]}")
    return result.stdout


def image_exists(engine: str, tag: str) -> bool:
    """Whether ``tag`` is in the engine's local image store."""
    if shutil.which(engine) is None:
        return False
    result = subprocess.run([engine, "image", "inspect", tag], capture_output=True)
    return result.returncode == 0


# -- content hashes ---------------------------------------------------------------------------


def _hash_tree(digest: hashlib._Hash, root: Path, prefix: str) -> None:
    files = []
    for folder, dirs, names in os.walk(root, followlinks=True):  # tasks/, verifiers/ are symlinks
        dirs[:] = [d for d in dirs if d not in ("__pycache__", ".pytest_cache") and not d.endswith(".egg-info")]
        files += [Path(folder, name) for name in names if not name.endswith(".pyc")]
    for path in sorted(files):
        digest.update(f"{prefix}/{path.relative_to(root)}\0".encode())
        digest.update(path.read_bytes())


def base_tag() -> str:
    """``desktop-gym-base:<hash>`` of the apt package list and base recipe."""
    spec = json.dumps([SUITE, BASE_RECIPE_VERSION, sorted(IMAGE_APT_PACKAGES)]).encode()
    return f"{BASE_REPOSITORY}:{hashlib.sha256(spec).hexdigest()[:12]}"


def image_tag(source_root: Path = REPO_ROOT) -> str:
    """``desktop-gym:<hash>`` of the base, the image recipes and the package sources (this checkout,
    or a copy made by :func:`copy_sources`)."""
    digest = hashlib.sha256(base_tag().encode())
    for name in _SOURCE_FILES:
        digest.update((source_root / name).read_bytes())
    for name in ("app.Containerfile", "Dockerfile"):
        digest.update((IMAGES_DIR / name).read_bytes())
    _hash_tree(digest, source_root / "desktop_gym", "desktop_gym")
    return f"{IMAGE_REPOSITORY}:{digest.hexdigest()[:12]}"


# -- build steps ------------------------------------------------------------------------------


def copy_sources(dest: Path) -> Path:
    """Copy the package sources (symlinked folders resolved) to ``dest/src`` for a clean wheel build."""
    src = dest / "src"
    src.mkdir(parents=True)
    for name in _SOURCE_FILES:
        shutil.copy2(REPO_ROOT / name, src / name)
    shutil.copytree(REPO_ROOT / "desktop_gym", src / "desktop_gym", symlinks=False, ignore=_IGNORED)
    return src


def build_wheelhouse(src: Path, dest: Path, log: Log = _print) -> Path:
    """Wheels of the package at ``src`` and its ``[guest]`` dependencies, from this machine's pip index/config.

    Raises:
        ImageBuildError: this Python is not the image's (3.11), or pip failed.
    """
    if sys.version_info[:2] != (3, 11):
        raise ImageBuildError(f"wheels for the bookworm image need Python 3.11, this is {sys.version.split()[0]}")
    wheels = dest / "wheels"
    log(f"   pip wheel {src.name}[guest] -> {wheels}")
    result = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--wheel-dir", str(wheels), f"{src}[guest]"],
        capture_output=True,
        text=True,
        cwd=dest,
    )
    if result.returncode != 0:
        raise ImageBuildError(f"pip wheel failed: {result.stderr.strip()[-2000:]}")
    return wheels


def _quiet(log: Log, keep: tuple[str, ...] = (), skip: tuple[str, ...] = (), every: int = 1) -> Log:
    """A filter for noisy tool output: lines starting with ``keep`` (all if empty), minus ``skip``,
    one in ``every`` (errors and warnings always)."""
    count = 0

    def filtered(line: str) -> None:
        nonlocal count
        if (keep and not line.startswith(keep)) or line.startswith(skip):
            return
        count += 1
        if count % every == 0 or line.startswith(("E:", "W:")):
            log("   " + line)

    return filtered


def build_base(engine: str, tag: str, workdir: Path, log: Log = _print) -> None:
    """debootstrap + chroot apt install of :data:`IMAGE_APT_PACKAGES`, imported as ``tag``."""
    if not debian.is_root():
        raise ImageBuildError("the offline build runs debootstrap and chroot: run it as root")
    root = workdir / "rootfs"
    mirror = debian.debian_mirror(SUITE)
    started = time.monotonic()
    log(f"[1/3] debootstrap --variant=minbase {SUITE} from {mirror}")
    debian.debootstrap(root, SUITE, mirror, log=_quiet(log, skip=("I: Retrieving", "I: Validating")))
    debian.write_apt_sources(root, debian.suite_sources(SUITE))
    log(f"[2/3] apt-get install {len(IMAGE_APT_PACKAGES)} packages in the chroot ({time.monotonic() - started:.0f} s)")
    debian.chroot_apt_install(
        root, IMAGE_APT_PACKAGES, log=_quiet(log, keep=("Setting up", "Get:", "E:", "W:"), every=25)
    )
    log(f"[3/3] {engine} import -> {tag} ({time.monotonic() - started:.0f} s)")
    tar = subprocess.Popen(["tar", "--numeric-owner", "-C", str(root), "-cf", "-", "."], stdout=subprocess.PIPE)
    try:
        _engine_run(engine, ["import", "--change", 'CMD ["/bin/bash"]', "-", tag], f"{engine} import", stdin=tar.stdout)
    finally:
        assert tar.stdout is not None
        tar.stdout.close()
        tar.wait()
        shutil.rmtree(root, ignore_errors=True)  # 1 GB, and it must not end up in a build context


def prune_images(engine: str, keep: str, keep_recent: int = 3) -> list[str]:
    """Remove all but the ``keep_recent`` newest images of ``keep``'s repository (``keep`` itself, those
    in use and ``:latest`` stay) and dangling layers; return the removed tags. Keeping a few lets
    processes that still start containers from a slightly older tag go on."""
    repository = keep.split(":")[0]
    listed = subprocess.run(
        [engine, "images", "--format", "{{.Repository}}:{{.Tag}}"], capture_output=True, text=True
    ).stdout.split()
    ours = [tag for tag in listed if tag.rsplit("/", 1)[-1].startswith(repository + ":")]  # podman: localhost/...
    created = {}
    for tag in ours:
        result = subprocess.run([engine, "image", "inspect", "--format", "{{.Created}}", tag], capture_output=True)
        created[tag] = result.stdout.decode().strip()
    removed = []
    for tag in sorted(ours, key=lambda t: created[t], reverse=True)[keep_recent:]:
        name = tag.rsplit("/", 1)[-1]
        if name != keep and not name.endswith(":latest"):
            if subprocess.run([engine, "rmi", tag], capture_output=True).returncode == 0:
                removed.append(name)
    subprocess.run([engine, "image", "prune", "-f"], capture_output=True)
    return removed


def build_image(
    engine: str = "podman",
    offline: bool = True,
    tag: str | None = None,
    force: bool = False,
    log: Log = _print,
) -> str:
    """Build the desktop image unless its content-hash tag exists; return the tag.

    Args:
        engine: ``podman`` or ``docker`` (the CLI used to import/build).
        offline: debootstrap + import (no registry) instead of ``images/Dockerfile``.
        tag: Extra tag to add (e.g. ``desktop-gym:latest``).
        force: Rebuild even when the tag exists.
        log: Receives progress lines.

    Raises:
        ImageBuildError: a step failed; the message names it.
    """
    if engine not in ("podman", "docker"):
        raise ImageBuildError(f"unknown engine {engine!r}: choose podman or docker")
    target = image_tag()
    started = time.monotonic()
    if image_exists(engine, target) and not force:
        log(f"image {target} is up to date")
    else:
        with tempfile.TemporaryDirectory(prefix="desktop-gym-image-", dir="/var/tmp") as tmp:
            workdir = Path(tmp)
            src = copy_sources(workdir)
            target = image_tag(src)  # of the copy: the tree may change while we build
            if offline:
                base = base_tag()
                if image_exists(engine, base) and not force:
                    log(f"base image {base} is up to date")
                else:
                    log(f"building base image {base} (debootstrap, ~3 min)")
                    build_base(engine, base, workdir, log)
                    prune_images(engine, keep=base, keep_recent=1)
                log(f"building {target} on {base}")
                build_wheelhouse(src, workdir, log)
                shutil.rmtree(src)
                shutil.copy2(IMAGES_DIR / "app.Containerfile", workdir / "Containerfile")
                args = ["build", "--network", "none", "--build-arg", f"BASE={base}", "-f", "Containerfile"]
            else:
                log(f"building {target} from images/Dockerfile")
                shutil.copy2(IMAGES_DIR / "Dockerfile", workdir / "Dockerfile")
                (workdir / APT_LIST_FILE).write_text("\n".join(IMAGE_APT_PACKAGES) + "\n")
                args = ["build", "-f", "Dockerfile"]
            _engine_run(engine, [*args, "-t", target, str(workdir)], f"{engine} build of {target}", cwd=workdir)
        log(f"built {target} in {time.monotonic() - started:.0f} s")
        removed = prune_images(engine, keep=target)
        if removed:
            log(f"removed {len(removed)} older image(s): {', '.join(removed)}")
    if tag and tag != target:
        _engine_run(engine, ["tag", target, tag], f"{engine} tag {tag}")
        log(f"tagged {tag}")
    return target


@functools.cache
def ensure_image(engine: str = "podman") -> str:
    """:func:`build_image` (offline) once per process: later calls return the first tag without
    re-hashing the tree, so a test session or a fleet of backends uses one image."""
    return build_image(engine=engine, offline=True)
