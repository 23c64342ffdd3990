"""CalcTools, part 1: cell contents, rows and columns, sorting, filtering, find & replace."""

from __future__ import annotations

from typing import Any

from desktop_gym.guest.apps.tool_schema import ApiArgumentError

from ..values import plain_number
from .common import CalcBase, column_index, range_name, row_index

CellValue = str | float | None
"""A cell's content: text, a number, or ``None`` for an empty cell."""

_FORMULA_VALUE = 1  # com.sun.star.sheet.FormulaResult.VALUE
_FORMULA_ERROR = 4  # com.sun.star.sheet.FormulaResult.ERROR


def _cell_value(cell: Any) -> str | int | float | None:
    kind = cell.getType().value
    if kind == "EMPTY":
        return None
    if kind == "VALUE":
        return plain_number(cell.getValue())
    if kind == "FORMULA":
        result_type = cell.FormulaResultType2
        if result_type == _FORMULA_VALUE:
            return plain_number(cell.getValue())
        if result_type == _FORMULA_ERROR:
            return cell.getString() or "#ERR"
    return cell.getString()


def uno_formula(formula: str) -> str:
    """Excel-style argument commas -> the ``;`` UNO's ``setFormula`` expects.

    Commas inside string literals and inline arrays (``{1,2;3,4}``) are left alone, so
    ``=IF(A1>0,"yes, ok","no")`` becomes ``=IF(A1>0;"yes, ok";"no")``.
    """
    out, in_string, braces = [], False, 0
    for char in formula:
        if char == '"':
            in_string = not in_string
        elif not in_string and char == "{":
            braces += 1
        elif not in_string and char == "}":
            braces = max(0, braces - 1)
        elif char == "," and not in_string and braces == 0:
            char = ";"
        out.append(char)
    return "".join(out)


def _write(cell: Any, value: CellValue) -> None:
    if value is None:
        cell.setString("")
    elif isinstance(value, str) and value.startswith("="):
        cell.setFormula(uno_formula(value))
    elif isinstance(value, str):
        cell.setString(value)
    else:
        cell.setValue(value)


class CalcCellTools(CalcBase):
    """Cell contents, rows, columns, sort, filter, find & replace (mixed into ``CalcTools``)."""

    def get_cell_value(self, cell: str) -> str | float | None:
        """Read the value shown in one cell (a formula's result, not the formula).

        Args:
            cell: The cell, e.g. "B2" or "Sheet2!B2" (default: the active sheet).

        Returns:
            The number or text in the cell, or None if it is empty.
        """
        return _cell_value(self._cell(cell))

    def set_cell_value(self, cell: str, value: str | float | None) -> str:
        """Write a number or text into one cell; text starting with "=" is entered as a formula.

        Args:
            cell: The cell, e.g. "B2" or "Sheet2!B2".
            value: A number, text, or None to clear the cell.

        Returns:
            A confirmation naming the cell.
        """
        _write(self._cell(cell), value)
        return f"set {cell} to {value!r}"

    def get_cell_formula(self, cell: str) -> str:
        """Read the formula of one cell (its plain content if it holds no formula).

        Args:
            cell: The cell, e.g. "C5".

        Returns:
            The formula in English syntax, e.g. "=SUM(A1:A4)".
        """
        return self._cell(cell).getFormula()

    def set_cell_formula(self, cell: str, formula: str) -> str:
        """Enter a formula into one cell, e.g. "=IF(A1>0, A1, 0)" (English names; "," or ";" between arguments).

        Args:
            cell: The cell, e.g. "C5".
            formula: The formula; a leading "=" is added if missing.

        Returns:
            The cell's new value.
        """
        target = self._cell(cell)
        target.setFormula(uno_formula(formula if formula.startswith("=") else f"={formula}"))
        return f"{cell} = {_cell_value(target)!r}"

    def get_range_values(self, cell_range: str) -> list[list[str | float | None]]:
        """Read the values of a rectangular range, row by row.

        Args:
            cell_range: The range, e.g. "A1:C10".

        Returns:
            A list of rows, each a list of values (None for empty cells).
        """
        rows = self._range(cell_range, "cell_range").getDataArray()  # one round trip for the block
        return [
            [None if value == "" else plain_number(value) if isinstance(value, float) else value for value in row]
            for row in rows
        ]

    def set_range_values(self, start_cell: str, values: list[list[str | float | None]]) -> str:
        """Write a 2D block of values whose top-left corner is start_cell (text "=..." is a formula).

        Args:
            start_cell: The top-left cell of the block, e.g. "A2".
            values: A list of rows, each a list of numbers, texts or None; rows may differ in length.

        Returns:
            The range that was written.
        """
        if not values or not any(values):
            raise ApiArgumentError("set_range_values(): values must hold at least one row with one value")
        corner = self._cell(start_cell, "start_cell")
        address = corner.getCellAddress()
        sheet = self._sheet_of(corner)
        width = max(len(row) for row in values)
        block = sheet.getCellRangeByPosition(
            address.Column, address.Row, address.Column + width - 1, address.Row + len(values) - 1
        )
        plain = all(len(row) == width for row in values) and not any(
            value is None or (isinstance(value, str) and value.startswith("=")) for row in values for value in row
        )
        if plain:  # one UNO round trip for the whole block instead of two per cell
            block.setDataArray(tuple(tuple(row) for row in values))
            return f"wrote {range_name(block.getRangeAddress())}"
        for row_offset, row in enumerate(values):
            for column_offset, value in enumerate(row):
                _write(block.getCellByPosition(column_offset, row_offset), value)
        return f"wrote {range_name(block.getRangeAddress())}"

    def _sheet_of(self, cell: Any) -> Any:
        return self.document.getSheets().getByIndex(cell.getCellAddress().Sheet)

    def insert_rows(self, row: int, count: int = 1, sheet: str | None = None) -> str:
        """Insert empty rows before the given row; the rows below move down.

        Args:
            row: The 1-based row number where the new rows appear.
            count: How many rows to insert.
            sheet: The sheet name (default: the active sheet).

        Returns:
            A confirmation.
        """
        self._positive(count, "count")
        self._sheet(sheet).getRows().insertByIndex(row_index(row), count)
        return f"inserted {count} row(s) at row {row}"

    def delete_rows(self, row: int, count: int = 1, sheet: str | None = None) -> str:
        """Delete rows starting at the given row; the rows below move up.

        Args:
            row: The 1-based number of the first row to delete.
            count: How many rows to delete.
            sheet: The sheet name (default: the active sheet).

        Returns:
            A confirmation.
        """
        self._positive(count, "count")
        self._sheet(sheet).getRows().removeByIndex(row_index(row), count)
        return f"deleted {count} row(s) from row {row}"

    def insert_columns(self, column: str, count: int = 1, sheet: str | None = None) -> str:
        """Insert empty columns before the given column; the columns to the right move right.

        Args:
            column: The column letters where the new columns appear, e.g. "C".
            count: How many columns to insert.
            sheet: The sheet name (default: the active sheet).

        Returns:
            A confirmation.
        """
        self._positive(count, "count")
        self._sheet(sheet).getColumns().insertByIndex(column_index(column), count)
        return f"inserted {count} column(s) at column {column.upper()}"

    def delete_columns(self, column: str, count: int = 1, sheet: str | None = None) -> str:
        """Delete columns starting at the given column; the columns to the right move left.

        Args:
            column: The letters of the first column to delete, e.g. "C".
            count: How many columns to delete.
            sheet: The sheet name (default: the active sheet).

        Returns:
            A confirmation.
        """
        self._positive(count, "count")
        self._sheet(sheet).getColumns().removeByIndex(column_index(column), count)
        return f"deleted {count} column(s) from column {column.upper()}"

    @staticmethod
    def _positive(value: int, arg: str) -> None:
        if value < 1:
            raise ApiArgumentError(f"{arg} must be at least 1, got {value}")

    def sort_range(self, cell_range: str, column: str, ascending: bool = True, has_header: bool = True) -> str:
        """Sort the rows of a range by the values in one of its columns.

        Args:
            cell_range: The range to sort, e.g. "A1:D20" (include the header row if there is one).
            column: The letters of the sheet column to sort by, e.g. "C"; it must lie in the range.
            ascending: True for A-Z / smallest first, False for Z-A / largest first.
            has_header: Whether the first row is a header that stays on top.

        Returns:
            A confirmation.
        """
        import uno

        from desktop_gym.guest.apps.uno_bridge import property_values

        target = self._range(cell_range, "cell_range")
        address = target.getRangeAddress()
        index = column_index(column)
        if not address.StartColumn <= index <= address.EndColumn:
            raise ApiArgumentError(f"column {column!r} is outside cell_range {cell_range!r}")
        field = uno.createUnoStruct("com.sun.star.table.TableSortField")
        field.Field = index - address.StartColumn
        field.IsAscending = ascending
        descriptor = property_values(
            SortFields=uno.Any("[]com.sun.star.table.TableSortField", (field,)), ContainsHeader=has_header
        )
        uno.invoke(target, "sort", (uno.Any("[]com.sun.star.beans.PropertyValue", descriptor),))
        order = "ascending" if ascending else "descending"
        return f"sorted {range_name(address)} by column {column.upper()} ({order})"

    def set_autofilter(self, cell_range: str, enabled: bool = True) -> str:
        """Turn on (or off) the AutoFilter drop-down buttons on the header row of a range.

        Args:
            cell_range: The table including its header row, e.g. "A1:D20".
            enabled: True to show the filter buttons, False to remove them.

        Returns:
            A confirmation.
        """
        target = self._range(cell_range, "cell_range")
        address = target.getRangeAddress()
        # The sheet's unnamed database range is what Data > AutoFilter uses, and what the xlsx
        # export writes as the sheet's autoFilter.
        unnamed = self.document.getPropertyValue("UnnamedDatabaseRanges")
        unnamed.setByTable(address)
        database_range = unnamed.getByTable(address.Sheet)
        database_range.AutoFilter = enabled
        return f"AutoFilter {'on' if enabled else 'off'} for {range_name(address)}"

    def find_replace(
        self, find: str, replace: str, match_case: bool = False, whole_cell: bool = False, sheet: str | None = None
    ) -> int:
        """Replace every occurrence of a text in the cells of a sheet.

        Args:
            find: The text to look for.
            replace: The replacement text.
            match_case: Whether upper/lower case must match.
            whole_cell: Whether only cells whose entire content equals find are replaced.
            sheet: The sheet name (default: the active sheet).

        Returns:
            How many cells were changed.
        """
        if not find:
            raise ApiArgumentError("find_replace(): find must not be empty")
        target = self._sheet(sheet)
        descriptor = target.createReplaceDescriptor()
        descriptor.setSearchString(find)
        descriptor.setReplaceString(replace)
        descriptor.SearchCaseSensitive = match_case
        descriptor.SearchWords = whole_cell
        return int(target.replaceAll(descriptor))
