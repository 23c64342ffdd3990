"""verify_xlsx_fill and verify_xlsx_merged_cells on workbooks written by openpyxl (the Calc suite's
tests check them on files LibreOffice saved)."""

from __future__ import annotations

import openpyxl
import pytest
from openpyxl.styles import PatternFill

from desktop_gym.verifiers.registry import get_verifier
from desktop_gym.verifiers.spreadsheet_format import (
    verify_xlsx_conditional_rule,
    verify_xlsx_fill,
    verify_xlsx_merged_cells,
)

from .libreoffice_convert import saved_bytes


def _book(fill: dict[str, str] | None = None, merged: list[str] | None = None) -> bytes:
    workbook = openpyxl.Workbook()
    sheet = workbook.active
    sheet.title = "Data"
    for row in range(1, 4):
        sheet.append([f"r{row}c{col}" for col in range(1, 5)])
    for ref, color in (fill or {}).items():
        sheet[ref].fill = PatternFill(fill_type="solid", fgColor=color)
    for cell_range in merged or []:
        sheet.merge_cells(cell_range)
    return saved_bytes(workbook)


def test_fill_passes_when_every_cell_has_the_colour():
    data = _book(fill={"A1": "FFFFFF00", "B1": "FFFFFF00"})
    assert verify_xlsx_fill(data, "A1:B1", "#ffff00", sheet="Data").success
    assert get_verifier("xlsx_fill") is verify_xlsx_fill


def test_fill_fails_naming_the_first_wrong_cell_with_partial_score():
    result = verify_xlsx_fill(_book(fill={"A1": "FFFFFF00", "B1": "FF00FF00"}), "A1:C1", "#FFFF00")
    assert not result.success
    assert "B1" in result.reason and "#00FF00" in result.reason
    assert result.score == pytest.approx(1 / 3)


def test_fill_none_means_unfilled():
    assert verify_xlsx_fill(_book(), "A1:D3", None).success
    assert not verify_xlsx_fill(_book(fill={"C3": "FFFF0000"}), "A1:D3", None).success


def test_fill_rejects_a_malformed_colour_and_reports_a_missing_file():
    with pytest.raises(ValueError, match="hex colour"):
        verify_xlsx_fill(_book(), "A1", "yellow")
    missing = verify_xlsx_fill(None, "A1", "#FFFF00")
    assert not missing.success and "does not exist" in missing.reason


def test_fill_names_an_unknown_sheet():
    result = verify_xlsx_fill(_book(), "A1", "#FFFF00", sheet="Nope")
    assert not result.success and "Nope" in result.reason


def test_merged_cells_exact_range_only():
    data = _book(merged=["A1:D1"])
    assert verify_xlsx_merged_cells(data, "A1:D1").success
    assert verify_xlsx_merged_cells(data, "$A$1:$D$1").success
    short = verify_xlsx_merged_cells(data, "A1:C1")
    assert not short.success and "A1:D1" in short.reason
    none = verify_xlsx_merged_cells(_book(), "A1:D1")
    assert not none.success and "no merged cells" in none.reason


def _conditional(operator: str = "greaterThan", value: str = "3", color: str = "FFFF0000") -> bytes:
    from openpyxl.formatting.rule import CellIsRule

    workbook = openpyxl.Workbook()
    sheet = workbook.active
    for number in range(6):
        sheet.append([number])
    rule = CellIsRule(operator=operator, formula=[value], fill=PatternFill(bgColor=color))
    sheet.conditional_formatting.add("A1:A6", rule)
    return saved_bytes(workbook)


def test_conditional_rule_checks_operator_value_range_and_fill():
    data = _conditional()
    assert verify_xlsx_conditional_rule(data, "A2:A6", "greaterThan", 3, color="#FF0000").success
    assert verify_xlsx_conditional_rule(data, "A1:A6", "greaterthan", 3.0).success
    wrong_value = verify_xlsx_conditional_rule(data, "A1:A6", "greaterThan", 4)
    assert not wrong_value.success and "greaterThan ['3']" in wrong_value.reason
    assert not verify_xlsx_conditional_rule(data, "A1:A6", "lessThan", 3).success
    assert not verify_xlsx_conditional_rule(data, "A1:A9", "greaterThan", 3).success
    assert not verify_xlsx_conditional_rule(data, "A1:A6", "greaterThan", 3, color="#00FF00").success
    none = verify_xlsx_conditional_rule(_book(), "A1:A6", "greaterThan", 3)
    assert not none.success and "no conditional formatting" in none.reason
