"""WriterTools, part 3: tables (insert, list, read, write cells)."""

from __future__ import annotations

import re
from typing import Any

from desktop_gym.guest.apps.tool_schema import ApiArgumentError

from ..values import plain_number
from .common import WriterBase

_CELL = re.compile(r"^[A-Za-z]{1,2}[1-9][0-9]*$")
MAX_TABLE_SIDE = 200
MAX_TABLE_CELLS = 2000  # filling 1,000 cells takes ~1-2.5 s: stay well inside the call's deadline

TableValue = str | float | None
"""A table cell's content: text, a number, or ``None`` for an empty cell."""


def _write(cell: Any, value: TableValue) -> None:
    if value is None:
        cell.setString("")
    elif isinstance(value, str):
        cell.setString(value)
    else:
        cell.setValue(float(value))


def _data_value(value: TableValue) -> str | float:
    if value is None:
        return ""
    return value if isinstance(value, str) else float(value)


class WriterTableTools(WriterBase):
    """Text tables (mixed into ``WriterTools``)."""

    def insert_table(
        self,
        rows: int,
        columns: int,
        data: list[list[TableValue]] | None = None,
        paragraph: int | None = None,
    ) -> str:
        """Insert a table with a grid of rows x columns, optionally filled with data.

        Args:
            rows: The number of rows (1-200; at most 2000 cells in all).
            columns: The number of columns (1-200).
            data: Rows of cell values (text or numbers) written from the top-left cell; may be
                smaller than the table but not larger.
            paragraph: Insert the table after this paragraph (index); default: at the end.

        Returns:
            The new table's index (its number in document order) and name.
        """
        for arg, value in (("rows", rows), ("columns", columns)):
            if not 1 <= value <= MAX_TABLE_SIDE:
                raise ApiArgumentError(f"{arg} must be between 1 and {MAX_TABLE_SIDE}, got {value}")
        if rows * columns > MAX_TABLE_CELLS:
            raise ApiArgumentError(f"a table may have at most {MAX_TABLE_CELLS} cells, got {rows}x{columns}")
        if data is not None:
            if len(data) > rows or any(len(row) > columns for row in data):
                widest = max((len(row) for row in data), default=0)
                raise ApiArgumentError(
                    f"data has {len(data)} row(s) of up to {widest} value(s): more than the {rows}x{columns} table"
                )
        anchor = self._paragraph(-1 if paragraph is None else paragraph)
        table = self.document.createInstance("com.sun.star.text.TextTable")
        table.initialize(rows, columns)
        # At the start of the next paragraph the table goes in between, splitting nothing; at the
        # very end Writer adds the empty paragraph a table needs after it.
        if not anchor.gotoNextParagraph(False):
            anchor.collapseToEnd()
        self.text.insertTextContent(anchor, table, False)
        if data:
            width = max(len(row) for row in data) or 1
            block = [tuple(_data_value(v) for v in row) + ("",) * (width - len(row)) for row in data]
            # One call for the whole block instead of a round trip per cell.
            table.getCellRangeByPosition(0, 0, width - 1, len(data) - 1).setDataArray(tuple(block))
        index = [t.getName() for t in self._tables()].index(table.getName())
        return f"inserted table {index} ({table.getName()}, {rows}x{columns})"

    def list_tables(self) -> list[dict[str, Any]]:
        """List the tables in document order with their size.

        Returns:
            One {"index", "name", "rows", "columns"} object per table.
        """
        return [
            {
                "index": index,
                "name": table.getName(),
                "rows": table.getRows().getCount(),
                "columns": table.getColumns().getCount(),
            }
            for index, table in enumerate(self._tables())
        ]

    def get_table(self, table: int = 0) -> list[list[str]]:
        """Read the text of every cell of a table, row by row.

        Args:
            table: The table's index in document order (0 = the first, -1 = the last).

        Returns:
            A list of rows, each a list of cell texts.
        """
        target = self._table(table)
        return [[str(plain_number(v)) if isinstance(v, float) else v for v in row] for row in target.getDataArray()]

    def set_table_cell(self, cell: str, value: TableValue, table: int = 0) -> str:
        """Write text or a number into one cell of a table.

        Args:
            cell: The cell in A1 notation, e.g. "B2" (column letter, 1-based row).
            value: The text or number to write (None empties the cell).
            table: The table's index in document order (0 = the first, -1 = the last).

        Returns:
            A confirmation.
        """
        if not _CELL.match(cell):
            raise ApiArgumentError(f"cell must be a table cell like 'B2', got {cell!r}")
        target = self._table(table)
        found = target.getCellByName(cell.upper())
        if found is None:
            size = f"{target.getRows().getCount()} rows x {target.getColumns().getCount()} columns"
            raise ApiArgumentError(f"cell {cell!r} is outside table {table} ({size})")
        _write(found, value)
        return f"table {table} cell {cell.upper()} set to {value!r}"
