"""A workbook's whole state as data, and ``xlsx_state``: the saved workbook is exactly the expected one.

``workbook_state(data)`` reads what a user of the sheet would call its content: the sheet names
in order and, per sheet, every non-empty cell (a number, a text, or a formula as ``=...``), the
bold cells, the solid fills, the number formats other than ``General`` and the merged ranges.
Column widths, fonts and other styling are not part of it. Mined tasks (``tasks synth``) verify
with it: the expected state is the one their program left, so the check covers both what had to
change and that nothing else did.
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any

from ._load import open_xlsx
from .registry import register_verifier
from .result import CheckFailed, VerifierResult, differences_verdict

MAX_STATE_CELLS = 20_000  # cells read into a state at most (a bigger sheet fails the check, naming it)
MAX_REPORTED_DIFFERENCES = 6
STATE_KEYS = ("sheets", "cells", "bold", "fill", "number_format", "merged")


def cell_content(value: Any) -> Any:
    """A cell value as JSON data: numbers rounded to 9 significant digits, formulas without spaces."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float):
        number = float(f"{float(value):.9g}")
        return int(number) if number.is_integer() and abs(number) < 2**53 else number
    if isinstance(value, datetime.datetime | datetime.date | datetime.time):
        return value.isoformat()
    text = str(value)
    return text.replace(" ", "").upper() if text.startswith("=") else text


def _fill_color(cell: Any) -> str | None:
    fill = cell.fill
    if fill is None or fill.fill_type != "solid":
        return None
    rgb = getattr(fill.fgColor, "rgb", None)
    return rgb[-6:].upper() if isinstance(rgb, str) and len(rgb) >= 6 else None


def workbook_state(data: bytes | None) -> dict[str, Any]:
    """The state of a saved xlsx workbook (see the module docstring).

    Raises:
        DocumentError: missing or unreadable.
        CheckFailed: a sheet with more than ``MAX_STATE_CELLS`` cells.
    """
    book = open_xlsx(data, formulas=True)
    state: dict[str, Any] = {key: {} for key in STATE_KEYS}
    state["sheets"] = list(book.sheetnames)
    read = 0
    for sheet in book.worksheets:
        cells: dict[str, Any] = {}
        bold: list[str] = []
        fills: dict[str, str] = {}
        formats: dict[str, str] = {}
        for row in sheet.iter_rows():
            for cell in row:
                read += 1
                if read > MAX_STATE_CELLS:
                    raise CheckFailed(f"the workbook has more than {MAX_STATE_CELLS} cells")
                if type(cell).__name__ == "MergedCell":
                    continue
                if cell.value is not None and cell.value != "":
                    cells[cell.coordinate] = cell_content(cell.value)
                    if cell.number_format and cell.number_format != "General":
                        formats[cell.coordinate] = str(cell.number_format)
                if cell.font is not None and cell.font.b:
                    bold.append(cell.coordinate)
                color = _fill_color(cell)
                if color is not None:
                    fills[cell.coordinate] = color
        name = sheet.title
        state["cells"][name] = cells
        state["bold"][name] = sorted(bold)
        state["fill"][name] = fills
        state["number_format"][name] = formats
        state["merged"][name] = sorted(str(merged) for merged in sheet.merged_cells.ranges)
    return state


def state_differences(found: Mapping[str, Any], expected: Mapping[str, Any]) -> list[str]:
    """Each way ``found`` differs from ``expected``, as short sentences (sheet order first)."""
    differences: list[str] = []
    if list(found.get("sheets", [])) != list(expected.get("sheets", [])):
        differences.append(f"sheets are {found.get('sheets')}, expected {expected.get('sheets')}")
    for key in STATE_KEYS[1:]:
        for sheet in expected.get("sheets", []):
            want = expected.get(key, {}).get(sheet, {} if key != "bold" and key != "merged" else [])
            have = found.get(key, {}).get(sheet, {} if key != "bold" and key != "merged" else [])
            if want == have:
                continue
            if isinstance(want, dict) and isinstance(have, dict):
                for ref in sorted({*want, *have}, key=lambda r: (len(r), r)):
                    if want.get(ref) != have.get(ref):
                        differences.append(f"{sheet}!{ref} {key}: expected {want.get(ref)!r}, found {have.get(ref)!r}")
            else:
                differences.append(f"{sheet} {key}: expected {want}, found {have}")
    return differences


@register_verifier("xlsx_state", reads="file")
def verify_xlsx_state(data: bytes | None, expected: Mapping[str, Any]) -> VerifierResult:
    """Check that a saved workbook's state (``workbook_state``) is exactly ``expected``.

    Args:
        data: the file's bytes, or None when it does not exist.
        expected: a state as ``workbook_state`` gives it: what had to change and everything that
            had to stay.

    Returns:
        success when the states are equal; otherwise the first differences name cell and property.
    """
    return differences_verdict(state_differences(workbook_state(data), expected), "workbook", MAX_REPORTED_DIFFERENCES)
