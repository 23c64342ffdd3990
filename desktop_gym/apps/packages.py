"""The Debian packages a desktop needs: the desktop itself plus every registered app's ``packages``.

``scripts/install.sh`` and the image builds read these lists (``python3 -m desktop_gym.apps.packages
--runtime`` before the venv exists: standard library only), so an app's packages live in its spec.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable, Sequence

from .spec import APP_SPECS

#: The desktop the apps run on: X server, window manager, session and accessibility buses, fonts,
#: and accessibility from Python.
DESKTOP_PACKAGES: tuple[str, ...] = (
    "xvfb", "openbox", "dbus", "dbus-x11", "at-spi2-core", "x11-utils", "fonts-dejavu-core",
    "python3-pyatspi", "gir1.2-atspi-2.0",
)  # fmt: skip
#: What the guest's Python needs inside an image (its PyGObject/pycairo wheels are built on the host).
IMAGE_EXTRA_PACKAGES: tuple[str, ...] = (
    "libgirepository-1.0-1", "libcairo2", "python3", "python3-venv", "procps", "ca-certificates",
)  # fmt: skip


def _unique(names: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(names))


def app_packages() -> tuple[str, ...]:
    """Every registered app's packages, in table order, each once."""
    return _unique(name for spec in APP_SPECS.values() for name in spec.packages)


def runtime_packages() -> tuple[str, ...]:
    """What a desktop needs at run time on a host: the desktop and its apps."""
    return _unique((*DESKTOP_PACKAGES, *app_packages()))


def image_packages() -> tuple[str, ...]:
    """What a container or VM image installs: the runtime packages and the guest's Python."""
    return _unique((*runtime_packages(), *IMAGE_EXTRA_PACKAGES))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m desktop_gym.apps.packages", description=__doc__)
    parser.add_argument("--image", action="store_true", help="the image list (runtime + the guest's Python)")
    args = parser.parse_args(argv)
    print(" ".join(image_packages() if args.image else runtime_packages()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
