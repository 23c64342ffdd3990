"""The defects of issue 18, on documents real LibreOffice saved: strict defaults, leniencies as options.

Each workbook, CSV and document is written by openpyxl / python-docx and then re-saved by headless
soffice, so the verifiers see what the app writes (one soffice run per format for the module).
"""

from __future__ import annotations

import datetime
import io
import zipfile
from pathlib import Path

import docx
import openpyxl
import pytest
from openpyxl.chart import BarChart, Reference
from openpyxl.formatting.rule import FormulaRule
from openpyxl.styles import PatternFill
from openpyxl.worksheet.views import Pane

from desktop_gym.verifiers import (
    verify_csv_rows,
    verify_docx_tables,
    verify_sheet_table,
    verify_xlsx_cells,
    verify_xlsx_charts,
    verify_xlsx_conditional_rule,
    verify_xlsx_freeze_panes,
    verify_xlsx_sorted,
)

from .libreoffice_convert import convert, saved_bytes

# LibreOffice's ascending order for a column mixing numbers and text: numbers first, then text.
CALC_SORTED_MIXED = [1, 5, 10, "apple", "Banana"]
RED = PatternFill(start_color="FFFF0000", end_color="FFFF0000", fill_type="solid")


def _save(workbook: openpyxl.Workbook) -> bytes:
    return saved_bytes(workbook)


def _sorted_book() -> openpyxl.Workbook:
    workbook = openpyxl.Workbook()
    sheet = workbook.active
    sheet.title = "Data"
    sheet.append(["Key", "Value"])
    for index, key in enumerate(CALC_SORTED_MIXED):
        sheet.append([key, index])
    swept = workbook.create_sheet("Swept")  # a sort that took the header row along as data
    for row in ([1, "a"], [5, "b"], ["Key", "Value"]):
        swept.append(row)
    return workbook


def _cells_book() -> openpyxl.Workbook:
    workbook = openpyxl.Workbook()
    sheet = workbook.active
    sheet.title = "Cells"
    sheet["A1"] = datetime.datetime(2024, 1, 5)
    sheet["A1"].number_format = "yyyy-mm-dd"
    sheet["B1"] = datetime.datetime(2024, 1, 5, 10, 30)
    sheet["B1"].number_format = "yyyy-mm-dd hh:mm"
    sheet["D1"] = "3"  # a number stored as text
    sheet["E1"] = "1,000"
    sheet["F1"] = 3
    sheet["G1"] = "  padded "
    return workbook


def _panes_book() -> openpyxl.Workbook:
    workbook = openpyxl.Workbook()
    workbook.active.title = "Frozen"
    workbook.active.freeze_panes = "B2"
    split = workbook.create_sheet("Split")
    split.sheet_view.pane = Pane(xSplit=2000, ySplit=1500, topLeftCell="B2", activePane="bottomRight", state="split")
    return workbook


def _objects_book() -> openpyxl.Workbook:
    workbook = openpyxl.Workbook()
    sheet = workbook.active
    sheet.title = "Monthly"
    sheet.append(["Month", "Sales"])
    for month, sales in (("Jan", 70), ("Feb", 20), ("Mar", 55), ("Apr", 40)):
        sheet.append([month, sales])
    chart = BarChart()
    chart.title = "Sales by month"
    chart.add_data(Reference(sheet, min_col=2, min_row=1, max_row=5), titles_from_data=True)
    chart.set_categories(Reference(sheet, min_col=1, min_row=2, max_row=5))
    sheet.add_chart(chart, "D2")
    sheet.conditional_formatting.add("B2:B5", FormulaRule(formula=["B2>50"], fill=RED))
    shifted = workbook.create_sheet("Shifted")  # a formula rule that looks one row down: not "cell > 50"
    for value in (70, 20, 55):
        shifted.append([value])
    shifted.conditional_formatting.add("A1:A3", FormulaRule(formula=["A2>50"], fill=RED))
    return workbook


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    """Each test document as LibreOffice re-saved it, by name (``sorted.xlsx``, ``table.csv``, ...)."""
    workdir = tmp_path_factory.mktemp("strictness")
    books = {"sorted": _sorted_book(), "cells": _cells_book(), "objects": _objects_book()}
    sources = []
    for name, workbook in books.items():
        path = workdir / f"{name}.xlsx"
        path.write_bytes(_save(workbook))
        sources.append(path)
    result = convert(sources, "xlsx", workdir / "xlsx")
    document = docx.Document()
    table = document.add_table(rows=2, cols=2)
    for row, texts in zip(table.rows, (("Item", "Qty"), ("Tea", "3.0")), strict=True):
        for cell, text in zip(row.cells, texts, strict=True):
            cell.text = text
    (workdir / "table.docx").write_bytes(_docx_bytes(document))
    result.update(convert([workdir / "table.docx"], "docx:MS Word 2007 XML", workdir / "docx"))
    csv_source = workdir / "table.xlsx"
    table_book = openpyxl.Workbook()
    for row in (["Item", "Qty"], ["Tea", 3], ["Rice", 1000]):
        table_book.active.append(row)
    csv_source.write_bytes(_save(table_book))
    result.update(convert([csv_source], "csv:Text - txt - csv (StarCalc):59,34,76", workdir / "csv"))
    return result


def _rewrite(data: bytes, part: str, old: bytes, new: bytes) -> bytes:
    """The zip ``data`` with ``old`` replaced by ``new`` in one part (which must contain it)."""
    source, target = zipfile.ZipFile(io.BytesIO(data)), io.BytesIO()
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as out:
        for item in source.infolist():
            content = source.read(item.filename)
            if item.filename == part:
                assert old in content, f"{part} has no {old!r}"
                content = content.replace(old, new)
            out.writestr(item, content)
    return target.getvalue()


def _docx_bytes(document: docx.document.Document) -> bytes:
    return saved_bytes(document)


def test_a_calc_sort_of_numbers_and_text_passes_and_text_order_is_an_option(saved: dict[str, bytes]) -> None:
    data = saved["sorted.xlsx"]
    assert verify_xlsx_sorted(data, "A", sheet="Data").success
    assert not verify_xlsx_sorted(data, "A", sheet="Data", descending=True).success
    # Compared as text, "10" sorts before "5": the old behaviour, now only on request.
    as_text = verify_xlsx_sorted(data, "A", sheet="Data", numeric=False)
    assert not as_text.success and "A3 = 5 comes before A4 = 10" in as_text.reason
    assert "A5 is 'apple', not a number" in verify_xlsx_sorted(data, "A", sheet="Data", numeric=True).reason


def test_a_sort_that_swept_the_header_into_the_data_fails(saved: dict[str, bytes]) -> None:
    data = saved["sorted.xlsx"]
    expected = [["Key", "Value"], [1, "a"], [5, "b"]]
    swept = verify_sheet_table(data, expected, sheet="Swept", ignore_row_order=True)
    assert not swept.success and "row 1 column 1" in swept.reason
    assert verify_sheet_table(data, expected, sheet="Swept", ignore_row_order=True, header_rows=0).success


def test_blank_cells_and_dates_match_as_users_write_them(saved: dict[str, bytes]) -> None:
    data = saved["cells.xlsx"]
    expected = {"A1": "2024-01-05", "B1": "2024-01-05 10:30", "C1": None, "H1": ""}
    assert verify_xlsx_cells(data, expected).success
    assert verify_xlsx_cells(data, {"A1": datetime.date(2024, 1, 5)}).success
    wrong = verify_xlsx_cells(data, {"A1": "2024-01-06", "B1": "2024-01-05", "F1": None})
    assert not wrong.success and wrong.details["mismatches"].keys() == {"A1", "B1", "F1"}
    assert wrong.details["mismatches"]["A1"]["found"] == "2024-01-05 00:00:00"


def test_numbers_stored_as_text_and_padding_count_only_when_asked(saved: dict[str, bytes]) -> None:
    data = saved["cells.xlsx"]
    assert verify_xlsx_cells(data, {"F1": 3}).success
    strict = verify_xlsx_cells(data, {"D1": 3, "E1": 1000})
    assert not strict.success and strict.score == 0.0
    assert verify_xlsx_cells(data, {"D1": 3, "E1": 1000}, numeric_text=True).success
    assert not verify_xlsx_cells(data, {"G1": "padded"}).success
    assert verify_xlsx_cells(data, {"G1": "PADDED"}, strip=True, ignore_case=True).success


def test_split_panes_are_not_frozen_panes() -> None:
    # Headless soffice drops view settings (panes) on conversion, so these are openpyxl's, written
    # with the pane states LibreOffice writes from a session: "frozen" and "split".
    data = _save(_panes_book())
    assert verify_xlsx_freeze_panes(data, "B2", sheet="Frozen").success
    split = verify_xlsx_freeze_panes(data, sheet="Split")
    assert not split.success and ("split panes" in split.reason or "no frozen panes" in split.reason)


def test_chart_data_ranges_are_checked(saved: dict[str, bytes]) -> None:
    data = saved["objects.xlsx"]
    assert verify_xlsx_charts(data, values=["Monthly!B2:B5"], categories="A2:A5").success
    assert verify_xlsx_charts(data, values=["$B$2:$B$5"]).success
    wrong = verify_xlsx_charts(data, values=["Monthly!B2:B4"])
    assert not wrong.success and "plots values" in wrong.reason
    assert not verify_xlsx_charts(data, values=["Monthly!B2:B5", "Monthly!C2:C5"]).success
    assert not verify_xlsx_charts(data, categories="Other!A2:A5").success


def test_an_equivalent_formula_rule_counts_as_the_cell_value_rule(saved: dict[str, bytes]) -> None:
    data = saved["objects.xlsx"]
    assert verify_xlsx_conditional_rule(data, "B2:B5", "greaterThan", 50, color="#FF0000").success
    assert not verify_xlsx_conditional_rule(data, "B2:B5", "lessThan", 50).success
    assert not verify_xlsx_conditional_rule(data, "B2:B5", "greaterThan", 40).success
    assert not verify_xlsx_conditional_rule(data, "A1:A3", "greaterThan", 50, sheet="Shifted").success


def test_csv_delimiter_is_strict_unless_left_to_the_agent(saved: dict[str, bytes]) -> None:
    data = saved["table.csv"]
    assert b";" in data
    rows = [["Tea", 3], ["Rice", 1000]]
    assert not verify_csv_rows(data, rows, header=["Item", "Qty"]).success
    assert verify_csv_rows(data, rows, header=["Item", "Qty"], delimiter=";").success
    assert verify_csv_rows(data, rows, header=["Item", "Qty"], delimiter=None).success


def test_csv_numbers_must_be_written_plainly_unless_numeric_text() -> None:
    data = b'Item,Qty\nTea,3.0\nRice,"1,000"\nSalt, 2\n'
    rows = [["Tea", 3], ["Rice", 1000], ["Salt", 2]]
    result = verify_csv_rows(data, rows, skip_header=True)
    assert not result.success and result.details["first_difference"]["row"] == 1
    assert verify_csv_rows(data, rows, skip_header=True, numeric_text=True, strip=True).success
    assert verify_csv_rows(b"a,b\nTea,3\n", [["Tea", 3]], skip_header=True).success


def test_docx_table_numbers_must_be_written_plainly(saved: dict[str, bytes]) -> None:
    data = saved["table.docx"]
    assert not verify_docx_tables(data, expected_rows=[["Item", "Qty"], ["Tea", 3]]).success
    assert verify_docx_tables(data, expected_rows=[["Item", "Qty"], ["Tea", "3.0"]]).success
    assert verify_docx_tables(data, expected_rows=[["Item", "Qty"], ["Tea", 3]], numeric_text=True).success


def test_a_chart_sheet_or_missing_active_tab_fails_with_a_reason(tmp_path: Path) -> None:
    workbook = openpyxl.Workbook()
    workbook.active.append([1, 2])
    chart_sheet = workbook.create_chartsheet("Chart")
    chart = BarChart()
    chart.add_data(Reference(workbook["Sheet"], min_col=1, max_col=2, min_row=1))
    chart_sheet.add_chart(chart)
    workbook.active = 1
    data = _save(workbook)
    for verify, kwargs in (
        (verify_xlsx_cells, {"expected": {"A1": 1}}),
        (verify_xlsx_sorted, {"column": "A"}),
        (verify_xlsx_freeze_panes, {}),
        (verify_sheet_table, {"expected_rows": [[1, 2]]}),
    ):
        unnamed = verify(data, **kwargs)
        assert not unnamed.success and "active tab is the chart sheet 'Chart'" in unnamed.reason
        named = verify(data, sheet="Chart", **kwargs)
        assert not named.success and "'Chart' is a chart sheet" in named.reason
        assert verify(data, sheet="Sheet", **kwargs).reason
    missing_active = _rewrite(data, "xl/workbook.xml", b'activeTab="1"', b'activeTab="7"')
    result = verify_xlsx_cells(missing_active, {"A1": 1})
    assert not result.success and "active tab" in result.reason
