"""CalcTools, part 2: formats, fonts, colours, merging, sizes, frozen panes, conditional formats."""

from __future__ import annotations

from typing import Literal

from desktop_gym.guest.apps.tool_schema import ApiArgumentError

from ..values import check_font_size, parse_color
from .common import CalcBase, column_index, range_name, row_index

_BOLD, _NORMAL = 150.0, 100.0  # com.sun.star.awt.FontWeight.BOLD / NORMAL
_CONDITION_OPERATORS = {
    "greater": "GREATER",
    "greater_equal": "GREATER_EQUAL",
    "less": "LESS",
    "less_equal": "LESS_EQUAL",
    "equal": "EQUAL",
    "not_equal": "NOT_EQUAL",
    "between": "BETWEEN",
}
ConditionOperator = Literal["greater", "greater_equal", "less", "less_equal", "equal", "not_equal", "between"]


class CalcFormatTools(CalcBase):
    """Number formats, fonts, colours, merges, sizes, frozen panes (mixed into ``CalcTools``)."""

    def set_number_format(self, cell_range: str, format_string: str) -> str:
        """Apply a number format code to a range, e.g. "0.00%", "#,##0.00", "YYYY-MM-DD".

        Args:
            cell_range: The range, e.g. "B2:B20".
            format_string: A LibreOffice/Excel format code.

        Returns:
            A confirmation.
        """
        import uno

        formats = self.document.getNumberFormats()
        locale = uno.createUnoStruct("com.sun.star.lang.Locale")
        key = formats.queryKey(format_string, locale, False)
        if key == -1:
            try:
                key = formats.addNew(format_string, locale)
            except Exception as exc:  # MalformedNumberFormatException from pyuno
                raise ApiArgumentError(f"format_string {format_string!r} is not a valid number format: {exc}") from None
        self._range(cell_range, "cell_range").NumberFormat = key
        return f"number format {format_string!r} applied to {cell_range}"

    def set_bold(self, cell_range: str, bold: bool = True) -> str:
        """Make the text of a range bold (or not bold).

        Args:
            cell_range: The range, e.g. "A1:D1".
            bold: True for bold, False for normal weight.

        Returns:
            A confirmation.
        """
        self._range(cell_range, "cell_range").CharWeight = _BOLD if bold else _NORMAL
        return f"{cell_range} {'bold' if bold else 'not bold'}"

    def set_font_name(self, cell_range: str, font_name: str) -> str:
        """Set the font family of a range, e.g. "Liberation Serif".

        Args:
            cell_range: The range, e.g. "A1:D10".
            font_name: The font family name.

        Returns:
            A confirmation.
        """
        if not font_name.strip():
            raise ApiArgumentError("font_name must not be empty")
        self._range(cell_range, "cell_range").CharFontName = font_name
        return f"font of {cell_range} set to {font_name!r}"

    def set_font_size(self, cell_range: str, size: float) -> str:
        """Set the font size of a range in points.

        Args:
            cell_range: The range, e.g. "A1:D10".
            size: The size in points, e.g. 14.

        Returns:
            A confirmation.
        """
        check_font_size(size)
        self._range(cell_range, "cell_range").CharHeight = size
        return f"font size of {cell_range} set to {size:g} pt"

    def set_font_color(self, cell_range: str, color: str) -> str:
        """Set the text colour of a range.

        Args:
            cell_range: The range, e.g. "A1:D1".
            color: A hex colour, e.g. "#FF0000".

        Returns:
            A confirmation.
        """
        self._range(cell_range, "cell_range").CharColor = parse_color(color)
        return f"text colour of {cell_range} set to {color}"

    def set_background_color(self, cell_range: str, color: str) -> str:
        """Fill the cells of a range with a background colour.

        Args:
            cell_range: The range, e.g. "A1:D1".
            color: A hex colour, e.g. "#FFFF00".

        Returns:
            A confirmation.
        """
        self._range(cell_range, "cell_range").CellBackColor = parse_color(color)
        return f"background of {cell_range} set to {color}"

    def merge_cells(self, cell_range: str, merge: bool = True) -> str:
        """Merge the cells of a range into one (or split a merged range again).

        Args:
            cell_range: The range, e.g. "A1:D1".
            merge: True to merge, False to unmerge.

        Returns:
            A confirmation.
        """
        self._range(cell_range, "cell_range").merge(merge)
        return f"{'merged' if merge else 'unmerged'} {cell_range}"

    def set_column_width(self, column: str, width_cm: float, sheet: str | None = None) -> str:
        """Set the width of a column in centimetres (the default is about 2.3 cm).

        Args:
            column: The column letters, e.g. "B".
            width_cm: The width in cm, from 0.1 to 50.
            sheet: The sheet name (default: the active sheet).

        Returns:
            A confirmation.
        """
        if not 0.1 <= width_cm <= 50:
            raise ApiArgumentError(f"width_cm must be between 0.1 and 50, got {width_cm:g}")
        columns = self._sheet(sheet).getColumns()
        columns.getByIndex(column_index(column)).Width = round(width_cm * 1000)  # 1/100 mm
        return f"column {column.upper()} is {width_cm:g} cm wide"

    def set_row_height(self, row: int, height_cm: float, sheet: str | None = None) -> str:
        """Set the height of a row in centimetres (the default is about 0.45 cm).

        Args:
            row: The 1-based row number.
            height_cm: The height in cm, from 0.1 to 20.
            sheet: The sheet name (default: the active sheet).

        Returns:
            A confirmation.
        """
        if not 0.1 <= height_cm <= 20:
            raise ApiArgumentError(f"height_cm must be between 0.1 and 20, got {height_cm:g}")
        self._sheet(sheet).getRows().getByIndex(row_index(row)).Height = round(height_cm * 1000)
        return f"row {row} is {height_cm:g} cm high"

    def freeze_panes(self, cell: str) -> str:
        """Freeze the rows above and the columns left of a cell, so they stay visible when scrolling.

        Args:
            cell: The first unfrozen cell: "B2" freezes row 1 and column A, "A2" only row 1,
                "A1" unfreezes.

        Returns:
            A confirmation.
        """
        target = self._cell(cell)
        address = target.getCellAddress()
        controller = self._controller
        sheet = self.document.getSheets().getByIndex(address.Sheet)
        controller.setActiveSheet(sheet)  # freezing acts on the sheet in view
        controller.freezeAtPosition(address.Column, address.Row)
        if address.Column == 0 and address.Row == 0:
            return "panes unfrozen"
        return f"froze {address.Row} row(s) and {address.Column} column(s) of {sheet.getName()!r}"

    def add_conditional_format(
        self,
        cell_range: str,
        operator: ConditionOperator,
        value: float,
        background_color: str,
        value2: float | None = None,
    ) -> str:
        """Highlight the cells of a range whose value meets a condition with a background colour.

        Args:
            cell_range: The range, e.g. "C2:C20".
            operator: How a cell is compared with value: "greater", "greater_equal", "less",
                "less_equal", "equal", "not_equal" or "between" (value..value2).
            value: The number compared with.
            background_color: The highlight colour, e.g. "#FFC7CE".
            value2: The upper bound, for "between" only.

        Returns:
            The name of the cell style the condition applies.
        """
        import uno

        from desktop_gym.guest.apps.uno_bridge import property_values

        if (operator == "between") != (value2 is not None):
            raise ApiArgumentError('value2 is required with operator "between" and only allowed with it')
        color = parse_color(background_color, "background_color")
        target = self._range(cell_range, "cell_range")
        style_name = f"ConditionalHighlight_{color:06X}"
        styles = self.document.getStyleFamilies().getByName("CellStyles")
        if not styles.hasByName(style_name):
            style = self.document.createInstance("com.sun.star.style.CellStyle")
            styles.insertByName(style_name, style)
            style.CellBackColor = color
        entries = target.ConditionalFormat
        condition = property_values(
            Operator=uno.Enum("com.sun.star.sheet.ConditionOperator", _CONDITION_OPERATORS[operator]),
            Formula1=repr(float(value)) if not float(value).is_integer() else str(int(value)),
            StyleName=style_name,
        )
        if value2 is not None:
            condition += property_values(Formula2=str(value2))
        entries.addNew(condition)
        target.ConditionalFormat = entries  # the property is a copy: write it back
        return f"cells of {range_name(target.getRangeAddress())} {operator} {value:g} get style {style_name!r}"
