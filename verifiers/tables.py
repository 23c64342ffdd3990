"""Comparing tables of values: a spreadsheet range or a CSV file against expected rows.

Like OSWorld's ``compare_table``, strict by default, with the leniencies tasks may need as explicit
options (``TableOptions``): ignore case, numeric tolerance, strip whitespace, numbers written as
text, ignore blank trailing rows, ignore row order below a header.
"""

from __future__ import annotations

import csv
import io
import re
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
    """How cells compare. Every leniency is off by default, since a task can be about that very thing.

    Attributes:
        ignore_case: compare text case-insensitively.
        tolerance: absolute tolerance when both cells are numbers.
        strip: ignore whitespace around text (off: a task may be about cleaning it up).
        numeric_text: let text that reads as a number (``'3'``, ``'1,000'``, ``'3.0'``) equal that
            number; off: in a spreadsheet a number stored as text is not the number, and in a
            text-only source (CSV, a document table) a number must be written plainly
            (``-12.5``: no thousands separators, and no ``.0`` for a whole number).
        ignore_trailing_blank_rows: drop blank rows at the end of both tables.
        ignore_row_order: compare rows as a multiset (below the ``header_rows``).
        header_rows: with ``ignore_row_order``, how many top rows must stay in place (1: a sort that
            swept the header into the data fails); set 0 for a table without a header.
        cells_are_text: set by verifiers whose source has only text (CSV, document tables).
    """

    ignore_case: bool = False
    tolerance: float = 1e-6
    strip: bool = False
    numeric_text: bool = False
    ignore_trailing_blank_rows: bool = True
    ignore_row_order: bool = False
    header_rows: int = 1
    cells_are_text: bool = False


_PLAIN_NUMERAL = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?")


def _number(value: object) -> float | None:
    """A real number cell's value; None for text, booleans, blanks and everything else."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def _text_number(text: str, expected: float, options: TableOptions) -> float | None:
    """The number a text cell stands for under ``options`` when compared with ``expected``, or None."""
    if options.strip:
        text = text.strip()
    if options.numeric_text:
        try:
            return float(text.replace(",", "")) if text.strip() else None
        except ValueError:
            return None
    if not options.cells_are_text or not _PLAIN_NUMERAL.fullmatch(text):
        return None
    if float(expected).is_integer() and "." in text:
        return None
    return float(text)


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
    """Whether a found cell equals an expected one under ``options``.

    An expected number matches a found number within the tolerance; a found text only as
    ``options.numeric_text`` and ``options.cells_are_text`` allow. Everything else compares as text
    (None and "" are both a blank cell).
    """
    expected_number = _number(expected)
    if expected_number is not None:
        found_number = _number(found)
        if found_number is None and isinstance(found, str):
            found_number = _text_number(found, expected_number, options)
        return found_number is not None and abs(found_number - expected_number) <= options.tolerance
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
        options: comparison options (defaults: strict; see ``TableOptions``).

    Returns:
        success when the tables are equal; the score is the fraction of expected cells matched;
        details name the first differing cell (1-based row/column) with expected vs found.
    """
    options = options or TableOptions()
    found_rows, expected_rows = _trim(found, options), _trim(expected, options)
    if options.ignore_row_order:
        keep = max(options.header_rows, 0)
        found_rows = found_rows[:keep] + sorted(found_rows[keep:], key=lambda row: _sort_key(row, options))
        expected_rows = expected_rows[:keep] + sorted(expected_rows[keep:], key=lambda row: _sort_key(row, options))
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
    header_rows: int = 1,
    strip: bool = False,
    numeric_text: bool = False,
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
        ignore_row_order: compare the rows below ``header_rows`` as a multiset.
        header_rows: with ``ignore_row_order``, the top rows that must stay in place.
        strip: ignore whitespace around text.
        numeric_text: let text cells that read as numbers (``'3'``, ``'1,000'``) equal them.
    """
    name, rows = sheet_rows(data, sheet)
    if cell_range is not None:
        rows = _crop(rows, cell_range)
    options = TableOptions(
        ignore_case=ignore_case,
        tolerance=tolerance,
        strip=strip,
        numeric_text=numeric_text,
        ignore_trailing_blank_rows=ignore_trailing_blank_rows,
        ignore_row_order=ignore_row_order,
        header_rows=header_rows,
    )
    result = compare_rows(rows, expected_rows, options)
    where = f"sheet {name!r}" + (f" range {cell_range}" if cell_range else "")
    return VerifierResult(result.success, result.score, f"{where}: {result.reason}", {"sheet": name, **result.details})


def csv_rows(data: bytes, delimiter: str | None = ",") -> list[list[str]]:
    """Parse CSV bytes (UTF-8, optional BOM); ``delimiter=None`` guesses the commonest of ``,;\\t|`` in line 1.

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
    delimiter: str | None = ",",
    ignore_case: bool = False,
    tolerance: float = 1e-6,
    ignore_row_order: bool = False,
    strip: bool = False,
    numeric_text: bool = False,
) -> VerifierResult:
    """Check that a CSV file holds ``expected_rows``, optionally below a given header.

    Args:
        data: the file's bytes, or None when it does not exist.
        expected_rows: the expected data rows (numbers compare within ``tolerance``).
        header: when given, the first row must equal it (case per ``ignore_case``) and the data
            rows follow it.
        skip_header: without ``header``, skip the first row without checking it.
        delimiter: the field delimiter (a comma, strictly); None guesses it from the first line,
            for tasks that leave the delimiter to the agent.
        ignore_case: compare text case-insensitively.
        tolerance: absolute tolerance for numbers.
        ignore_row_order: compare the data rows as a multiset.
        strip: ignore whitespace around fields.
        numeric_text: let any text that reads as a number equal it (``'1,000'``, ``'3.0'``); off, an
            expected number must be written plainly (``3``, ``-12.5``).
    """
    rows = csv_rows(require(data, "csv"), delimiter)
    options = TableOptions(
        ignore_case=ignore_case,
        tolerance=tolerance,
        strip=strip,
        numeric_text=numeric_text,
        ignore_row_order=ignore_row_order,
        header_rows=0,
        cells_are_text=True,
    )
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
