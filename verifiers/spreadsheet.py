"""Verifiers that read saved spreadsheets (xlsx through openpyxl)."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Mapping

from .result import VerifierResult

CellValue = float | int | str | None


def _load_workbook(data: bytes):  # -> openpyxl.Workbook
    import openpyxl

    # data_only=True reads the values LibreOffice cached for formulas, i.e. what the user sees.
    return openpyxl.load_workbook(io.BytesIO(data), data_only=True)


def _matches(found: object, expected: CellValue, tolerance: float) -> bool:
    if isinstance(expected, int | float) and not isinstance(expected, bool):
        try:
            return abs(float(found) - float(expected)) <= tolerance  # type: ignore[arg-type]
        except (TypeError, ValueError):
            return False
    if expected is None:
        return found is None or found == ""
    return str(found).strip() == str(expected).strip()


def verify_xlsx_cells(
    data: bytes | None,
    expected: Mapping[str, CellValue],
    sheet: str | None = None,
    tolerance: float = 1e-6,
) -> VerifierResult:
    """Check that cells of a saved xlsx hold the expected values.

    Args:
        data: the file's bytes, or None when the file does not exist.
        expected: cell reference ("B2") -> expected value; numbers compare within ``tolerance``.
        sheet: the sheet to read; the active sheet when None.
        tolerance: absolute tolerance for numbers.

    Returns:
        success when every cell matches; the score is the fraction of matching cells.
    """
    if data is None:
        return VerifierResult.failed("the spreadsheet file does not exist (was it saved?)")
    try:
        workbook = _load_workbook(data)
    except (zipfile.BadZipFile, OSError, KeyError, ValueError) as error:
        return VerifierResult.failed(f"the file is not a readable xlsx workbook: {error}")
    if sheet is not None and sheet not in workbook.sheetnames:
        return VerifierResult.failed(f"sheet {sheet!r} not found; sheets: {workbook.sheetnames}")
    worksheet = workbook[sheet] if sheet else workbook.active
    mismatches: dict[str, dict[str, object]] = {}
    for ref, want in expected.items():
        found = worksheet[ref].value
        if not _matches(found, want, tolerance):
            mismatches[ref] = {"expected": want, "found": found}
    matched = len(expected) - len(mismatches)
    score = matched / len(expected) if expected else 1.0
    if mismatches:
        first = next(iter(mismatches))
        return VerifierResult.failed(
            f"{len(mismatches)} of {len(expected)} cells differ; first {first}: "
            f"expected {mismatches[first]['expected']!r}, found {mismatches[first]['found']!r}",
            score=score,
            mismatches=mismatches,
        )
    return VerifierResult.passed(f"all {len(expected)} cells match", cells=len(expected))
