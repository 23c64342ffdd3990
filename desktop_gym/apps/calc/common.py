"""What every part of ``CalcTools`` shares: the document, A1 addresses, sheets, colours.

Tool methods run inside ``UnoConnection.call`` (a worker thread under a deadline), so the helpers
here make plain UNO calls. ``uno`` is imported lazily: the tool classes are also imported where
LibreOffice is absent (the host builds prompts and schemas from them).
"""

from __future__ import annotations

import re
from typing import Any

from desktop_gym.guest.apps.tool_schema import ApiArgumentError
from desktop_gym.guest.apps.uno_document_cache import KEPT_DOCUMENTS

from ..tools_base import AppTools

_ADDRESS = re.compile(
    r"^(?:(?P<sheet>'[^']+'|[^!.':]+)[!.])?\$?(?P<c1>[A-Za-z]{1,3})\$?(?P<r1>[0-9]+)"
    r"(?::\$?(?P<c2>[A-Za-z]{1,3})\$?(?P<r2>[0-9]+))?$"
)
_COLUMN = re.compile(r"^[A-Za-z]{1,3}$")
MAX_COLUMNS = 16384
MAX_ROWS = 1048576


def column_index(letters: str, arg: str = "column") -> int:
    """``"A"`` -> 0, ``"AB"`` -> 27.

    Raises:
        ApiArgumentError: not column letters within the sheet; names ``arg``.
    """
    if not isinstance(letters, str) or not _COLUMN.match(letters):
        raise ApiArgumentError(f"{arg} must be column letters such as 'B' or 'AA', got {letters!r}")
    index = 0
    for char in letters.upper():
        index = index * 26 + ord(char) - ord("A") + 1
    if index > MAX_COLUMNS:
        raise ApiArgumentError(f"{arg} {letters!r} is beyond the last column (XFD)")
    return index - 1


def column_letters(index: int) -> str:
    """0 -> ``"A"``, 27 -> ``"AB"``."""
    letters = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        letters = chr(ord("A") + rest) + letters
    return letters


def a1(column: int, row: int) -> str:
    """Zero-based (column, row) -> ``"B3"``."""
    return f"{column_letters(column)}{row + 1}"


def range_name(address: Any) -> str:
    """A ``CellRangeAddress`` -> ``"A1:C4"`` (``"A1"`` for one cell)."""
    start = a1(address.StartColumn, address.StartRow)
    end = a1(address.EndColumn, address.EndRow)
    return start if start == end else f"{start}:{end}"


def row_index(row: int, arg: str = "row") -> int:
    """A 1-based row number -> zero-based index.

    Raises:
        ApiArgumentError: out of the sheet; names ``arg``.
    """
    if not 1 <= row <= MAX_ROWS:
        raise ApiArgumentError(f"{arg} must be a row number from 1 to {MAX_ROWS}, got {row}")
    return row - 1


class CalcBase(AppTools):
    """The live spreadsheet document a tool call acts on.

    Args:
        document: The ``com.sun.star.sheet.SpreadsheetDocument`` (model) shown in the Calc window.
        home: The session home, for paths starting with ``~/`` (default: ``$HOME``).
    """

    document_check = ("getSheets", "a spreadsheet (open one in Calc)")

    @property
    def _controller(self) -> Any:
        # Kept with the document between calls while the focus stays: one UNO round trip fewer.
        return KEPT_DOCUMENTS.controller(self.document)

    def _sheet(self, name: str | None = None, arg: str = "sheet") -> Any:
        """The sheet called ``name``, or the active one when ``name`` is ``None``.

        Raises:
            ApiArgumentError: no such sheet; lists the sheets.
        """
        if name is None:
            controller = self._controller
            if controller is not None:
                return controller.getActiveSheet()
            return self.document.getSheets().getByIndex(0)
        sheets = self.document.getSheets()
        if not sheets.hasByName(name):
            names = ", ".join(repr(n) for n in sheets.getElementNames())
            raise ApiArgumentError(f"{arg}: no sheet named {name!r} (sheets: {names})")
        return sheets.getByName(name)

    def _range(self, ref: str, arg: str = "range") -> Any:
        """The cell range for ``"A1:C3"``, ``"B2"``, ``"Sheet2!A1:B2"`` or ``"Sheet2.A1"``.

        Raises:
            ApiArgumentError: not an A1 reference, or an unknown sheet; names ``arg``.
        """
        match = self._match(ref, arg)
        sheet_name = match.group("sheet")
        if sheet_name is not None:
            sheet_name = sheet_name.strip("'")
        sheet = self._sheet(sheet_name, arg)
        bounds = self._bounds(match, arg)
        return sheet.getCellRangeByPosition(*bounds)

    @staticmethod
    def _bounds(match: re.Match[str], arg: str) -> tuple[int, int, int, int]:
        first = (column_index(match.group("c1"), arg), row_index(int(match.group("r1")), arg))
        last = first
        if match.group("c2") is not None:
            last = (column_index(match.group("c2"), arg), row_index(int(match.group("r2")), arg))
        # "C3:A1" means the same block as "A1:C3"
        return min(first[0], last[0]), min(first[1], last[1]), max(first[0], last[0]), max(first[1], last[1])

    def _match(self, ref: str, arg: str) -> re.Match[str]:
        match = _ADDRESS.match(ref.strip()) if isinstance(ref, str) else None
        if match is None:
            raise ApiArgumentError(f"{arg} must be an A1 reference like 'B2', 'A1:C10' or 'Sheet2!A1:B3', got {ref!r}")
        return match

    def _cell(self, ref: str, arg: str = "cell") -> Any:
        """The single cell at ``ref`` (a range's top-left cell is not accepted silently).

        Raises:
            ApiArgumentError: not a single-cell A1 reference; names ``arg``.
        """
        match = self._match(ref, arg)
        column, row, last_column, last_row = self._bounds(match, arg)
        if (column, row) != (last_column, last_row):
            raise ApiArgumentError(f"{arg} must be one cell like 'B2', got the range {ref!r}")
        sheet_name = match.group("sheet")
        # One UNO round trip for the cell (latency matters: set_cell_value is the hottest call).
        return self._sheet(sheet_name.strip("'") if sheet_name else None, arg).getCellByPosition(column, row)

    def _used_address(self, sheet: Any) -> Any:
        """The ``CellRangeAddress`` of ``sheet``'s used area (``A1`` alone when empty)."""
        cursor = sheet.createCursor()
        cursor.gotoStartOfUsedArea(False)
        cursor.gotoEndOfUsedArea(True)
        return cursor.getRangeAddress()
