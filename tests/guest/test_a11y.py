"""The accessibility tree of a real LibreOffice Calc on a private X server and session bus.

libatspi binds one accessibility bus per process, so this module reads the tree in-process from
one private desktop (module scope) and checks the "no bus" case in a subprocess.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from desktop_gym.guest import a11y
from desktop_gym.guest.input import InputController
from desktop_gym.polling import poll_until

from ..support.soffice import needs_desktop_tools
from .conftest import A11Y_DOCUMENT

pytestmark = needs_desktop_tools

DOCUMENT_NAME = A11Y_DOCUMENT


def _poll(condition, timeout: float, what: str):
    return poll_until(condition, timeout, what, retry_on=(Exception,), error=pytest.fail.Exception)


def _click(env: dict[str, str], point: tuple[int, int]) -> None:
    """Click through XTEST, as the guest does (no xdotool needed)."""
    controller = InputController(env["DISPLAY"])
    try:
        controller.click(*point)
    finally:
        controller.close()


def _press(env: dict[str, str], key: str) -> None:
    controller = InputController(env["DISPLAY"])
    try:
        controller.press(key)
    finally:
        controller.close()


@pytest.fixture(scope="module")
def calc_desktop(a11y_calc_office: tuple[dict[str, str], object]) -> dict[str, str]:
    """Xvfb + openbox + private dbus + soffice --calc on budget.xlsx; this process's env points at them."""
    _poll(lambda: a11y.find_nodes("table", app="soffice", timeout=5), 30, "the Calc grid on the a11y bus")
    return a11y_calc_office[0]


def test_a11y_environment_sets_gtk3_and_keeps_the_bridge() -> None:
    env = a11y.a11y_environment({"NO_AT_BRIDGE": "1", "PATH": "/bin"})
    assert env == {"PATH": "/bin", "SAL_USE_VCLPLUGIN": "gtk3"}


def test_no_accessibility_bus_is_an_error_not_an_abort() -> None:
    # libatspi g_error()s (SIGTRAP) without a bus; run it in a child so that a regression cannot kill pytest.
    env = {
        k: v for k, v in os.environ.items() if k not in ("DBUS_SESSION_BUS_ADDRESS", "AT_SPI_BUS_ADDRESS", "DISPLAY")
    }
    code = (
        "from desktop_gym.guest import a11y\n"
        "try:\n    a11y.linearize_tree()\n"
        "except a11y.A11yUnavailableError as exc:\n    print('unavailable:', exc)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert result.returncode == 0, result.stderr
    assert "unavailable: DBUS_SESSION_BUS_ADDRESS is not set" in result.stdout


@pytest.mark.slow
def test_tree_shows_calc_frame_and_table_summary(calc_desktop: dict[str, str]) -> None:
    started = time.monotonic()
    tree = a11y.linearize_tree(visible_only=True)
    elapsed = time.monotonic() - started
    lines = tree.splitlines()
    print(f"\nvisible a11y tree: {len(lines)} lines, {len(tree)} chars, {elapsed:.2f} s")
    assert elapsed < 3.0
    assert 20 < len(lines) < 1000
    assert lines[0] == 'application "soffice"'
    assert any(re.match(rf'\s+frame "{re.escape(DOCUMENT_NAME)} - LibreOffice Calc"', line) for line in lines)
    table = next(line for line in lines if line.lstrip().startswith('table "Sheet Budget"'))
    assert "{1048576x16384 visible A1:" in table
    assert 'A1="rent"' in table and 'B1="1200"' in table and 'B2="35"' in table
    assert "truncated" not in tree


@pytest.mark.slow
def test_full_tree_does_not_descend_into_the_grid(calc_desktop: dict[str, str]) -> None:
    started = time.monotonic()
    tree = a11y.linearize_tree(visible_only=False, compact=False, timeout=10)
    elapsed = time.monotonic() - started
    print(f"\nfull a11y tree: {len(tree.splitlines())} lines in {elapsed:.2f} s")
    assert elapsed < 5.0
    assert "truncated" not in tree
    assert "table cell" not in tree  # cells only appear inside the table summary


@pytest.mark.slow
def test_max_nodes_and_timeout_truncate(calc_desktop: dict[str, str]) -> None:
    lines = a11y.linearize_tree(max_nodes=10).splitlines()
    assert len(lines) == 11 and lines[-1] == "... truncated (max_nodes)"
    started = time.monotonic()
    cut = a11y.linearize_tree(timeout=0.001)
    assert time.monotonic() - started < 1.0
    assert cut.endswith("... truncated (timeout after 0.001 s)")


@pytest.mark.slow
def test_find_nodes_returns_clickable_boxes(calc_desktop: dict[str, str]) -> None:
    (data_menu,) = a11y.find_nodes("menu", "Data", app="soffice")
    assert 0 < data_menu.y < 60 and data_menu.width > 10 and data_menu.height > 10
    name_box = next(n for n in a11y.find_nodes("text", app="soffice") if re.fullmatch(r"[A-Z]+[0-9]+", n.text))
    assert name_box.x < 100 and 60 < name_box.y < 200 and name_box.width > 50
    assert "editable" in name_box.states
    assert a11y.find_nodes("PUSH_BUTTON", "save", exact=False, limit=1)[0].name == "Save"

    # Clicking the menu's centre opens it: its items become visible with boxes below the menu bar.
    _click(calc_desktop, data_menu.center)
    sort = _poll(lambda: a11y.find_nodes("menu item", "Sort...", app="soffice"), 10, "the Data menu to open")[0]
    assert sort.y >= data_menu.y + data_menu.height - 2 and abs(sort.x - data_menu.x) < 20
    _press(calc_desktop, "Escape")
    _poll(lambda: not a11y.find_nodes("menu item", "Sort...", app="soffice"), 10, "the Data menu to close")


@pytest.mark.slow
def test_libreoffice_own_widgets_report_true_screen_boxes(calc_desktop: dict[str, str]) -> None:
    # LibreOffice 7.4 reports its VCL widgets 1 menu-bar height too high; a11y corrects that.
    # Clicking the corrected centre of the (VCL) "Bold" button must toggle it.
    (bold,) = a11y.find_nodes("toggle button", "Bold", app="soffice")
    (menu_bar,) = [n for n in a11y.find_nodes("menu bar", app="soffice") if n.height > 0]
    assert bold.y >= menu_bar.y + menu_bar.height
    _click(calc_desktop, bold.center)
    _poll(
        lambda: {"checked", "pressed"} & a11y.find_nodes("toggle button", "Bold", app="soffice")[0].states,
        10,
        "Bold to be checked after clicking it",
    )
    _click(calc_desktop, bold.center)
