"""Split the core run: tests that need a desktop or time themselves run serially, the rest in parallel.

Every collected test marked ``slow``, using a desktop fixture (its fixture closure names one of
:data:`DESKTOP_FIXTURES`) or sitting in a module whose source starts desktops, offices or VMs or
asserts on elapsed time (any of :data:`SERIAL_SIGNS`) gets the ``serial`` marker.
``scripts/test.sh`` runs ``-m "not serial"`` with pytest-xdist's ``-n 2`` and then ``-m serial``
in one process, so desktop tests keep the one shared session desktop and neither they nor the
timed tests compete with another test for the two cores.

A desktop test the split missed is caught: in a run with ``DESKTOP_GYM_NO_DESKTOPS=1`` (the parallel
run) starting Xvfb, soffice, QEMU or podman from the test process fails the test, naming what it
started and the marker to add.
"""

from __future__ import annotations

import contextlib
import functools
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

SERIAL_MARKER = "serial"
NO_DESKTOPS_ENV = "DESKTOP_GYM_NO_DESKTOPS"

DESKTOP_FIXTURES = frozenset({"desktop", "_session_guest", "guest", "probe", "a11y_calc_office"})
"""Fixtures (from ``tests/conftest.py`` and ``tests/guest/conftest.py``) that run a desktop or an office."""

SERIAL_SIGNS = (
    "DesktopEnv",
    "LocalBackend",
    "ContainerBackend",
    "QemuBackend",
    "gymnasium.make",
    "make_vec",
    "soffice",
    "libreoffice_convert",
    "start_x_session",
    "calc_on_a11y_bus",
    "Xvfb",
    "podman",
    "qemu",
    'backend="local"',
    "check_task(",
    'main(["run"',
    'main(["eval"',
    "perf_counter() -",
    "monotonic() -",
)
"""Source text that makes a whole module serial: it starts desktops, offices or VMs, or times itself."""

DESKTOP_PROGRAMS = frozenset({"Xvfb", "soffice", "soffice.bin", "podman", "qemu-system-x86_64", "qemu-img"})
"""Programs a test in the parallel (desktop-free) run may not start."""

MAX_MODULE_BYTES = 400_000


@functools.lru_cache(maxsize=1024)
def module_is_serial(path: Path) -> bool:
    """Whether the test module at ``path`` mentions any of :data:`SERIAL_SIGNS` (its first 400 kB)."""
    try:
        with path.open(encoding="utf-8", errors="replace") as source:
            text = source.read(MAX_MODULE_BYTES)
    except OSError:
        return True  # unreadable: keep it serial
    return any(sign in text for sign in SERIAL_SIGNS)


def runs_serially(item: pytest.Item) -> bool:
    """Whether ``item`` runs in the serial part: marked ``slow`` (real LibreOffice sessions), using a
    desktop fixture, or in a module with a sign of :data:`SERIAL_SIGNS`."""
    if item.get_closest_marker("slow") or DESKTOP_FIXTURES.intersection(getattr(item, "fixturenames", ())):
        return True
    return module_is_serial(Path(item.path))


def pytest_configure(config: pytest.Config) -> None:
    """Register the ``serial`` marker."""
    config.addinivalue_line(
        "markers",
        f"{SERIAL_MARKER}: needs a desktop or an office, or times itself (set by tests/support/desktop_split.py)",
    )


@pytest.hookimpl(tryfirst=True)  # before -m deselects
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if runs_serially(item):
            item.add_marker(SERIAL_MARKER)


def _program(args: object) -> str:
    """The program name of a ``Popen`` ``args`` (a sequence, a path, or a shell command line)."""
    argv = [args] if isinstance(args, (str, bytes, os.PathLike)) else list(args)  # type: ignore[arg-type]
    first = os.fsdecode(argv[0]) if argv else ""
    return os.path.basename(first.split()[0]) if first.split() else ""


@contextlib.contextmanager
def refusing_desktop_programs(started: list[str]) -> Iterator[None]:
    """While the block runs, ``subprocess.Popen`` of a :data:`DESKTOP_PROGRAMS` program raises
    ``RuntimeError`` (naming what to mark) and appends the program to ``started``."""
    original = subprocess.Popen.__init__

    def guarded_init(self: subprocess.Popen, args: object, *rest: object, **kwargs: object) -> None:
        program = _program(args)
        if program in DESKTOP_PROGRAMS:
            started.append(program)
            raise RuntimeError(
                f"{program} may not start in the parallel desktop-free run: add a sign of this test's module "
                f"to SERIAL_SIGNS or mark the test @pytest.mark.{SERIAL_MARKER} (tests/support/desktop_split.py)"
            )
        original(self, args, *rest, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(subprocess.Popen, "__init__", guarded_init)
        yield


@pytest.fixture(autouse=True, scope="session")
def _no_desktops_in_the_parallel_run() -> Iterator[None]:
    """In the parallel run (``DESKTOP_GYM_NO_DESKTOPS=1``), refuse desktop programs and fail the run."""
    if not os.environ.get(NO_DESKTOPS_ENV):
        yield
        return
    started: list[str] = []
    with refusing_desktop_programs(started):
        yield
    if started:
        pytest.fail(f"tests in the parallel desktop-free run tried to start {sorted(set(started))}")
