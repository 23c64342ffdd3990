"""The core run's split: which tests run serially, and the guard of the parallel desktop-free run."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from .support.desktop_split import SERIAL_MARKER, _program, module_is_serial, refusing_desktop_programs


@pytest.mark.parametrize(
    ("source", "serial"),
    [
        ("from desktop_gym import DesktopEnv\n", True),
        ("def test(guest):\n    subprocess.run(['soffice', '--headless'])\n", True),
        ("started = time.perf_counter()\nassert time.perf_counter() - started < 1\n", True),
        ("def test_parse():\n    assert parse('click(1, 2)')\n", False),
    ],
)
def test_module_signs_decide_serial_modules(tmp_path: Path, source: str, serial: bool) -> None:
    path = tmp_path / f"test_{abs(hash(source))}.py"
    path.write_text(source)
    assert module_is_serial(path) is serial


def test_an_unreadable_module_is_serial(tmp_path: Path) -> None:
    assert module_is_serial(tmp_path / "missing.py") is True


@pytest.mark.parametrize(
    ("args", "program"),
    [
        (["Xvfb", "-displayfd", "5"], "Xvfb"),
        ("/usr/bin/soffice --headless --convert-to pdf a.odt", "soffice"),
        (b"/usr/bin/podman", "podman"),
        (Path("/usr/bin/qemu-img"), "qemu-img"),
        ([], ""),
        ("", ""),
    ],
)
def test_program_names_the_started_binary(args: object, program: str) -> None:
    assert _program(args) == program


def test_the_guard_refuses_desktop_programs_and_lets_others_run() -> None:
    started: list[str] = []
    with refusing_desktop_programs(started):
        with pytest.raises(RuntimeError, match=f"mark the test @pytest.mark.{SERIAL_MARKER}"):
            subprocess.Popen(["Xvfb", "-displayfd", "5"])
        assert subprocess.run(["true"], check=False).returncode == 0
    assert started == ["Xvfb"]
    assert subprocess.run(["true"], check=False).returncode == 0  # restored after the block


def test_the_collection_hook_marks_this_module_serial(request: pytest.FixtureRequest) -> None:
    # This module's source names desktop programs (the parametrized cases above), so the hook marked it.
    assert request.node.get_closest_marker(SERIAL_MARKER) is not None
