"""Spreadsheet verifiers on workbooks written by openpyxl, and re-saved by real LibreOffice (slow)."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import openpyxl
import pytest
from openpyxl.chart import BarChart, LineChart, PieChart, Reference
from openpyxl.formatting.rule import CellIsRule, ColorScaleRule
from openpyxl.styles import Font, PatternFill

from desktop_gym.verifiers import (
    verify_sheet_table,
    verify_xlsx_autofilter,
    verify_xlsx_cells,
    verify_xlsx_charts,
    verify_xlsx_column_widths,
    verify_xlsx_conditional_formatting,
    verify_xlsx_font,
    verify_xlsx_formulas,
    verify_xlsx_freeze_panes,
    verify_xlsx_number_formats,
    verify_xlsx_pivot_tables,
    verify_xlsx_sheet_names,
    verify_xlsx_sorted,
)

from .libreoffice_convert import convert, saved_bytes

ROWS = [("Apples", 10, 20), ("Pears", 30, 5), ("Plums", 7, 70), ("Figs", 12, 1)]


def build_workbook() -> openpyxl.Workbook:
    """A sales sheet with formulas, formats, fonts, a filter, panes, conditional formats and charts."""
    workbook = openpyxl.Workbook()
    sheet = workbook.active
    sheet.title = "Sales"
    sheet.append(["Item", "Q1", "Q2", "Total"])
    for row, (name, q1, q2) in enumerate(ROWS, start=2):
        sheet.append([name, q1, q2, f"=B{row}+C{row}"])
    sheet["E2"], sheet["E2"].number_format = 0.25, "0.00%"
    sheet["F2"], sheet["F2"].number_format = 1234.5, "#,##0.00"
    for cell in sheet[1]:
        cell.font = Font(bold=True, name="Arial", size=12)
    sheet.column_dimensions["A"].width = 20
    sheet.freeze_panes = "B2"
    sheet.auto_filter.ref = "A1:D5"
    red = PatternFill("solid", bgColor="FFC7CE")
    sheet.conditional_formatting.add("B2:C5", CellIsRule(operator="greaterThan", formula=["15"], fill=red))
    sheet.conditional_formatting.add(
        "D2:D5", ColorScaleRule(start_type="min", start_color="FFFFFF", end_type="max", end_color="FF0000")
    )
    bars = BarChart()
    bars.type, bars.title = "col", "Quarterly sales"
    bars.add_data(Reference(sheet, min_col=2, min_row=1, max_col=3, max_row=5), titles_from_data=True)
    bars.set_categories(Reference(sheet, min_col=1, min_row=2, max_row=5))
    sheet.add_chart(bars, "H2")
    pie = PieChart()
    pie.title = "Share"
    pie.add_data(Reference(sheet, min_col=2, min_row=1, max_row=5), titles_from_data=True)
    sheet.add_chart(pie, "H20")
    workbook.create_sheet("Notes")
    return workbook


def save(workbook: openpyxl.Workbook) -> bytes:
    return saved_bytes(workbook)


@pytest.fixture(scope="module")
def book() -> bytes:
    """The workbook as openpyxl writes it (formula cells have no cached values)."""
    return save(build_workbook())


@pytest.fixture(scope="module")
def lo_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    """The same workbook re-saved by LibreOffice, and a pivot table LibreOffice built from flat ODS."""
    workdir = tmp_path_factory.mktemp("lo_xlsx")
    (workdir / "book.xlsx").write_bytes(save(build_workbook()))
    (workdir / "pivot.fods").write_text(PIVOT_FODS, encoding="utf-8")
    return convert([workdir / "book.xlsx", workdir / "pivot.fods"], "xlsx", workdir)


def test_cells_pass_and_fail_naming_the_cell(book: bytes) -> None:
    assert verify_xlsx_cells(book, {"B2": 10, "A3": "Pears", "G9": None}).success
    result = verify_xlsx_cells(book, {"B2": 10, "C3": 6}, sheet="Sales")
    assert not result.success and result.score == 0.5
    assert "first C3: expected 6, found 5" in result.reason
    assert "sheet 'Nope' not found" in verify_xlsx_cells(book, {"A1": 1}, sheet="Nope").reason


def test_formulas_are_read_without_cached_values(book: bytes) -> None:
    assert verify_xlsx_formulas(book, {"D2": "=B2 + C2", "D3": None}).success
    assert verify_xlsx_formulas(book, {"D2": "B2"}, match="contains").success
    typed = verify_xlsx_formulas(book, {"B2": None})
    assert not typed.success and "first B2: expected 'a formula', found 10" in typed.reason
    wrong = verify_xlsx_formulas(book, {"D2": "=SUM(B2:C2)"})
    assert "expected '=SUM(B2:C2)', found '=B2+C2'" in wrong.reason


def test_number_formats(book: bytes) -> None:
    assert verify_xlsx_number_formats(book, {"E2": "0.00%", "F2": "#,##0.00"}).success
    assert verify_xlsx_number_formats(book, {"E2": "%"}, match="contains").success
    result = verify_xlsx_number_formats(book, {"F2": "0.0"})
    assert not result.success and "F2: expected '0.0', found '#,##0.00'" in result.reason


def test_font_of_cells(book: bytes) -> None:
    assert verify_xlsx_font(book, "A1:D1", bold=True, name="arial", size=12).success
    result = verify_xlsx_font(book, ["A1", "A2"], bold=True)
    assert not result.success and "first A2: bold expected True, found False" in result.reason


def test_column_widths(book: bytes) -> None:
    assert verify_xlsx_column_widths(book, {"A": 20}).success
    assert verify_xlsx_column_widths(book, {"A": 15}, at_least=True).success
    result = verify_xlsx_column_widths(book, {"A": 30})
    assert not result.success and "first A: expected 30, found 20" in result.reason


def test_sheet_names(book: bytes) -> None:
    assert verify_xlsx_sheet_names(book, ["Sales", "Notes"]).success
    assert verify_xlsx_sheet_names(book, ["notes"], match="contains", ignore_case=True).success
    assert (
        "expected ['Notes', 'Sales'], found ['Sales', 'Notes']"
        in verify_xlsx_sheet_names(book, ["Notes", "Sales"]).reason
    )
    assert "missing sheets ['Summary']" in verify_xlsx_sheet_names(book, ["Summary"], match="contains").reason


def test_sorted_numeric_and_text() -> None:
    workbook = openpyxl.Workbook()
    sheet = workbook.active
    for row in [("Name", "Score"), ("ann", 1), ("Bob", 2.5), ("cid", 9)]:
        sheet.append(row)
    data = save(workbook)
    assert verify_xlsx_sorted(data, "B").success
    assert verify_xlsx_sorted(data, "A").success  # case-insensitive text order
    result = verify_xlsx_sorted(data, "B", descending=True)
    assert not result.success and "not sorted descending: B2 = 1 comes before B3 = 2.5" in result.reason
    assert "A2 is 'ann', not a number" in verify_xlsx_sorted(data, "A", numeric=True).reason


def test_autofilter_freeze_panes_and_conditional_formatting(book: bytes) -> None:
    assert verify_xlsx_autofilter(book, "A1:D5", match="exact").success
    assert verify_xlsx_autofilter(book, "B1:C3").success
    assert "the autofilter is on A1:D5, expected covering A1:E5" in verify_xlsx_autofilter(book, "A1:E5").reason
    assert "has no autofilter" in verify_xlsx_autofilter(book, sheet="Notes").reason
    assert verify_xlsx_freeze_panes(book, "B2").success
    assert "frozen at B2, expected A2" in verify_xlsx_freeze_panes(book, "A2").reason
    assert "no frozen panes" in verify_xlsx_freeze_panes(book, sheet="Notes").reason
    assert verify_xlsx_conditional_formatting(book, "B3:C4", rule_type="cellIs", operator="greaterThan").success
    assert verify_xlsx_conditional_formatting(book, "D2:D5", rule_type="colorscale").success
    wrong = verify_xlsx_conditional_formatting(book, "A2:A5")
    assert not wrong.success and "no conditional formatting rule covering A2:A5" in wrong.reason


def test_charts_count_type_and_title(book: bytes) -> None:
    assert verify_xlsx_charts(book, count=2).success
    title = "Quarterly sales"
    assert verify_xlsx_charts(book, chart_type="bar", title=title).success
    assert not verify_xlsx_charts(book, chart_type="bar", title="quarterly").success  # strict by default
    assert not verify_xlsx_charts(book, chart_type="bar", title=title.lower()).success
    lenient = {"title_match": "contains", "ignore_case": True}
    assert verify_xlsx_charts(book, chart_type="bar", title="quarterly", **lenient).success
    assert verify_xlsx_charts(book, chart_type="pie", title="Share", sheet="Sales").success
    assert "expected 3 charts in the workbook, found 2" in verify_xlsx_charts(book, count=3).reason
    assert "no line chart" in verify_xlsx_charts(book, chart_type="line").reason
    assert "no chart in the workbook is titled 'Revenue'" in verify_xlsx_charts(book, title="Revenue").reason
    assert "found 0" in verify_xlsx_charts(book, sheet="Notes").reason


def test_line_chart_is_not_a_bar_chart() -> None:
    workbook = openpyxl.Workbook()
    sheet = workbook.active
    for value in (1, 2, 3):
        sheet.append([value])
    line = LineChart()
    line.add_data(Reference(sheet, min_col=1, min_row=1, max_row=3))
    sheet.add_chart(line, "C1")
    data = save(workbook)
    assert verify_xlsx_charts(data, chart_type="line").success
    assert not verify_xlsx_charts(data, chart_type="bar").success


def test_sheet_table_with_options(book: bytes) -> None:
    expected = [["item", "q1", "q2"], *[[n, a, b] for n, a, b in ROWS]]
    assert verify_sheet_table(book, expected, cell_range="A1:C8", ignore_case=True).success
    strict = verify_sheet_table(book, expected, cell_range="A1:C5")
    assert not strict.success and "row 1 column 1 differs: expected 'item', found 'Item'" in strict.reason
    shuffled = [expected[0], *reversed(expected[1:])]
    assert verify_sheet_table(book, shuffled, cell_range="A1:C5", ignore_case=True, ignore_row_order=True).success
    short = verify_sheet_table(book, expected[:3], cell_range="A1:C5", ignore_case=True)
    assert "row count differs: expected 3 rows, found 5" in short.reason
    near = [["Item", "Q1"], ["Apples", 10.004]]
    assert verify_sheet_table(book, near, cell_range="A1:B2", tolerance=0.01).success
    assert not verify_sheet_table(book, near, cell_range="A1:B2").success


def test_ods_cells_and_table_via_odfpy(tmp_path: Path) -> None:
    from odf.opendocument import OpenDocumentSpreadsheet
    from odf.table import Table, TableCell, TableRow
    from odf.text import P

    document = OpenDocumentSpreadsheet()
    table = Table(name="Data")
    for values in (("Name", "Qty"), ("Tea", 3), ("Rice", 2.5)):
        row = TableRow()
        for value in values:
            if isinstance(value, str):
                cell = TableCell(valuetype="string")
            else:
                cell = TableCell(valuetype="float", value=value)
            cell.addElement(P(text=str(value)))
            row.addElement(cell)
        table.addElement(row)
    document.spreadsheet.addElement(table)
    document.save(str(tmp_path / "data.ods"))
    data = (tmp_path / "data.ods").read_bytes()
    assert verify_xlsx_cells(data, {"A2": "Tea", "B3": 2.5}).success
    assert "first B2: expected 4, found 3" in verify_xlsx_cells(data, {"B2": 4}).reason
    assert verify_sheet_table(data, [["Name", "Qty"], ["Tea", 3], ["Rice", 2.5]], sheet="Data").success


def _with_pivot(base: bytes) -> bytes:
    """Add a minimal pivot table (parts and relationships only) to an xlsx package."""
    main = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
    rel = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
    pkg = "http://schemas.openxmlformats.org/package/2006/relationships"
    parts = {
        "xl/worksheets/_rels/sheet1.xml.rels": f'<Relationships xmlns="{pkg}"><Relationship Id="rId9" '
        f'Type="{rel}/pivotTable" Target="../pivotTables/pivotTable1.xml"/></Relationships>',
        "xl/pivotTables/pivotTable1.xml": f'<pivotTableDefinition xmlns="{main}" name="P1" cacheId="1">'
        '<location ref="F1:G4"/><rowFields count="1"><field x="0"/></rowFields>'
        '<dataFields count="1"><dataField fld="2"/></dataFields></pivotTableDefinition>',
        "xl/pivotTables/_rels/pivotTable1.xml.rels": f'<Relationships xmlns="{pkg}"><Relationship Id="rId1" '
        f'Type="{rel}/pivotCacheDefinition" Target="../pivotCache/pivotCacheDefinition1.xml"/></Relationships>',
        "xl/pivotCache/pivotCacheDefinition1.xml": f'<pivotCacheDefinition xmlns="{main}">'
        '<cacheSource type="worksheet">'
        '<worksheetSource ref="A1:C5" sheet="Sheet"/></cacheSource><cacheFields count="3"><cacheField name="Item"/>'
        '<cacheField name="Q1"/><cacheField name="Q2"/></cacheFields></pivotCacheDefinition>',
    }
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(base)) as source, zipfile.ZipFile(out, "w") as target:
        for name in source.namelist():
            if name not in parts:
                target.writestr(name, source.read(name))
        for name, text in parts.items():
            target.writestr(name, text)
    return out.getvalue()


def test_pivot_tables_from_package_parts() -> None:
    workbook = openpyxl.Workbook()
    for row in [("Item", "Q1", "Q2"), *ROWS]:
        workbook.active.append(row)
    plain = save(workbook)
    data = _with_pivot(plain)
    assert verify_xlsx_pivot_tables(data, count=1, row_fields=["item"], data_fields=["Q2"]).success
    assert "expected at least 1 pivot tables in the workbook, found 0" in verify_xlsx_pivot_tables(plain).reason
    wrong = verify_xlsx_pivot_tables(data, row_fields=["Q1"])
    assert not wrong.success and "no pivot table in the workbook has row fields ['Q1']" in wrong.reason


# --- what LibreOffice writes ------------------------------------------------------------------------


@pytest.mark.slow
def test_libreoffice_xlsx_cells_formulas_and_formats(lo_files: dict[str, bytes]) -> None:
    book = lo_files["book.xlsx"]
    # LibreOffice caches formula results, so the values users see are readable.
    assert verify_xlsx_cells(book, {"D2": 30, "D5": 13}, sheet="Sales").success
    assert verify_xlsx_formulas(book, {"D2": "=B2+C2"}).success
    assert verify_xlsx_number_formats(book, {"E2": "0.00%", "F2": "#,##0.00"}).success
    assert verify_xlsx_font(book, "A1:D1", bold=True, name="Arial", size=12).success
    assert verify_xlsx_column_widths(book, {"A": 20, "B": 8.54}, tolerance=0.1).success
    assert verify_xlsx_sheet_names(book, ["Sales", "Notes"]).success
    assert not verify_xlsx_cells(book, {"D2": 31}).success


@pytest.mark.slow
def test_libreoffice_xlsx_structure_and_charts(lo_files: dict[str, bytes]) -> None:
    book = lo_files["book.xlsx"]
    assert verify_xlsx_autofilter(book, "A1:D5", match="exact").success
    assert verify_xlsx_conditional_formatting(book, "B2:C5", rule_type="cellIs", operator="greaterThan").success
    assert verify_xlsx_conditional_formatting(book, "D2:D5", rule_type="colorScale").success
    assert verify_xlsx_charts(book, count=2, chart_type="column", title="Quarterly sales").success
    assert verify_xlsx_charts(book, chart_type="pie", title="Share").success
    assert not verify_xlsx_charts(book, chart_type="line").success
    # Headless LibreOffice has no view, so it does not write the frozen panes it read.
    assert "no frozen panes" in verify_xlsx_freeze_panes(book, "B2").reason


@pytest.mark.slow
def test_libreoffice_pivot_table(lo_files: dict[str, bytes]) -> None:
    pivot = lo_files["pivot.xlsx"]
    assert verify_xlsx_pivot_tables(pivot, sheet="Pivot", count=1, row_fields=["Region"], data_fields=["Sales"]).success
    assert not verify_xlsx_pivot_tables(pivot, sheet="Data").success
    assert verify_sheet_table(
        pivot, [["Region", "Product", "Sales"], ["North", "Tea", 10]], sheet="Data", cell_range="A1:C2"
    ).success


PIVOT_FODS = (
    """<?xml version="1.0" encoding="UTF-8"?>
<office:document xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"
 xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0"
 xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"
 office:version="1.3" office:mimetype="application/vnd.oasis.opendocument.spreadsheet">
<office:body><office:spreadsheet>
<table:table table:name="Data">
"""
    + "".join(
        "<table:table-row>"
        + "".join(
            f'<table:table-cell office:value-type="float" office:value="{v}"><text:p>{v}</text:p></table:table-cell>'
            if isinstance(v, int)
            else f'<table:table-cell office:value-type="string"><text:p>{v}</text:p></table:table-cell>'
            for v in row
        )
        + "</table:table-row>\n"
        for row in [("Region", "Product", "Sales"), ("North", "Tea", 10), ("South", "Tea", 20), ("North", "Coffee", 5)]
    )
    + """</table:table>
<table:table table:name="Pivot"><table:table-row><table:table-cell/></table:table-row></table:table>
<table:data-pilot-tables>
<table:data-pilot-table table:name="SalesPivot" table:target-range-address="Pivot.A1:Pivot.C6" table:buttons="Pivot.A1">
<table:source-cell-range table:cell-range-address="Data.A1:Data.C4"/>
<table:data-pilot-field table:source-field-name="Region" table:orientation="row"/>
<table:data-pilot-field table:source-field-name="Sales" table:orientation="data" table:function="sum"/>
</table:data-pilot-table>
</table:data-pilot-tables>
</office:spreadsheet></office:body></office:document>
"""
)
