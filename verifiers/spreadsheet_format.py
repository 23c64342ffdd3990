"""Verifiers for cell formatting the spreadsheet modules do not read: fill colours, merged cells, and
conditional-format rules down to their value and colour."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from ._load import open_xlsx
from .registry import register_verifier
from .result import VerifierResult
from .spreadsheet import expand_cells, pick_sheet, wrong_cells_result
from .spreadsheet_structure import _boundaries


def _rgb(color: object) -> str | None:
    """``"#ffff00"``, ``"FFFF00"`` or an ARGB ``"FFFFFF00"`` -> ``"FFFF00"``; None for theme/indexed colours."""
    if not isinstance(color, str):
        return None
    text = color.strip().lstrip("#").upper()
    if len(text) == 8:
        text = text[2:]
    return text if len(text) == 6 and all(c in "0123456789ABCDEF" for c in text) else None


@register_verifier("xlsx_fill", reads="file")
def verify_xlsx_fill(
    data: bytes | None,
    cells: str | Iterable[str],
    color: str | None,
    sheet: str | None = None,
) -> VerifierResult:
    """Check the background (solid fill) colour of cells.

    Args:
        data: the file's bytes, or None when the file does not exist.
        cells: a reference, a range (``"A1:D1"``) or a list of them.
        color: the expected RGB colour (``"#FFFF00"``), or None for "no fill".
        sheet: the sheet to read; the active sheet when None.

    Returns:
        success when every cell has that fill; the score is the fraction that do.
    """
    wanted = None if color is None else _rgb(color)
    if color is not None and wanted is None:
        raise ValueError(f"color must be an RGB hex colour like '#FFFF00', got {color!r}")
    worksheet = pick_sheet(open_xlsx(data), sheet)
    refs = expand_cells(cells)
    mismatches: dict[str, dict[str, object]] = {}
    for ref in refs:
        fill = worksheet[ref].fill
        solid = fill is not None and fill.fill_type == "solid"
        found = _rgb(getattr(fill.fgColor, "rgb", None)) if solid else None
        if found != wanted:
            mismatches[ref] = {"expected": color, "found": f"#{found}" if found else None}
    if mismatches:
        return wrong_cells_result(
            "fill", mismatches, len(refs), lambda miss: f"expected {color!r}, found {miss['found']!r}"
        )
    return VerifierResult.passed(f"all {len(refs)} cells have fill {color!r}")


@register_verifier("xlsx_merged_cells", reads="file")
def verify_xlsx_merged_cells(data: bytes | None, cell_range: str, sheet: str | None = None) -> VerifierResult:
    """Check that exactly ``cell_range`` (``"A1:E1"``) is one merged cell.

    Args:
        data: the file's bytes, or None when the file does not exist.
        cell_range: the merged block expected.
        sheet: the sheet to read; the active sheet when None.
    """
    worksheet = pick_sheet(open_xlsx(data), sheet)
    found = [str(merged) for merged in worksheet.merged_cells.ranges]
    if any(_boundaries(merged) == _boundaries(cell_range) for merged in found):
        return VerifierResult.passed(f"{cell_range} is merged", found=found)
    if not found:
        return VerifierResult.failed(f"sheet {worksheet.title!r} has no merged cells", found=found)
    return VerifierResult.failed(f"{cell_range} is not merged; merged ranges: {found}", found=found)


def _dxf_colors(rule: object) -> set[str]:
    fill = getattr(getattr(rule, "dxf", None), "fill", None)
    if fill is None:
        return set()
    # Excel keeps a differential solid fill's colour in bgColor, other writers in fgColor.
    found = {_rgb(getattr(getattr(fill, side, None), "rgb", None)) for side in ("bgColor", "fgColor")}
    return {color for color in found if color not in (None, "000000")}


_EXPRESSION_OPERATORS = {
    ">": "greaterThan",
    "<": "lessThan",
    ">=": "greaterThanOrEqual",
    "<=": "lessThanOrEqual",
    "=": "equal",
    "<>": "notEqual",
}
_EXPRESSION = re.compile(r"\$?([A-Z]{1,3})\$?([0-9]+)\s*(>=|<=|<>|>|<|=)\s*(-?[0-9]+(?:\.[0-9]+)?)")


def _rule_comparison(rule: Any, ranges: list[str]) -> tuple[str | None, float | None]:
    """A rule's "cell <operator> <number>" meaning: a ``cellIs`` rule, or the equivalent formula rule.

    A formula rule ``=B2>50`` on ``B2:B9`` means the same as ``cellIs greaterThan 50`` when its cell
    reference is the top-left cell of the rule's range (formulas are relative to that cell).
    """
    formulas = [str(formula) for formula in (rule.formula or [])]
    if len(formulas) != 1:
        return None, None
    if rule.type == "cellIs":
        try:
            return str(rule.operator), float(formulas[0])
        except ValueError:
            return str(rule.operator), None
    match = _EXPRESSION.fullmatch(formulas[0].lstrip("=").replace(" ", "").upper())
    if rule.type != "expression" or match is None or not ranges:
        return None, None
    column, row, symbol, number = match.groups()
    min_col, min_row, _, _ = _boundaries(ranges[0])
    from openpyxl.utils.cell import column_index_from_string

    if (column_index_from_string(column), int(row)) != (min_col, min_row):
        return None, None
    return _EXPRESSION_OPERATORS[symbol], float(number)


@register_verifier("xlsx_conditional_rule", reads="file")
def verify_xlsx_conditional_rule(
    data: bytes | None,
    cell_range: str,
    operator: str,
    value: float,
    color: str | None = None,
    sheet: str | None = None,
    tolerance: float = 1e-9,
) -> VerifierResult:
    """Check for a "cell value <operator> <value>" conditional format on a range, optionally with a fill.

    An equivalent formula rule (``=C2>50`` on ``C2:C20``) counts as the cell-value rule.

    Args:
        data: the file's bytes, or None when the file does not exist.
        cell_range: the cells the rule must cover (``"C2:C20"``).
        operator: the OOXML ``cellIs`` operator: ``"greaterThan"``, ``"lessThan"``, ``"equal"``, ...
        value: the number the cells are compared with.
        color: the background colour the rule applies (``"#FF0000"``); not checked when None.
        sheet: the sheet to read; the active sheet when None.
        tolerance: absolute tolerance for ``value``.
    """
    from .spreadsheet_structure import range_covers

    wanted_color = None if color is None else _rgb(color)
    if color is not None and wanted_color is None:
        raise ValueError(f"color must be an RGB hex colour like '#FF0000', got {color!r}")
    worksheet = pick_sheet(open_xlsx(data), sheet)
    found: list[dict[str, object]] = []
    for formatting in worksheet.conditional_formatting:
        ranges = [str(r) for r in formatting.sqref.ranges]
        for rule in formatting.rules:
            facts = {
                "ranges": ranges,
                "type": rule.type,
                "operator": rule.operator,
                "formula": list(rule.formula or []),
            }
            facts["colors"] = sorted(_dxf_colors(rule))
            found.append(facts)
            rule_operator, number = _rule_comparison(rule, ranges)
            if (
                rule_operator is not None
                and rule_operator.casefold() == operator.casefold()
                and number is not None
                and abs(number - value) <= tolerance
                and any(range_covers(r, cell_range) for r in ranges)
                and (wanted_color is None or wanted_color in facts["colors"])  # type: ignore[operator]
            ):
                return VerifierResult.passed(f"{cell_range} has the rule cell {operator} {value}", found=found)
    summary = "; ".join(
        f"{f['type']} {f['operator']} {f['formula']} on {f['ranges']} fill {f['colors']}" for f in found
    )
    return VerifierResult.failed(
        f"no rule 'cell {operator} {value}'{f' with fill {color}' if color else ''} covers {cell_range}; "
        f"found: {summary or 'no conditional formatting'}",
        found=found,
    )
