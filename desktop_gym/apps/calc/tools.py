"""``CalcTools``: the LibreOffice Calc API the agent calls, acting on the live document over UNO.

The methods live in three parts by topic (``calc_cells``, ``calc_format``, ``calc_sheets``);
this class joins them and adds :meth:`CalcTools.summary`, the ``app_info`` text of the
observation (not a tool). Each call gets a fresh instance bound to the current document, inside
``UnoConnection.call`` (see :mod:`desktop_gym.guest.apps.registry`); every change goes through the
document model, so the Calc window repaints it as if the user had made it.
"""

from __future__ import annotations

from desktop_gym.guest.apps.tool_schema import ApiArgumentError, not_a_tool

from .cells import CalcCellTools
from .common import range_name
from .format import CalcFormatTools
from .sheets import CalcSheetTools

SUMMARY_ROWS = 20
SUMMARY_COLUMNS = 12


class CalcTools(CalcCellTools, CalcFormatTools, CalcSheetTools):
    """LibreOffice Calc: cells, formulas, rows/columns, formats, sheets, charts, pivot tables, saving.

    Cells are written in A1 notation ("B2", "A1:C10"); prefix a sheet as "Sheet2!B2" to act on a
    sheet other than the active one. Rows are 1-based numbers, columns are letters.
    """

    @not_a_tool
    def summary(self, max_chars: int = 5000) -> str:
        """The document's state as text for the observation: sheets, active sheet, used range, first rows.

        Args:
            max_chars: The longest text returned; longer text is cut and ends with "...".

        Returns:
            Lines of text; the first rows of the active sheet as tab-separated values.
        """
        if max_chars < 4:
            raise ApiArgumentError(f"max_chars must be at least 4, got {max_chars}")
        sheet = self._sheet()
        used = self._used_address(sheet)
        lines = [
            f"Sheets: {', '.join(self.list_sheets())}",
            f"Active sheet: {sheet.getName()}",
            f"Used range: {range_name(used)}",
        ]
        last_row = min(used.EndRow, used.StartRow + SUMMARY_ROWS - 1)
        last_column = min(used.EndColumn, used.StartColumn + SUMMARY_COLUMNS - 1)
        block = sheet.getCellRangeByPosition(used.StartColumn, used.StartRow, last_column, last_row)
        shown = range_name(block.getRangeAddress())
        lines.append(f"Values {shown}:" if shown == range_name(used) else f"First values {shown}:")
        for offset, row in enumerate(block.getDataArray()):
            cells = [_cell_text(value) for value in row]
            lines.append(f"{used.StartRow + offset + 1}\t" + "\t".join(cells).rstrip("\t"))
        text = "\n".join(lines)
        return text if len(text) <= max_chars else text[: max_chars - 3] + "..."


def _cell_text(value: object) -> str:
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else f"{value:g}"
    return str(value).replace("\t", " ").replace("\n", " ")
