"""Reading OpenDocument spreadsheets (ods) into rows of values with odfpy."""

from __future__ import annotations

from typing import Any

# LibreOffice pads every sheet with blank cells repeated up to the sheet's limits (1024 columns,
# 1048576 rows); blanks are expanded only when real content follows them.
_NUMERIC_TYPES = ("float", "percentage", "currency")


def _attr(element: Any, name: str) -> str | None:
    for (_, local), value in element.attributes.items():
        if local == name:
            return value
    return None


def _local(element: Any) -> str:
    return element.qname[1] if hasattr(element, "qname") else ""


def _text(element: Any) -> str:
    from odf import teletype

    paragraphs = [teletype.extractText(child) for child in element.childNodes if _local(child) == "p"]
    return "\n".join(paragraphs)


def _cell_value(cell: Any) -> object:
    value_type = _attr(cell, "value-type")
    if value_type in _NUMERIC_TYPES:
        number = float(_attr(cell, "value") or "nan")
        return int(number) if number.is_integer() else number
    if value_type == "date":
        return _attr(cell, "date-value")
    if value_type == "time":
        return _attr(cell, "time-value")
    if value_type == "boolean":
        return (_attr(cell, "boolean-value") or "").lower() == "true"
    text = _text(cell)
    return text if text != "" else None


def _row_values(row: Any) -> list[object]:
    values: list[object] = []
    pending_blanks = 0
    for cell in row.childNodes:
        if _local(cell) not in ("table-cell", "covered-table-cell"):
            continue
        repeat = int(_attr(cell, "number-columns-repeated") or "1")
        value = _cell_value(cell)
        if value is None:
            pending_blanks += repeat
            continue
        values.extend([None] * pending_blanks)
        pending_blanks = 0
        values.extend([value] * repeat)
    return values


def _rows_of(container: Any, rows: list[list[object]], pending: list[int]) -> None:
    for child in container.childNodes:
        name = _local(child)
        if name in ("table-row-group", "table-header-rows", "table-rows"):
            _rows_of(child, rows, pending)
        elif name == "table-row":
            repeat = int(_attr(child, "number-rows-repeated") or "1")
            values = _row_values(child)
            if not values:
                pending[0] += repeat
                continue
            rows.extend([] for _ in range(pending[0]))
            pending[0] = 0
            rows.extend(list(values) for _ in range(repeat))


def ods_sheets(document: Any) -> dict[str, list[list[object]]]:
    """Every sheet of a loaded ods document: name -> rows of cell values (trailing blanks trimmed).

    Numbers come back as int/float, dates as ISO strings, text as str, blanks as None.
    """
    from odf.table import Table

    sheets: dict[str, list[list[object]]] = {}
    for table in document.spreadsheet.getElementsByType(Table):
        rows: list[list[object]] = []
        _rows_of(table, rows, [0])
        sheets[_attr(table, "name") or f"Sheet{len(sheets) + 1}"] = rows
    return sheets
