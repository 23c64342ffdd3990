"""CalcTools, part 3: sheets, used range, charts, pivot tables, saving."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from desktop_gym.guest.apps.tool_schema import ApiArgumentError, slow

from .common import CalcBase, range_name

CHART_TIMEOUT_S = 20.0  # a chart or pivot table: seconds the guest lets the call run
SAVE_CALL_TIMEOUT_S = 30.0  # a save (the export filter runs in the call)

_CHART_DIAGRAMS = {
    "bar": "com.sun.star.chart.BarDiagram",
    "line": "com.sun.star.chart.LineDiagram",
    "pie": "com.sun.star.chart.PieDiagram",
}
_FUNCTIONS = {"sum": "SUM", "count": "COUNT", "average": "AVERAGE", "max": "MAX", "min": "MIN"}
_SAVE_FORMATS = (".xlsx", ".xls", ".ods", ".csv")


class CalcSheetTools(CalcBase):
    """Sheets, charts, pivot tables and saving (mixed into ``CalcTools``)."""

    def list_sheets(self) -> list[str]:
        """List the sheet names in order.

        Returns:
            The sheet names, first to last.
        """
        return list(self.document.getSheets().getElementNames())

    def add_sheet(self, name: str, position: int | None = None) -> str:
        """Add a new empty sheet.

        Args:
            name: The new sheet's name.
            position: 0-based position among the sheets (default: after the last one).

        Returns:
            A confirmation.
        """
        sheets = self.document.getSheets()
        if sheets.hasByName(name):
            raise ApiArgumentError(f"name: a sheet named {name!r} already exists")
        count = sheets.getCount()
        index = count if position is None else position
        if not 0 <= index <= count:
            raise ApiArgumentError(f"position must be between 0 and {count}, got {position}")
        sheets.insertNewByName(name, index)
        return f"added sheet {name!r} at position {index}"

    def rename_sheet(self, old_name: str, new_name: str) -> str:
        """Rename a sheet.

        Args:
            old_name: The current name.
            new_name: The new name.

        Returns:
            A confirmation.
        """
        sheet = self._sheet(old_name, "old_name")
        if self.document.getSheets().hasByName(new_name):
            raise ApiArgumentError(f"new_name: a sheet named {new_name!r} already exists")
        sheet.setName(new_name)
        return f"renamed sheet {old_name!r} to {new_name!r}"

    def delete_sheet(self, name: str) -> str:
        """Delete a sheet and everything on it.

        Args:
            name: The sheet's name.

        Returns:
            A confirmation.
        """
        self._sheet(name, "name")
        sheets = self.document.getSheets()
        if sheets.getCount() == 1:
            raise ApiArgumentError(f"name: {name!r} is the only sheet; a document keeps at least one")
        sheets.removeByName(name)
        return f"deleted sheet {name!r}"

    def switch_sheet(self, name: str) -> str:
        """Make a sheet the active (visible) one; cell references without a sheet then refer to it.

        Args:
            name: The sheet's name.

        Returns:
            A confirmation.
        """
        self._controller.setActiveSheet(self._sheet(name, "name"))
        return f"active sheet is {name!r}"

    def get_used_range(self, sheet: str | None = None) -> str:
        """Give the range of a sheet that holds data, e.g. "A1:D25".

        Args:
            sheet: The sheet name (default: the active sheet).

        Returns:
            The used range in A1 notation.
        """
        return range_name(self._used_address(self._sheet(sheet)))

    @slow(CHART_TIMEOUT_S)
    def insert_chart(
        self,
        data_range: str,
        chart_type: Literal["bar", "line", "pie"] = "bar",
        anchor_cell: str = "H2",
        width_cm: float = 12.0,
        height_cm: float = 7.0,
        title: str = "",
    ) -> str:
        """Insert a chart of a data range (first row = series names, first column = categories).

        Args:
            data_range: The data including its header row and label column, e.g. "A1:C6".
            chart_type: "bar" (vertical bars), "line" or "pie".
            anchor_cell: The cell where the chart's top-left corner goes.
            width_cm: The chart width in centimetres.
            height_cm: The chart height in centimetres.
            title: A title shown above the chart (none if empty).

        Returns:
            The new chart's name.
        """
        import uno

        source = self._range(data_range, "data_range")
        address = source.getRangeAddress()
        anchor = self._cell(anchor_cell, "anchor_cell")
        if anchor.getCellAddress().Sheet != address.Sheet:
            raise ApiArgumentError("anchor_cell must be on the same sheet as data_range")
        if not (0.5 <= width_cm <= 100 and 0.5 <= height_cm <= 100):
            raise ApiArgumentError(f"width_cm and height_cm must be 0.5-100, got {width_cm:g} x {height_cm:g}")
        charts = self.document.getSheets().getByIndex(address.Sheet).getCharts()
        index = charts.getCount() + 1
        while charts.hasByName(f"Chart{index}"):
            index += 1
        name = f"Chart{index}"
        position = anchor.Position
        rectangle = uno.createUnoStruct(
            "com.sun.star.awt.Rectangle", position.X, position.Y, round(width_cm * 1000), round(height_cm * 1000)
        )
        charts.addNewByName(name, rectangle, (address,), True, True)
        chart = charts.getByName(name).getEmbeddedObject()
        if chart_type != "bar":  # a new chart is a (vertical) bar chart already
            chart.setDiagram(chart.createInstance(_CHART_DIAGRAMS[chart_type]))
        if title:
            chart.HasMainTitle = True
            chart.getTitle().String = title
        return name

    @slow(CHART_TIMEOUT_S)
    def create_pivot_table(
        self,
        source_range: str,
        row_field: str,
        data_field: str,
        function: Literal["sum", "count", "average", "max", "min"] = "sum",
        target_cell: str = "H2",
        column_field: str | None = None,
    ) -> str:
        """Create a pivot table (DataPilot) summarising a table by the values of one column.

        Args:
            source_range: The table including its header row, e.g. "A1:D50".
            row_field: The header of the column whose distinct values become rows, e.g. "Region".
            data_field: The header of the column to aggregate, e.g. "Sales".
            function: How data_field is aggregated: "sum", "count", "average", "max" or "min".
            target_cell: Where the pivot table's top-left corner goes, e.g. "H2" or "Sheet2!A1";
                it must not overlap source_range.
            column_field: Optionally, the header of a column whose values become columns.

        Returns:
            The new pivot table's name.
        """
        import uno

        source = self._range(source_range, "source_range").getRangeAddress()
        target = self._cell(target_cell, "target_cell").getCellAddress()
        if (
            target.Sheet == source.Sheet
            and source.StartColumn <= target.Column <= source.EndColumn
            and source.StartRow <= target.Row <= source.EndRow
        ):
            raise ApiArgumentError(f"target_cell {target_cell!r} lies inside source_range {source_range!r}")
        tables = self.document.getSheets().getByIndex(target.Sheet).getDataPilotTables()
        descriptor = tables.createDataPilotDescriptor()
        descriptor.setSourceRange(source)
        fields = descriptor.getDataPilotFields()
        # The descriptor's fields have no names yet: take the headers from the source's first row.
        header_row = (
            self.document.getSheets()
            .getByIndex(source.Sheet)
            .getCellRangeByPosition(source.StartColumn, source.StartRow, source.EndColumn, source.StartRow)
        )
        headers = [str(value) for value in header_row.getDataArray()[0]]
        orientation = "com.sun.star.sheet.DataPilotFieldOrientation"
        roles = [(row_field, "row_field", "ROW"), (data_field, "data_field", "DATA")]
        if column_field is not None:
            roles.append((column_field, "column_field", "COLUMN"))
        for header, arg, role in roles:
            if header not in headers:
                raise ApiArgumentError(
                    f"{arg}: no column headed {header!r} in {source_range} (headers: {', '.join(map(repr, headers))})"
                )
            field = fields.getByIndex(headers.index(header))
            field.Orientation = uno.Enum(orientation, role)
            if role == "DATA":
                field.Function = uno.Enum("com.sun.star.sheet.GeneralFunction", _FUNCTIONS[function])
        index = tables.getCount() + 1
        while tables.hasByName(f"PivotTable{index}"):
            index += 1
        name = f"PivotTable{index}"
        tables.insertNewByName(name, target, descriptor)
        return name

    @slow(SAVE_CALL_TIMEOUT_S)
    def save(self, path: str | None = None) -> str:
        """Save the document: in place in its current format, or as a new file (Save As).

        Args:
            path: None to save in place; else an absolute path (or "~/...") ending in .xlsx,
                .xls, .ods or .csv, which chooses the format (csv holds the active sheet only).

        Returns:
            The path saved to.
        """
        from desktop_gym.guest.apps.uno_bridge import filter_for, property_values

        if path is None:
            if not self.document.hasLocation():
                raise ApiArgumentError("path: the document has never been saved; give a path to save it to")
            self.document.store()
            return Path(_file_path(self.document.getLocation())).as_posix()
        target = self.home / path[2:] if path.startswith("~/") else Path(path)
        if not target.is_absolute():
            raise ApiArgumentError(f"path must be absolute or start with '~/', got {path!r}")
        if target.suffix.lower() not in _SAVE_FORMATS:
            raise ApiArgumentError(f"path must end in one of {', '.join(_SAVE_FORMATS)}, got {path!r}")
        if not target.parent.is_dir():
            raise ApiArgumentError(f"path: the folder {str(target.parent)!r} does not exist")
        descriptor = property_values(FilterName=filter_for(target), Overwrite=True)
        self.document.storeAsURL(target.as_uri(), descriptor)
        return str(target)


def _file_path(url: str) -> str:
    import uno

    return uno.fileUrlToSystemPath(url)
