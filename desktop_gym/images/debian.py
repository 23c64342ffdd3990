"""Debian root filesystems without a registry: apt sources, ``debootstrap`` and chroot helpers.

Reusable by every backend that needs a Debian userland (the container image, a small QEMU guest):

    mirror = debian_mirror()                         # from this machine's apt sources
    debootstrap(root, suite="bookworm", mirror=mirror)
    write_apt_sources(root, apt_sources(), suite="bookworm")
    chroot_apt_install(root, ["xvfb", "openbox"])
    chroot_run(root, ["python3", "--version"])

Everything here needs root (``debootstrap`` and ``chroot`` do).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from desktop_gym.errors import RootfsError

APT_SOURCES_LIST = Path("/etc/apt/sources.list")
APT_SOURCES_DIR = Path("/etc/apt/sources.list.d")
DEFAULT_SUITE = "bookworm"
# Filesystems a chroot'ed apt/dpkg (and the LibreOffice profile run) expects to be there.
_CHROOT_MOUNTS = (("proc", "proc", "proc"), ("/dev", "dev", None), ("/dev/pts", "dev/pts", None))


@dataclass(frozen=True)
class AptSource:
    """One ``deb`` entry of the machine's apt configuration."""

    uri: str
    suite: str
    components: tuple[str, ...]

    def line(self) -> str:
        """The one-line ``sources.list`` form."""
        return f"deb {self.uri} {self.suite} {' '.join(self.components)}"


def _parse_one_line(text: str) -> list[AptSource]:
    sources = []
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line.startswith("deb "):
            continue  # deb-src, blank
        fields = line.split()[1:]
        if fields and fields[0].startswith("["):  # options: [arch=amd64 signed-by=...]
            while fields and not fields[0].endswith("]"):
                fields.pop(0)
            fields = fields[1:]
        if len(fields) >= 2:
            sources.append(AptSource(fields[0], fields[1], tuple(fields[2:])))
    return sources


def _parse_deb822(text: str) -> list[AptSource]:
    sources = []
    for stanza in text.split("\n\n"):
        fields: dict[str, str] = {}
        key = None
        for raw in stanza.splitlines():
            if raw.startswith("#") or not raw.strip():
                continue
            if raw[0] in " \t" and key:  # continuation line
                fields[key] += " " + raw.strip()
                continue
            if ":" in raw:
                key, value = raw.split(":", 1)
                key = key.strip().lower()
                fields[key] = value.strip()
        if "deb" not in fields.get("types", "").split() or fields.get("enabled", "yes").lower() == "no":
            continue
        components = tuple(fields.get("components", "").split())
        for uri in fields.get("uris", "").split():
            for suite in fields.get("suites", "").split():
                sources.append(AptSource(uri, suite, components))
    return sources


def apt_sources(sources_list: Path = APT_SOURCES_LIST, sources_dir: Path = APT_SOURCES_DIR) -> list[AptSource]:
    """Every enabled ``deb`` entry in ``sources.list`` and ``sources.list.d/*.list|*.sources``."""
    found: list[AptSource] = []
    if sources_list.is_file():
        found += _parse_one_line(sources_list.read_text(errors="replace"))
    if sources_dir.is_dir():
        for path in sorted(sources_dir.iterdir()):
            if path.suffix == ".list":
                found += _parse_one_line(path.read_text(errors="replace"))
            elif path.suffix == ".sources":
                found += _parse_deb822(path.read_text(errors="replace"))
    return found


def debian_mirror(suite: str = DEFAULT_SUITE, sources: Sequence[AptSource] | None = None) -> str:
    """The archive URI this machine uses for ``suite`` (e.g. ``http://deb.debian.org/debian``).

    Raises:
        RootfsError: no apt source serves ``suite`` (the message lists the sources it read).
    """
    sources = apt_sources() if sources is None else list(sources)
    for source in sources:
        if source.suite == suite and "main" in source.components:
            return source.uri
    listed = ", ".join(s.line() for s in sources) or "none"
    raise RootfsError(
        f"no apt source for suite {suite!r} with component main in {APT_SOURCES_LIST} or {APT_SOURCES_DIR} "
        f"(found: {listed})"
    )


def suite_sources(suite: str = DEFAULT_SUITE, sources: Sequence[AptSource] | None = None) -> list[AptSource]:
    """The machine's sources for ``suite`` and its companions (``-updates``, ``-security``)."""
    sources = apt_sources() if sources is None else list(sources)
    return [s for s in sources if s.suite == suite or s.suite.startswith(f"{suite}-")]


def _run(argv: Sequence[str], what: str, log: Callable[[str], None] | None = None, **kwargs) -> None:
    """Run ``argv``, streaming its output lines to ``log``; raise naming ``what`` on failure."""
    tail: list[str] = []
    with subprocess.Popen(
        list(argv), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, text=True, **kwargs
    ) as proc:
        assert proc.stdout is not None
        for line in proc.stdout:
            tail = (tail + [line.rstrip()])[-30:]
            if log is not None:
                log(line.rstrip())
    if proc.returncode != 0:
        raise RootfsError(f"{what} failed (exit {proc.returncode}): " + "\n".join(tail))


def debootstrap(
    root: Path,
    suite: str = DEFAULT_SUITE,
    mirror: str | None = None,
    variant: str = "minbase",
    include: Sequence[str] = (),
    log: Callable[[str], None] | None = None,
) -> Path:
    """Create a Debian root filesystem at ``root`` with ``debootstrap --variant=<variant>``.

    Args:
        root: Empty (or missing) target folder.
        suite: Debian release codename.
        mirror: Archive URI; ``None`` = :func:`debian_mirror` of this machine.
        variant: debootstrap variant (``minbase`` = essential packages + apt).
        include: Extra packages to install in the same run.
        log: Receives each output line (progress).

    Raises:
        RootfsError: debootstrap is missing or failed.
    """
    if shutil.which("debootstrap") is None:
        raise RootfsError("debootstrap is not installed: apt-get install debootstrap")
    mirror = mirror or debian_mirror(suite)
    root.mkdir(parents=True, exist_ok=True)
    argv = ["debootstrap", f"--variant={variant}"]
    if include:
        argv.append("--include=" + ",".join(include))
    _run([*argv, suite, str(root), mirror], f"debootstrap {suite} from {mirror}", log)
    return root


def write_apt_sources(root: Path, sources: Sequence[AptSource]) -> None:
    """Replace the chroot's apt sources with ``sources`` (one-line format)."""
    if not sources:
        raise RootfsError("no apt sources to write into the chroot")
    (root / "etc/apt/sources.list").write_text("".join(s.line() + "\n" for s in sources))


@contextlib.contextmanager
def chroot_mounts(root: Path) -> Iterator[None]:
    """Mount /proc, /dev and /dev/pts into ``root`` for the duration of the block."""
    mounted: list[Path] = []
    try:
        for source, target, fstype in _CHROOT_MOUNTS:
            point = root / target
            point.mkdir(parents=True, exist_ok=True)
            argv = ["mount", "-t", fstype, source, str(point)] if fstype else ["mount", "--bind", source, str(point)]
            subprocess.run(argv, check=True, capture_output=True)
            mounted.append(point)
        yield
    finally:
        for point in reversed(mounted):
            subprocess.run(["umount", "-l", str(point)], capture_output=True)


def chroot_run(
    root: Path,
    argv: Sequence[str],
    env: dict[str, str] | None = None,
    log: Callable[[str], None] | None = None,
    what: str | None = None,
) -> None:
    """Run ``argv`` inside ``root`` (mounts must be in place: use :func:`chroot_mounts`).

    Raises:
        RootfsError: the command failed (its output tail is in the message).
    """
    base = {
        "PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
        "HOME": "/root",
        "LANG": "C.UTF-8",
        "DEBIAN_FRONTEND": "noninteractive",
    }
    _run(["chroot", str(root), *argv], what or f"chroot {' '.join(argv)}", log, env={**base, **(env or {})})


def chroot_apt_install(root: Path, packages: Sequence[str], log: Callable[[str], None] | None = None) -> None:
    """``apt-get update`` + ``apt-get install --no-install-recommends`` inside ``root``, then clean."""
    # Services must not start inside a build chroot.
    policy = root / "usr/sbin/policy-rc.d"
    policy.write_text("#!/bin/sh\nexit 101\n")
    policy.chmod(0o755)
    try:
        with chroot_mounts(root):
            chroot_run(root, ["apt-get", "update", "-q"], log=log, what="apt-get update in the chroot")
            chroot_run(
                root,
                ["apt-get", "install", "-y", "-q", "--no-install-recommends", *packages],
                log=log,
                what=f"apt-get install of {len(packages)} packages in the chroot",
            )
            chroot_run(root, ["apt-get", "clean"], log=log)
    finally:
        policy.unlink(missing_ok=True)
    shutil.rmtree(root / "var/lib/apt/lists", ignore_errors=True)
    (root / "var/lib/apt/lists/partial").mkdir(parents=True, exist_ok=True)


def is_root() -> bool:
    """Whether this process can debootstrap/chroot."""
    return os.geteuid() == 0
