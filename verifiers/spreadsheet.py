"""Verifiers that read cells of saved spreadsheets: values, formulas, number formats, fonts, widths.

xlsx is read with openpyxl; cell values also read from ods (odfpy).
"""

from __future__ import annotations

import datetime
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Literal

from ._load import is_ods, open_xlsx, require
from .registry import register_verifier
from .result import VerifierResult
from .tables import TableOptions, cells_equal, pick_sheet, sheet_rows

CellValue = float | int | str | None
Match = Literal["equals", "contains"]


def expand_cells(cells: str | Iterable[str]) -> list[str]:
    """Cell references from ``"A1"``, ``"A1:C3"`` or a list of either, row by row."""
    from openpyxl.utils.cell import get_column_letter, range_boundaries

    refs: list[str] = []
    for item in [cells] if isinstance(cells, str) else cells:
        if ":" not in item:
            refs.append(item.upper())
            continue
        min_col, min_row, max_col, max_row = range_boundaries(item.upper())
        for row in range(min_row, max_row + 1):
            refs.extend(f"{get_column_letter(col)}{row}" for col in range(min_col, max_col + 1))
    return refs


def _as_datetime(text: str) -> datetime.datetime | datetime.date | datetime.time | None:
    """An ISO date (``2024-01-05``), date-time (``2024-01-05 10:30``) or time (``10:30``), else None."""
    for parse in (datetime.date.fromisoformat, datetime.datetime.fromisoformat, datetime.time.fromisoformat):
        try:
            return parse(text.strip())
        except ValueError:
            continue
    return None


def _dates_equal(found: datetime.date | datetime.time, expected: object) -> bool:
    wanted = _as_datetime(expected) if isinstance(expected, str) else expected
    if isinstance(found, datetime.datetime):
        if type(wanted) is datetime.date:  # a date alone means midnight, as a date cell holds
            return found == datetime.datetime.combine(wanted, datetime.time())
        return isinstance(wanted, datetime.datetime) and found == wanted
    if isinstance(found, datetime.date):
        return type(wanted) is datetime.date and found == wanted
    return isinstance(wanted, datetime.time) and found == wanted


def _jsonable(value: object) -> object:
    return (
        value.isoformat(sep=" ")
        if isinstance(value, datetime.datetime)
        else (value.isoformat() if isinstance(value, datetime.date | datetime.time) else value)
    )


def _matches(found: object, expected: CellValue, options: TableOptions) -> bool:
    if isinstance(found, datetime.date | datetime.time) and expected is not None:
        return _dates_equal(found, expected)
    return cells_equal(found, expected, options)


def _mismatch_result(what: str, mismatches: dict[str, dict[str, object]], total: int) -> VerifierResult:
    first = next(iter(mismatches))
    return VerifierResult.failed(
        f"{len(mismatches)} of {total} {what} differ; first {first}: "
        f"expected {mismatches[first]['expected']!r}, found {mismatches[first]['found']!r}",
        score=(total - len(mismatches)) / total if total else 0.0,
        mismatches=mismatches,
    )


def wrong_cells_result(
    what: str, mismatches: dict[str, dict[str, object]], total: int, describe: Callable[[dict[str, object]], str]
) -> VerifierResult:
    """A failure for cells with the wrong ``what`` (font, fill), the first one's mismatch worded by ``describe``."""
    first = next(iter(mismatches))
    return VerifierResult.failed(
        f"{len(mismatches)} of {total} cells have the wrong {what}; first {first}: {describe(mismatches[first])}",
        score=(total - len(mismatches)) / total if total else 0.0,
        mismatches=mismatches,
    )


def _ods_cell_values(data: bytes, refs: Iterable[str], sheet: str | None) -> dict[str, object]:
    from openpyxl.utils.cell import coordinate_to_tuple

    _, rows = sheet_rows(data, sheet)
    values: dict[str, object] = {}
    for ref in refs:
        row, col = coordinate_to_tuple(ref)
        cells = rows[row - 1] if row - 1 < len(rows) else []
        values[ref] = cells[col - 1] if col - 1 < len(cells) else None
    return values


@register_verifier("xlsx_cells", reads="file")
def verify_xlsx_cells(
    data: bytes | None,
    expected: Mapping[str, CellValue],
    sheet: str | None = None,
    tolerance: float = 1e-6,
    numeric_text: bool = False,
    strip: bool = False,
    ignore_case: bool = False,
) -> VerifierResult:
    """Check that cells of a saved xlsx (or ods) hold the expected values.

    Formula cells are compared by the value the app cached for them, i.e. what the user sees.
    A date or time cell matches an ISO string (``"2024-01-05"``, ``"2024-01-05 10:30"``,
    ``"10:30"``) or a ``datetime`` object; None or ``""`` expects a blank cell.

    Args:
        data: the file's bytes, or None when the file does not exist.
        expected: cell reference ("B2") -> expected value; numbers compare within ``tolerance``.
        sheet: the sheet to read; the active sheet when None.
        tolerance: absolute tolerance for numbers.
        numeric_text: let a text cell that reads as the expected number (``'3'``, ``'1,000'``)
            match it; off, a number stored as text does not.
        strip: ignore whitespace around text.
        ignore_case: compare text case-insensitively.

    Returns:
        success when every cell matches; the score is the fraction of matching cells.
    """
    refs = [ref.upper() for ref in expected]
    wanted = dict(zip(refs, expected.values(), strict=True))
    if is_ods(require(data, "xlsx")):
        found = _ods_cell_values(data, refs, sheet)  # type: ignore[arg-type]
    else:
        worksheet = pick_sheet(open_xlsx(data), sheet)
        found = {ref: worksheet[ref].value for ref in refs}
    options = TableOptions(ignore_case=ignore_case, tolerance=tolerance, strip=strip, numeric_text=numeric_text)
    mismatches = {
        ref: {"expected": _jsonable(want), "found": _jsonable(found[ref])}
        for ref, want in wanted.items()
        if not _matches(found[ref], want, options)
    }
    if mismatches:
        return _mismatch_result("cells", mismatches, len(expected))
    return VerifierResult.passed(f"all {len(expected)} cells match", cells=len(expected))


def _codes_match(found: str, want: str, match: Match, normalize: Callable[[str], str]) -> bool:
    """Whether a formula or format code ``equals`` (or ``contains``) the wanted one, both normalized."""
    got, needle = normalize(found), normalize(want)
    return got == needle or (match == "contains" and needle in got)


def _normalize_formula(formula: str) -> str:
    return "".join(formula.lstrip("=").split()).upper()


@register_verifier("xlsx_formulas", reads="file")
def verify_xlsx_formulas(
    data: bytes | None,
    expected: Mapping[str, str | None],
    sheet: str | None = None,
    match: Match = "equals",
) -> VerifierResult:
    """Check that cells hold formulas (not typed-in values), optionally particular ones.

    Formulas compare case-insensitively with spaces and the leading ``=`` ignored.

    Args:
        data: the file's bytes, or None when the file does not exist.
        expected: cell reference -> formula text (``"=SUM(B2:B9)"``), or None for "any formula".
        sheet: the sheet to read; the active sheet when None.
        match: ``"equals"`` the whole formula, or the formula ``"contains"`` the text (``"SUM("``).
    """
    worksheet = pick_sheet(open_xlsx(data, formulas=True), sheet)
    mismatches: dict[str, dict[str, object]] = {}
    for ref, want in expected.items():
        value = worksheet[ref.upper()].value
        text = getattr(value, "text", value)  # ArrayFormula keeps its formula in .text
        if not (isinstance(text, str) and text.startswith("=")):
            mismatches[ref] = {"expected": want or "a formula", "found": value}
            continue
        if want is None:
            continue
        if not _codes_match(text, want, match, _normalize_formula):
            mismatches[ref] = {"expected": want, "found": text}
    if mismatches:
        return _mismatch_result("formula cells", mismatches, len(expected))
    return VerifierResult.passed(f"all {len(expected)} cells hold the expected formulas")


def _normalize_format(number_format: str) -> str:
    return number_format.replace("\\", "").replace('"', "").strip()


@register_verifier("xlsx_number_formats", reads="file")
def verify_xlsx_number_formats(
    data: bytes | None,
    expected: Mapping[str, str],
    sheet: str | None = None,
    match: Match = "equals",
) -> VerifierResult:
    """Check the number format codes of cells (``"0.00"``, ``"0%"``, ``"yyyy-mm-dd"``).

    Backslash escapes and quotes are ignored, since apps write ``#,##0 "€"`` and ``#,##0\\ €`` alike.

    Args:
        data: the file's bytes, or None when the file does not exist.
        expected: cell reference -> format code.
        sheet: the sheet to read; the active sheet when None.
        match: the code ``"equals"`` the expected one, or ``"contains"`` it (``"%"``).
    """
    worksheet = pick_sheet(open_xlsx(data), sheet)
    mismatches: dict[str, dict[str, object]] = {}
    for ref, want in expected.items():
        found = worksheet[ref.upper()].number_format
        if not _codes_match(found, want, match, _normalize_format):
            mismatches[ref] = {"expected": want, "found": found}
    if mismatches:
        return _mismatch_result("number formats", mismatches, len(expected))
    return VerifierResult.passed(f"all {len(expected)} cells have the expected number format")


@register_verifier("xlsx_font", reads="file")
def verify_xlsx_font(
    data: bytes | None,
    cells: str | Iterable[str],
    sheet: str | None = None,
    bold: bool | None = None,
    italic: bool | None = None,
    underline: bool | None = None,
    name: str | None = None,
    size: float | None = None,
) -> VerifierResult:
    """Check the font of cells; properties left None are not checked.

    Args:
        data: the file's bytes, or None when the file does not exist.
        cells: a reference, a range (``"A1:D1"``) or a list of them.
        sheet: the sheet to read; the active sheet when None.
        bold: required boldness.
        italic: required italics.
        underline: required underlining (any underline style counts).
        name: required font family, case-insensitive.
        size: required size in points (within 0.01).
    """
    worksheet = pick_sheet(open_xlsx(data), sheet)
    refs = expand_cells(cells)
    mismatches: dict[str, dict[str, object]] = {}
    for ref in refs:
        font = worksheet[ref].font
        facts = {
            "bold": bool(font.b),
            "italic": bool(font.i),
            "underline": font.u not in (None, "none"),
            "name": font.name,
            "size": float(font.sz) if font.sz is not None else None,
        }
        wanted = {"bold": bold, "italic": italic, "underline": underline, "name": name, "size": size}
        for key, want in wanted.items():
            if want is None:
                continue
            got = facts[key]
            same = (
                (got is not None and abs(got - want) <= 0.01)  # type: ignore[operator]
                if key == "size"
                else (str(got).casefold() == str(want).casefold() if key == "name" else got == want)
            )
            if not same:
                mismatches[ref] = {"property": key, "expected": want, "found": got}
                break
    if mismatches:
        return wrong_cells_result(
            "font",
            mismatches,
            len(refs),
            lambda miss: f"{miss['property']} expected {miss['expected']!r}, found {miss['found']!r}",
        )
    return VerifierResult.passed(f"all {len(refs)} cells have the expected font")


def column_width(worksheet: Any, letter: str) -> float:
    """The width of column ``letter`` in characters, resolving grouped ``<col min max>`` entries."""
    from openpyxl.utils.cell import column_index_from_string

    index = column_index_from_string(letter)
    for dimension in worksheet.column_dimensions.values():
        if dimension.min is not None and dimension.max is not None and dimension.min <= index <= dimension.max:
            if dimension.width:
                return float(dimension.width)
    default = worksheet.sheet_format.defaultColWidth
    return float(default) if default else 8.43


@register_verifier("xlsx_column_widths", reads="file")
def verify_xlsx_column_widths(
    data: bytes | None,
    expected: Mapping[str, float],
    sheet: str | None = None,
    tolerance: float = 0.5,
    at_least: bool = False,
) -> VerifierResult:
    """Check column widths (in Excel character units).

    Args:
        data: the file's bytes, or None when the file does not exist.
        expected: column letter -> width.
        sheet: the sheet to read; the active sheet when None.
        tolerance: absolute tolerance (apps round widths to pixels).
        at_least: only require each width to be at least the expected one (minus the tolerance).
    """
    worksheet = pick_sheet(open_xlsx(data), sheet)
    mismatches: dict[str, dict[str, object]] = {}
    for letter, want in expected.items():
        found = round(column_width(worksheet, letter.upper()), 3)
        ok = found >= want - tolerance if at_least else abs(found - want) <= tolerance
        if not ok:
            mismatches[letter] = {"expected": f">= {want}" if at_least else want, "found": found}
    if mismatches:
        return _mismatch_result("column widths", mismatches, len(expected))
    return VerifierResult.passed(f"all {len(expected)} columns have the expected width")
