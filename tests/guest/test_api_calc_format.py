"""CalcTools formatting methods on a live Calc document, checked in the saved xlsx with openpyxl.

Also checks that an API change is visible on the screen (the GUI repaints the cell).
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from desktop_gym.guest.client import GuestClient
from desktop_gym.guest.types import GuestError

from .calc_api_support import call, launched_calc, saved_workbook

pytestmark = pytest.mark.slow

GRID_TOP = 160  # pixels: below the menus, toolbars and formula bar of a 1280x720 Calc window


@pytest.fixture(scope="module")
def calc(_session_guest: GuestClient) -> Iterator[GuestClient]:
    """One Calc instance on the source workbook for this module's tests."""
    yield from launched_calc(_session_guest, "api_format")


def test_change_is_visible_on_screen(calc: GuestClient, wait_until) -> None:
    before = calc.screenshot()
    call(calc, "set_background_color", cell_range="B2:C4", color="#FF0000")

    def changed_box() -> tuple[int, int, int, int] | None:
        diff = np.any(calc.screenshot() != before, axis=2)
        if not diff.any():
            return None
        ys, xs = np.nonzero(diff)
        return int(xs.min()), int(ys.min()), int(xs.max()), int(ys.max())

    wait_until(changed_box, timeout=5.0, what="Calc to repaint B2:C4")

    def red(image: np.ndarray) -> np.ndarray:
        return (image[..., 0] > 200) & (image[..., 1] < 60) & (image[..., 2] < 60)

    def newly_red() -> np.ndarray:
        after = calc.screenshot()
        mask = red(after) & np.any(after != before, axis=2)
        mask[:GRID_TOP] = False  # toolbar icons change too (the modified-document mark on Save)
        return mask

    def red_block() -> tuple[np.ndarray, np.ndarray, float] | None:
        """The rows and columns holding 20+ new red pixels (the cells; a stray icon pixel elsewhere, such as
        the sidebar's colour button taking the new colour, is not one), and how full their box is."""
        mask = newly_red()
        rows, cols = np.nonzero(mask.sum(axis=1) >= 20)[0], np.nonzero(mask.sum(axis=0) >= 20)[0]
        if mask.sum() < 3000 or not len(rows) or not len(cols):
            return None
        box = mask[rows.min() : rows.max() + 1, cols.min() : cols.max() + 1]
        return rows, cols, float(box.mean())

    # One solid block of 2x3 cells (grid lines aside), not a repaint of the whole window; under load
    # the repaint may come in parts, so wait for the block to fill.
    block = wait_until(lambda: (b := red_block()) is not None and b[2] > 0.8 and b, timeout=10.0, what="red cells")
    ys, xs, _filled = block
    assert (xs.max() - xs.min()) < 400 and (ys.max() - ys.min()) < 120


def test_number_format(calc: GuestClient) -> None:
    call(calc, "set_number_format", cell_range="D2:D6", format_string="0.00%")
    call(calc, "set_number_format", cell_range="C2:C6", format_string="#,##0.000")
    data = saved_workbook(calc)["Data"]
    assert data["D2"].number_format == "0.00%"
    assert data["C6"].number_format == "#,##0.000"
    with pytest.raises(GuestError, match="format_string '0.0.0.\\[' is not a valid number format"):
        call(calc, "set_number_format", cell_range="C2", format_string="0.0.0.[")


def test_fonts_and_colours(calc: GuestClient) -> None:
    call(calc, "set_bold", cell_range="A1:D1")
    call(calc, "set_font_name", cell_range="A2:A6", font_name="DejaVu Serif")
    call(calc, "set_font_size", cell_range="B2:B6", size=16)
    call(calc, "set_font_color", cell_range="C2:C6", color="#0000FF")
    call(calc, "set_background_color", cell_range="A1:D1", color="#FFFF00")
    data = saved_workbook(calc)["Data"]
    assert data["A1"].font.b and data["D1"].font.b and not data["A2"].font.b
    assert data["A3"].font.name == "DejaVu Serif"
    assert data["B4"].font.sz == 16
    assert data["C5"].font.color.rgb.endswith("0000FF")
    assert data["B1"].fill.fgColor.rgb.endswith("FFFF00")
    assert data["C3"].fill.fgColor.rgb.endswith("FF0000")  # from the screen test
    with pytest.raises(GuestError, match="color must be a hex colour"):
        call(calc, "set_font_color", cell_range="C2", color="blue")


def test_merge_cells(calc: GuestClient) -> None:
    call(calc, "merge_cells", cell_range="F1:H1")
    assert "F1:H1" in {str(r) for r in saved_workbook(calc)["Data"].merged_cells.ranges}
    call(calc, "merge_cells", cell_range="F1:H1", merge=False)
    assert not saved_workbook(calc)["Data"].merged_cells.ranges


def test_column_width_and_row_height(calc: GuestClient) -> None:
    call(calc, "set_column_width", column="B", width_cm=6.0)
    call(calc, "set_column_width", column="C", width_cm=3.0)
    call(calc, "set_row_height", row=3, height_cm=1.5)
    data = saved_workbook(calc)["Data"]
    # xlsx widths are in characters plus padding: 6 cm is a bit under twice 3 cm.
    assert 1.6 < data.column_dimensions["B"].width / data.column_dimensions["C"].width < 2.2
    assert data.row_dimensions[3].height == pytest.approx(1.5 / 2.54 * 72, abs=1.0)  # points


def test_freeze_panes(calc: GuestClient) -> None:
    assert call(calc, "freeze_panes", cell="B2") == "froze 1 row(s) and 1 column(s) of 'Data'"
    assert saved_workbook(calc)["Data"].freeze_panes == "B2"


def test_conditional_format(calc: GuestClient) -> None:
    call(calc, "add_conditional_format", cell_range="C2:C6", operator="greater", value=20, background_color="#FFC7CE")
    call(
        calc,
        "add_conditional_format",
        cell_range="D2:D6",
        operator="between",
        value=1,
        value2=2,
        background_color="#C6EFCE",
    )
    rules = {str(cf.sqref): cf.rules for cf in saved_workbook(calc)["Data"].conditional_formatting}
    greater = rules["C2:C6"][0]
    assert (greater.operator, greater.formula) == ("greaterThan", ["20"])
    assert greater.dxf.fill.bgColor.rgb.endswith("FFC7CE") or greater.dxf.fill.fgColor.rgb.endswith("FFC7CE")
    between = rules["D2:D6"][0]
    assert (between.operator, between.formula) == ("between", ["1", "2"])
    with pytest.raises(GuestError, match="value2 is required"):
        call(calc, "add_conditional_format", cell_range="C2", operator="between", value=1, background_color="#000000")
