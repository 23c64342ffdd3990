"""Bridge the few system Python modules we need (UNO, pyatspi) into a virtual environment.

LibreOffice's ``uno``/``unohelper`` and Debian's pure-Python ``pyatspi`` are only shipped as
system packages. Adding all of ``/usr/lib/python3/dist-packages`` to a venv would also expose
Debian's old copies of unrelated packages, so instead we link exactly these modules into a
private folder and point one ``.pth`` file at it (plus LibreOffice's ``program`` folder, where
``pyuno.so`` lives). Run ``python -m desktop_gym.sysdeps`` after installing the apt packages.
"""

from __future__ import annotations

import site
import sys
from pathlib import Path

from desktop_gym.errors import SystemDependencyError

SYSTEM_DIST_PACKAGES = Path("/usr/lib/python3/dist-packages")
LIBREOFFICE_PROGRAM = Path("/usr/lib/libreoffice/program")
LINKED_MODULES = ("uno.py", "unohelper.py", "pyatspi")
PTH_NAME = "desktop_gym_system.pth"
LINK_DIR_NAME = "_desktop_gym_system"


def _site_packages() -> Path:
    for candidate in site.getsitepackages():
        if candidate.endswith("site-packages"):
            return Path(candidate)
    raise SystemDependencyError(f"no site-packages folder for {sys.executable}")


def link_system_modules(site_packages: Path | None = None) -> Path:
    """Link uno, unohelper and pyatspi into ``site_packages`` and return the ``.pth`` path.

    Raises:
        SystemDependencyError: if a module is missing (names the apt package to install).
    """
    site_packages = site_packages or _site_packages()
    link_dir = site_packages / LINK_DIR_NAME
    link_dir.mkdir(exist_ok=True)
    for name in LINKED_MODULES:
        source = SYSTEM_DIST_PACKAGES / name
        if not source.exists():
            package = "python3-pyatspi" if name == "pyatspi" else "python3-uno"
            raise SystemDependencyError(f"{source} is missing: apt-get install {package}")
        target = link_dir / name
        if target.is_symlink() or target.exists():
            target.unlink()
        target.symlink_to(source)
    if not (LIBREOFFICE_PROGRAM / "pyuno.so").exists():
        raise SystemDependencyError(f"{LIBREOFFICE_PROGRAM}/pyuno.so is missing: apt-get install python3-uno")
    pth = site_packages / PTH_NAME
    pth.write_text(f"{link_dir}\n{LIBREOFFICE_PROGRAM}\n")
    return pth


def main() -> None:
    pth = link_system_modules()
    print(f"linked {', '.join(LINKED_MODULES)} into {pth.parent / LINK_DIR_NAME} ({pth.name})")


if __name__ == "__main__":
    main()
