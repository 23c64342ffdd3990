"""The image recipes without building: apt lists in sync, apt sources parsed, content hashes stable."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from desktop_gym.images import build, debian

REPO = Path(__file__).resolve().parents[2]
# Needed only to build the venv/wheels or to run containers on the host, not inside the image.
HOST_ONLY = {
    "libgirepository1.0-dev", "libcairo2-dev", "pkg-config", "python3-dev", "gcc",
    "podman", "runc", "catatonit", "debootstrap",  # the container backend
    "qemu-system-x86", "qemu-utils", "e2fsprogs",  # the QEMU backend
    "chromium",  # the web UI's browser tests run on the host
}  # fmt: skip


def _install_sh_packages() -> set[str]:
    text = (REPO / "scripts/install.sh").read_text()
    block = re.search(r"APT_PACKAGES=\((.*?)\n\)", text, re.S)
    assert block, "no APT_PACKAGES=( ... ) in scripts/install.sh"
    lines = [line.split("#", 1)[0] for line in block.group(1).splitlines()]
    return set(" ".join(lines).split())


def test_image_installs_every_runtime_package_of_install_sh() -> None:
    missing = _install_sh_packages() - HOST_ONLY - set(build.IMAGE_APT_PACKAGES)
    assert not missing, (
        f"add {sorted(missing)} to IMAGE_APT_PACKAGES (desktop_gym/images/build.py) and images/Dockerfile, "
        "or to HOST_ONLY here if the desktop inside the image does not need them"
    )


def test_dockerfile_installs_the_same_packages() -> None:
    dockerfile = (REPO / "images/Dockerfile").read_text()
    final_stage = dockerfile.rsplit("FROM debian:bookworm-slim", 1)[1]
    missing = [
        p for p in build.IMAGE_APT_PACKAGES if not re.search(rf"(?<![\w.-]){re.escape(p)}(?![\w.-])", final_stage)
    ]
    assert not missing, f"images/Dockerfile does not install {missing}"


def test_apt_sources_one_line_and_deb822(tmp_path: Path) -> None:
    (tmp_path / "sources.list").write_text(
        "# comment\ndeb [arch=amd64 signed-by=/k.gpg] http://mirror.example/debian bookworm main contrib\n"
        "deb-src http://mirror.example/debian bookworm main\n"
    )
    parts = tmp_path / "sources.list.d"
    parts.mkdir()
    (parts / "debian.sources").write_text(
        "Types: deb\nURIs: http://deb.example/debian\nSuites: bookworm bookworm-updates\nComponents: main\n\n"
        "Types: deb\nURIs: http://off.example/debian\nSuites: trixie\nComponents: main\nEnabled: no\n\n"
        "Types: deb-src\nURIs: http://src.example/debian\nSuites: bookworm\nComponents: main\n"
    )
    (parts / "ignored.list.disabled").write_text("deb http://never.example/debian bookworm main\n")
    sources = debian.apt_sources(tmp_path / "sources.list", parts)
    assert [s.line() for s in sources] == [
        "deb http://mirror.example/debian bookworm main contrib",
        "deb http://deb.example/debian bookworm main",
        "deb http://deb.example/debian bookworm-updates main",
    ]
    assert debian.debian_mirror("bookworm", sources) == "http://mirror.example/debian"
    assert [s.suite for s in debian.suite_sources("bookworm", sources)] == ["bookworm", "bookworm", "bookworm-updates"]
    with pytest.raises(debian.RootfsError, match="no apt source for suite 'sid'"):
        debian.debian_mirror("sid", sources)


def test_this_machine_has_a_bookworm_mirror() -> None:
    assert debian.debian_mirror("bookworm").startswith(("http://", "https://", "file:"))


def test_image_tag_follows_the_sources(tmp_path: Path) -> None:
    copy = build.copy_sources(tmp_path)
    tag = build.image_tag(copy)
    assert re.fullmatch(r"desktop-gym:[0-9a-f]{12}", tag)
    assert (copy / "desktop_gym/tasks/__init__.py").is_file(), "symlinked task folders are copied as files"
    (copy / "desktop_gym/backends/container.py").write_text("# changed\n")
    assert build.image_tag(copy) != tag


def test_unknown_engine_is_refused() -> None:
    with pytest.raises(build.ImageBuildError, match="unknown engine 'lxc'"):
        build.build_image(engine="lxc")
