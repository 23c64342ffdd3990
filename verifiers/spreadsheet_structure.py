"""Verifiers that read the structure of saved xlsx workbooks: sheets, sort order, filters, panes,
conditional formatting."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from ._load import open_xlsx
from .registry import register_verifier
from .result import VerifierResult
from .spreadsheet import pick_sheet


@register_verifier("xlsx_sheet_names", reads="file")
def verify_xlsx_sheet_names(
    data: bytes | None,
    expected: Sequence[str],
    match: Literal["exact", "contains"] = "exact",
    ignore_case: bool = False,
) -> VerifierResult:
    """Check the workbook's sheet names.

    Args:
        data: the file's bytes, or None when the file does not exist.
        expected: sheet names.
        match: ``"exact"``: the sheets are exactly these, in this order; ``"contains"``: each of
            these exists (others may too).
        ignore_case: compare names case-insensitively.
    """
    found = list(open_xlsx(data).sheetnames)

    def fold(names: Sequence[str]) -> list[str]:
        return [name.casefold() for name in names] if ignore_case else list(names)

    if match == "exact":
        if fold(found) == fold(expected):
            return VerifierResult.passed(f"the sheets are {found}")
        return VerifierResult.failed(
            f"sheet names differ: expected {list(expected)}, found {found}", expected=list(expected), found=found
        )
    missing = [name for name, folded in zip(expected, fold(expected), strict=True) if folded not in fold(found)]
    if missing:
        return VerifierResult.failed(
            f"missing sheets {missing}; found {found}",
            score=1 - len(missing) / len(expected),
            missing=missing,
            found=found,
        )
    return VerifierResult.passed(f"all {len(expected)} sheets exist", found=found)


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _sort_key(value: object, mode: Literal["numbers", "text", "mixed"], ignore_case: bool) -> tuple[int, Any]:
    """The key LibreOffice sorts ``value`` by: numbers before text in ascending order, ``mode`` permitting."""
    if mode != "text" and _is_number(value):
        return (0, float(value))  # type: ignore[arg-type]
    text = value.isoformat() if hasattr(value, "isoformat") else str(value)  # type: ignore[union-attr]
    return (1, text.casefold() if ignore_case else text)


@register_verifier("xlsx_sorted", reads="file")
def verify_xlsx_sorted(
    data: bytes | None,
    column: str,
    sheet: str | None = None,
    start_row: int = 2,
    end_row: int | None = None,
    descending: bool = False,
    numeric: bool | None = None,
    ignore_case: bool = True,
) -> VerifierResult:
    """Check that a column's values are sorted (pair with ``sheet_table`` to check rows stayed intact).

    The order is LibreOffice's: in ascending order numbers come before text, descending is the exact
    reverse, and blank cells belong after every value in both orders.

    Args:
        data: the file's bytes, or None when the file does not exist.
        column: the key column letter (``"C"``).
        sheet: the sheet to read; the active sheet when None.
        start_row: first data row (2 skips a header row).
        end_row: last row; the last non-blank cell of the column when None.
        descending: require descending order.
        numeric: True: every value must be a number; False: compare every value as text (numbers
            by their digits); None: numbers by value, text alphabetically, numbers first.
        ignore_case: text comparison ignores case (as LibreOffice's sort does by default).
    """
    worksheet = pick_sheet(open_xlsx(data), sheet)
    last = end_row if end_row is not None else worksheet.max_row
    cells = [(row, worksheet[f"{column.upper()}{row}"].value) for row in range(start_row, last + 1)]
    if end_row is None:
        while cells and cells[-1][1] in (None, ""):
            cells.pop()
    if len(cells) < 2:
        return VerifierResult.failed(
            f"column {column} has {len(cells)} values from row {start_row}; nothing to be sorted", values=len(cells)
        )
    if numeric:
        row, value = next(((row, v) for row, v in cells if not _is_number(v)), (None, None))
        if row is not None:
            return VerifierResult.failed(f"{column}{row} is {value!r}, not a number", cell=f"{column}{row}")
    order = "descending" if descending else "ascending"
    blank = next((row for row, v in cells if v in (None, "")), None)
    if blank is not None:
        return VerifierResult.failed(
            f"column {column} is not sorted {order}: {column}{blank} is blank but values follow it "
            "(a sort puts blank cells last)",
            first_unsorted_row=blank,
            order=order,
        )
    mode: Literal["numbers", "text", "mixed"] = "numbers" if numeric else ("text" if numeric is False else "mixed")
    keys = [(row, value, _sort_key(value, mode, ignore_case)) for row, value in cells]
    for (row_a, a, key_a), (row_b, b, key_b) in zip(keys, keys[1:], strict=False):
        if (key_a < key_b) if descending else (key_a > key_b):
            return VerifierResult.failed(
                f"column {column} is not sorted {order}: {column}{row_a} = {a!r} comes before {column}{row_b} = {b!r}",
                first_unsorted_row=row_b,
                order=order,
            )
    return VerifierResult.passed(
        f"column {column} rows {start_row}-{cells[-1][0]} are sorted {order}", rows=len(cells), order=order
    )


def _boundaries(cell_range: str) -> tuple[int, int, int, int]:
    from openpyxl.utils.cell import range_boundaries

    min_col, min_row, max_col, max_row = range_boundaries(cell_range.replace("$", "").upper())
    return min_col, min_row, max_col or min_col, max_row or min_row


def range_covers(outer: str, inner: str) -> bool:
    """Whether the A1 range ``outer`` contains every cell of ``inner``."""
    o_min_col, o_min_row, o_max_col, o_max_row = _boundaries(outer)
    i_min_col, i_min_row, i_max_col, i_max_row = _boundaries(inner)
    return o_min_col <= i_min_col and o_min_row <= i_min_row and o_max_col >= i_max_col and o_max_row >= i_max_row


@register_verifier("xlsx_autofilter", reads="file")
def verify_xlsx_autofilter(
    data: bytes | None,
    cell_range: str | None = None,
    sheet: str | None = None,
    match: Literal["exact", "covers"] = "covers",
) -> VerifierResult:
    """Check that a sheet has an autofilter (filter drop-downs), optionally on a range.

    Args:
        data: the file's bytes, or None when the file does not exist.
        cell_range: the range the filter should be on (``"A1:D20"``); any range when None.
        sheet: the sheet to read; the active sheet when None.
        match: the filter's range must be ``"exact"``-ly ``cell_range`` or ``"covers"`` it.
    """
    worksheet = pick_sheet(open_xlsx(data), sheet)
    found = worksheet.auto_filter.ref
    if not found:
        return VerifierResult.failed(f"sheet {worksheet.title!r} has no autofilter", found=None)
    if cell_range is not None:
        ok = _boundaries(found) == _boundaries(cell_range) if match == "exact" else range_covers(found, cell_range)
        if not ok:
            return VerifierResult.failed(
                f"the autofilter is on {found}, expected {'exactly ' if match == 'exact' else 'covering '}{cell_range}",
                expected=cell_range,
                found=found,
            )
    return VerifierResult.passed(f"sheet {worksheet.title!r} has an autofilter on {found}", found=found)


@register_verifier("xlsx_freeze_panes", reads="file")
def verify_xlsx_freeze_panes(data: bytes | None, cell: str | None = None, sheet: str | None = None) -> VerifierResult:
    """Check that panes are frozen at ``cell`` (``"B2"`` freezes row 1 and column A).

    Args:
        data: the file's bytes, or None when the file does not exist.
        cell: the top-left cell of the scrolling pane; any frozen panes when None.
        sheet: the sheet to read; the active sheet when None.
    """
    worksheet = pick_sheet(open_xlsx(data), sheet)
    pane = worksheet.sheet_view.pane
    found = pane.topLeftCell if pane is not None else None
    if not found:
        return VerifierResult.failed(f"sheet {worksheet.title!r} has no frozen panes", expected=cell, found=None)
    if pane.state not in ("frozen", "frozenSplit"):
        # Split panes scroll independently and are not frozen; Window > Freeze writes state "frozen".
        return VerifierResult.failed(
            f"sheet {worksheet.title!r} has split panes at {found}, not frozen ones", expected=cell, state=pane.state
        )
    if cell is not None and found.upper() != cell.replace("$", "").upper():
        return VerifierResult.failed(f"panes are frozen at {found}, expected {cell}", expected=cell, found=found)
    return VerifierResult.passed(f"panes are frozen at {found}", found=found)


@register_verifier("xlsx_conditional_formatting", reads="file")
def verify_xlsx_conditional_formatting(
    data: bytes | None,
    cell_range: str | None = None,
    sheet: str | None = None,
    rule_type: str | None = None,
    operator: str | None = None,
) -> VerifierResult:
    """Check that conditional formatting applies to a range, optionally with a rule of some kind.

    Args:
        data: the file's bytes, or None when the file does not exist.
        cell_range: cells the formatting must cover (``"C2:C20"``); any range when None.
        sheet: the sheet to read; the active sheet when None.
        rule_type: OOXML rule type: ``"cellIs"``, ``"expression"``, ``"colorScale"``, ``"dataBar"``,
            ``"iconSet"``, ``"top10"``, ``"containsText"``, ... (case-insensitive).
        operator: for ``cellIs`` rules: ``"greaterThan"``, ``"lessThan"``, ``"between"``, ...
    """
    worksheet = pick_sheet(open_xlsx(data), sheet)
    found: list[dict[str, object]] = []
    for formatting in worksheet.conditional_formatting:
        ranges = [str(r) for r in formatting.sqref.ranges]
        for rule in formatting.rules:
            found.append({"ranges": ranges, "type": rule.type, "operator": rule.operator})
    if not found:
        return VerifierResult.failed(f"sheet {worksheet.title!r} has no conditional formatting", found=[])

    def fits(entry: dict[str, Any]) -> bool:
        if cell_range is not None and not any(range_covers(r, cell_range) for r in entry["ranges"]):
            return False
        if rule_type is not None and str(entry["type"]).casefold() != rule_type.casefold():
            return False
        return operator is None or str(entry["operator"]).casefold() == operator.casefold()

    matching = [entry for entry in found if fits(entry)]
    if not matching:
        wanted = ", ".join(
            part
            for part in (
                f"covering {cell_range}" if cell_range else "",
                f"of type {rule_type}" if rule_type else "",
                f"with operator {operator}" if operator else "",
            )
            if part
        )
        summary = "; ".join(f"{e['type']} on {','.join(e['ranges'])}" for e in found)  # type: ignore[arg-type]
        return VerifierResult.failed(f"no conditional formatting rule {wanted}; found: {summary}", found=found)
    return VerifierResult.passed(
        f"conditional formatting found: {matching[0]['type']} on {matching[0]['ranges']}", found=found
    )
