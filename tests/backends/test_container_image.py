"""The image recipes without building: apt lists in sync, apt sources parsed, content hashes stable."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from desktop_gym.apps import packages
from desktop_gym.images import build, debian

REPO = Path(__file__).resolve().parents[2]
# Needed only to build the venv/wheels or to run containers on the host, not inside the image.
HOST_ONLY = {
    "libgirepository1.0-dev", "libcairo2-dev", "pkg-config", "python3-dev", "gcc",
    "podman", "runc", "catatonit", "debootstrap",  # the container backend
    "qemu-system-x86", "qemu-utils", "e2fsprogs",  # the QEMU backend
}  # fmt: skip


def _install_sh_packages() -> set[str]:
    """The packages scripts/install.sh installs: its APT_PACKAGES block plus the apps' list it reads."""
    text = (REPO / "scripts/install.sh").read_text()
    block = re.search(r"APT_PACKAGES=\((.*?)\n\)", text, re.S)
    assert block, "no APT_PACKAGES=( ... ) in scripts/install.sh"
    assert '"${DESKTOP_PACKAGES[@]}"' in block.group(1), "install.sh installs the packages the apps' specs list"
    assert "python3 -m desktop_gym.apps.packages" in text
    lines = [line.split("#", 1)[0] for line in block.group(1).splitlines() if "DESKTOP_PACKAGES" not in line]
    return set(" ".join(lines).split()) | set(packages.runtime_packages())


def test_image_installs_every_runtime_package_of_install_sh() -> None:
    missing = _install_sh_packages() - HOST_ONLY - set(build.IMAGE_APT_PACKAGES)
    assert not missing, (
        f"add {sorted(missing)} to an app's spec (desktop_gym/apps/<app>/) or desktop_gym/apps/packages.py, "
        "or to HOST_ONLY here if the desktop inside the image does not need them"
    )


def test_install_sh_lists_the_apps_packages_with_the_system_python() -> None:
    """install.sh runs the list module before the venv exists: it must work on a bare python3, no metadata."""
    result = subprocess.run(
        [sys.executable, "-S", "-m", "desktop_gym.apps.packages"], cwd=REPO, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    listed = result.stdout.split()
    assert listed == list(packages.runtime_packages())
    for app in ("libreoffice-calc", "libreoffice-writer", "libreoffice-impress", "xterm", "mousepad", "xclip"):
        assert app in listed


def test_dockerfile_installs_the_list_the_build_writes() -> None:
    dockerfile = (REPO / "images/Dockerfile").read_text()
    final_stage = dockerfile.rsplit("FROM debian:bookworm-slim", 1)[1]
    assert f"COPY {build.APT_LIST_FILE} " in final_stage and f"xargs -a /tmp/{build.APT_LIST_FILE}" in final_stage
    assert set(build.IMAGE_APT_PACKAGES) >= set(packages.runtime_packages())


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
