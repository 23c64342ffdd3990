"""Comparing tables of values: a spreadsheet range or a CSV file against expected rows.

Like OSWorld's ``compare_table``, with the options tasks need: ignore case, numeric tolerance,
ignore blank trailing rows and columns, ignore row order.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ._load import guarded_read, is_ods, open_odf, open_xlsx, require
from ._ods import ods_sheets
from .registry import register_verifier
from .result import CheckFailed, VerifierResult

Row = Sequence[object]


@dataclass(frozen=True)
class TableOptions:
    """How cells compare.

    Attributes:
        ignore_case: compare text case-insensitively.
        tolerance: absolute tolerance when both cells read as numbers.
        strip: ignore surrounding whitespace in text.
        ignore_trailing_blank_rows: drop blank rows at the end of both tables.
        ignore_row_order: compare rows as a multiset.
    """

    ignore_case: bool = False
    tolerance: float = 1e-6
    strip: bool = True
    ignore_trailing_blank_rows: bool = True
    ignore_row_order: bool = False


def _as_number(value: object) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value.strip().replace(",", "")) if value.strip() else None
        except ValueError:
            return None
    return None


def _as_text(value: object, options: TableOptions) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    text = str(value)
    if options.strip:
        text = text.strip()
    return text.casefold() if options.ignore_case else text


def cells_equal(found: object, expected: object, options: TableOptions) -> bool:
    """Whether two cell values are equal under ``options`` (numbers within the tolerance)."""
    expected_number, found_number = _as_number(expected), _as_number(found)
    if expected_number is not None and found_number is not None:
        return abs(found_number - expected_number) <= options.tolerance
    return _as_text(found, options) == _as_text(expected, options)


def _trim(rows: Sequence[Row], options: TableOptions) -> list[list[object]]:
    trimmed = []
    for row in rows:
        cells = list(row)
        while cells and _as_text(cells[-1], options) == "":
            cells.pop()
        trimmed.append(cells)
    if options.ignore_trailing_blank_rows:
        while trimmed and not trimmed[-1]:
            trimmed.pop()
    return trimmed


def _sort_key(row: list[object], options: TableOptions) -> tuple[str, ...]:
    return tuple(_as_text(cell, options) for cell in row)


def compare_rows(found: Sequence[Row], expected: Sequence[Row], options: TableOptions | None = None) -> VerifierResult:
    """Compare a table of found values with expected rows.

    Args:
        found: the rows read from the artifact.
        expected: the expected rows; trailing blank cells of a row never matter.
        options: comparison options (defaults: case-sensitive, 1e-6 tolerance).

    Returns:
        success when the tables are equal; the score is the fraction of expected cells matched;
        details name the first differing cell (1-based row/column) with expected vs found.
    """
    options = options or TableOptions()
    found_rows, expected_rows = _trim(found, options), _trim(expected, options)
    if options.ignore_row_order:
        found_rows = sorted(found_rows, key=lambda row: _sort_key(row, options))
        expected_rows = sorted(expected_rows, key=lambda row: _sort_key(row, options))
    total = sum(max(len(row), 1) for row in expected_rows) or 1
    matched = 0
    first: dict[str, Any] | None = None
    for row_index in range(max(len(found_rows), len(expected_rows))):
        want = expected_rows[row_index] if row_index < len(expected_rows) else []
        got = found_rows[row_index] if row_index < len(found_rows) else []
        for col_index in range(max(len(want), len(got))):
            want_cell = want[col_index] if col_index < len(want) else None
            got_cell = got[col_index] if col_index < len(got) else None
            if cells_equal(got_cell, want_cell, options):
                matched += col_index < len(want)
            elif first is None:
                first = {"row": row_index + 1, "column": col_index + 1, "expected": want_cell, "found": got_cell}
    size = {"expected_rows": len(expected_rows), "found_rows": len(found_rows)}
    if first is None:
        return VerifierResult.passed(f"all {len(expected_rows)} rows match", **size)
    score = min(matched / total, 0.999999)
    if len(found_rows) != len(expected_rows):
        reason = (
            f"row count differs: expected {len(expected_rows)} rows, found {len(found_rows)}; first difference at "
            f"row {first['row']} column {first['column']}: expected {first['expected']!r}, found {first['found']!r}"
        )
    else:
        reason = (
            f"cell at row {first['row']} column {first['column']} differs: "
            f"expected {first['expected']!r}, found {first['found']!r}"
        )
    return VerifierResult.failed(reason, score=score, first_difference=first, **size)


def pick_sheet(workbook: Any, sheet: str | None) -> Any:
    """The worksheet named ``sheet``, or the active one when None.

    Raises:
        CheckFailed: no sheet has that name, the name is a chart sheet (it has no cells), or no
            sheet is named and the workbook's active tab is missing or is a chart sheet.
    """
    from openpyxl.worksheet.worksheet import Worksheet

    names = list(workbook.sheetnames)
    if sheet is None:
        active = workbook.active
        if not isinstance(active, Worksheet):
            what = "is missing" if active is None else f"is the chart sheet {active.title!r}"
            raise CheckFailed(
                f"no sheet named and the workbook's active tab {what}; name a worksheet (sheets: {names})",
                sheets=names,
            )
        return active
    if sheet not in names:
        raise CheckFailed(f"sheet {sheet!r} not found; sheets: {names}", sheets=names)
    found = workbook[sheet]
    if not isinstance(found, Worksheet):
        raise CheckFailed(f"sheet {sheet!r} is a chart sheet, which has no cells; sheets: {names}", sheets=names)
    return found


def sheet_rows(data: bytes | None, sheet: str | None = None) -> tuple[str, list[list[object]]]:
    """The name and rows of values of one sheet of an xlsx or ods file (cached formula values).

    Args:
        data: the file's bytes, or None when it does not exist.
        sheet: the sheet name; the active (xlsx) or first (ods) sheet when None.

    Raises:
        DocumentError: the file is missing or unreadable.
        CheckFailed: the file has no worksheet named ``sheet`` (or, unnamed, no active worksheet).
    """
    data = require(data, "spreadsheet")
    if is_ods(data):
        sheets = guarded_read("ods", ods_sheets, open_odf(data, "ods"))
        names = list(sheets)
        name = sheet if sheet is not None else (names[0] if names else "")
        if name not in sheets:
            raise CheckFailed(f"sheet {sheet!r} not found; sheets: {names}", sheets=names)
        return name, sheets[name]
    worksheet = pick_sheet(open_xlsx(data), sheet)
    return worksheet.title, [list(row) for row in worksheet.iter_rows(values_only=True)]


def _crop(rows: list[list[object]], cell_range: str) -> list[list[object]]:
    from openpyxl.utils.cell import range_boundaries

    min_col, min_row, max_col, max_row = range_boundaries(cell_range)
    max_row = max_row or len(rows)
    cropped = []
    for row_index in range(min_row - 1, max_row):
        row = rows[row_index] if row_index < len(rows) else []
        end = max_col if max_col is not None else max(len(row), min_col - 1)
        cropped.append([row[i] if i < len(row) else None for i in range(min_col - 1, end)])
    return cropped


@register_verifier("sheet_table", reads="file")
def verify_sheet_table(
    data: bytes | None,
    expected_rows: Sequence[Row],
    sheet: str | None = None,
    cell_range: str | None = None,
    ignore_case: bool = False,
    tolerance: float = 1e-6,
    ignore_trailing_blank_rows: bool = True,
    ignore_row_order: bool = False,
) -> VerifierResult:
    """Check that a sheet (or a range of it) of an xlsx/ods file holds exactly ``expected_rows``.

    Args:
        data: the file's bytes, or None when it does not exist.
        expected_rows: the expected values, row by row (None or "" for blank cells).
        sheet: the sheet name; the active sheet when None.
        cell_range: an A1 range such as ``"A1:C10"`` or ``"A:C"``; the whole sheet when None.
        ignore_case: compare text case-insensitively.
        tolerance: absolute tolerance for numbers.
        ignore_trailing_blank_rows: blank rows after the table don't count.
        ignore_row_order: compare the rows as a multiset.
    """
    name, rows = sheet_rows(data, sheet)
    if cell_range is not None:
        rows = _crop(rows, cell_range)
    options = TableOptions(ignore_case, tolerance, True, ignore_trailing_blank_rows, ignore_row_order)
    result = compare_rows(rows, expected_rows, options)
    where = f"sheet {name!r}" + (f" range {cell_range}" if cell_range else "")
    return VerifierResult(result.success, result.score, f"{where}: {result.reason}", {"sheet": name, **result.details})


def csv_rows(data: bytes, delimiter: str | None = None) -> list[list[str]]:
    """Parse CSV bytes (UTF-8, optional BOM); the delimiter defaults to the commonest of ``,;\\t|`` in line 1.

    Raises:
        DocumentError: the bytes are not UTF-8 CSV.
    """
    from ._load import unreadable

    try:
        text = data.decode("utf-8-sig")
        if delimiter is None:
            # csv.Sniffer guesses wrong on short files; the first line's most frequent candidate is steadier.
            first_line = next((line for line in text.splitlines() if line.strip()), "")
            delimiter = max(",;\t|", key=lambda candidate: (first_line.count(candidate), candidate == ","))
        return [row for row in csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)]
    except (UnicodeDecodeError, csv.Error) as error:
        raise unreadable("csv file", error) from error


@register_verifier("csv_rows", reads="file")
def verify_csv_rows(
    data: bytes | None,
    expected_rows: Sequence[Row],
    header: Sequence[str] | None = None,
    skip_header: bool = False,
    delimiter: str | None = None,
    ignore_case: bool = False,
    tolerance: float = 1e-6,
    ignore_row_order: bool = False,
) -> VerifierResult:
    """Check that a CSV file holds ``expected_rows``, optionally below a given header.

    Args:
        data: the file's bytes, or None when it does not exist.
        expected_rows: the expected data rows (numbers compare within ``tolerance``).
        header: when given, the first row must equal it (case per ``ignore_case``) and the data
            rows follow it.
        skip_header: without ``header``, skip the first row without checking it.
        delimiter: the field delimiter; sniffed when None.
        ignore_case: compare text case-insensitively.
        tolerance: absolute tolerance for numbers.
        ignore_row_order: compare the data rows as a multiset.
    """
    rows = csv_rows(require(data, "csv file"), delimiter)
    options = TableOptions(ignore_case, tolerance, True, True, ignore_row_order)
    if header is not None:
        found_header = rows[0] if rows else []
        header_check = compare_rows([found_header], [list(header)], options)
        if not header_check.success:
            return VerifierResult.failed(
                f"the CSV header differs: expected {list(header)}, found {found_header}",
                expected_header=list(header),
                found_header=found_header,
            )
    body = rows[1:] if (header is not None or skip_header) else rows
    result = compare_rows(body, expected_rows, options)
    return VerifierResult(result.success, result.score, f"CSV data: {result.reason}", result.details)
