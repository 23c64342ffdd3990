"""Which cells of a Calc sheet's visible range hold content, asked of UNO in one call.

The accessibility tree summarises the Calc grid by reading the visible cells through AT-SPI: each
cell is a fresh accessible that LibreOffice builds on request, ~3 round trips per cell and up to
:data:`a11y.MAX_TABLE_CELLS_READ` cells, which was the largest part of a tree read. Most visible
cells are empty, and an empty cell adds nothing to the summary. ``queryContentCells`` on the
visible range names the non-empty ones in one UNO call, so the tree reads only those through
AT-SPI: the text the agent sees is the one AT-SPI gives, just without asking about empty cells.

Anything this module cannot match for sure (no office connection, an unknown document or sheet,
a UNO error or timeout) returns ``None`` and the tree reads every cell as before.

Finding the sheet (the office's documents, their URLs, the sheet by name) took ~10 ms of UNO round
trips a read; a found sheet is kept, with its document, and used again once both still answer to
the names asked for (its document's URL or title, its own name), ~4 ms. Any error on a kept sheet
(its document closed) drops it and the sheet is looked up again.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from typing import Any

CONTENT_FLAGS = 1 | 2 | 4 | 16  # com.sun.star.sheet.CellFlags VALUE | DATETIME | STRING | FORMULA
GRID_QUERY_TIMEOUT_S = 1.0
MAX_CONTENT_RANGES = 2000  # a checkerboard of content in the visible range: ask AT-SPI instead
MAX_KEPT_SHEETS = 32  # sheets found by name and kept for the next reads (the oldest goes first)
_DOCUMENT_SUFFIX = " - LibreOffice Spreadsheets"
_SHEET_PREFIX = "Sheet "

Corners = tuple[int, int, int, int]  # first row, first column, last row, last column
_KeptKey = tuple[int, str, str]  # id of the connection, document key, sheet name
_kept: dict[_KeptKey, tuple[Any, Any, Any]] = {}  # -> (connection, document, sheet)
_kept_lock = threading.Lock()
GridContents = Callable[[str, str, Corners], "set[tuple[int, int]] | None"]
"""``(document node name, table node name, visible corners) -> non-empty (row, column) cells``, or
None when unknown. Document and table names are the accessible names AT-SPI reports
(``"file:///.../a.xlsx - LibreOffice Spreadsheets"``, ``"Sheet Budget"``)."""


def document_key(document_name: str) -> str | None:
    """The URL (or the title of an unsaved document) in a Calc document node's accessible name."""
    if not document_name.endswith(_DOCUMENT_SUFFIX):
        return None
    return document_name[: -len(_DOCUMENT_SUFFIX)]


def sheet_name(table_name: str) -> str | None:
    """The sheet's name in a Calc table node's accessible name (``"Sheet Budget"`` -> ``"Budget"``)."""
    return table_name[len(_SHEET_PREFIX) :] if table_name.startswith(_SHEET_PREFIX) else None


def uno_grid_contents(connections: Callable[[], Iterable[Any]]) -> GridContents:
    """A :data:`GridContents` that asks the offices behind ``connections`` (``UnoConnection`` objects).

    Args:
        connections: Called at each query; returns the live office connections to search.
    """

    def contents(document_name: str, table_name: str, corners: Corners) -> set[tuple[int, int]] | None:
        key, sheet = document_key(document_name), sheet_name(table_name)
        if key is None or sheet is None:
            return None
        for connection in connections():
            try:
                found = _kept_sheet_cells(connection, key, sheet, corners)
                if found is _NOT_KEPT:
                    documents = connection.documents(timeout=GRID_QUERY_TIMEOUT_S)
                    found = connection.call(
                        _content_cells,
                        connection,
                        documents,
                        key,
                        sheet,
                        corners,
                        timeout=GRID_QUERY_TIMEOUT_S,
                        what="grid contents",
                    )
            except Exception:  # noqa: BLE001 - a dead or busy office: the tree reads the cells itself
                continue
            if found is not None:
                return found  # type: ignore[return-value]
        return None

    return contents


_NOT_KEPT = object()  # no kept sheet answered: look it up


def _kept_sheet_cells(connection: Any, key: str, sheet: str, corners: Corners) -> object:
    """The cells of a kept sheet that still answers to ``key`` and ``sheet``, else ``_NOT_KEPT``."""
    with _kept_lock:
        kept = _kept.get((id(connection), key, sheet))
    if kept is None or kept[0] is not connection:
        return _NOT_KEPT
    _, document, sheet_object = kept

    def cells() -> object:
        if not _is_document(document, key) or sheet_object.getName() != sheet:
            return _NOT_KEPT
        return _cells_in(sheet_object, corners)

    try:
        found = connection.call(cells, timeout=GRID_QUERY_TIMEOUT_S, what="grid contents (kept sheet)")
    except TimeoutError:
        raise  # a busy office: not asked again for this read (the caller reads the cells itself)
    except Exception:  # noqa: BLE001 - its document was closed (disposed): look it up again
        found = _NOT_KEPT
    if found is _NOT_KEPT:
        with _kept_lock:
            _kept.pop((id(connection), key, sheet), None)
    return found


def _content_cells(
    connection: Any, documents: list[Any], key: str, sheet: str, corners: Corners
) -> set[tuple[int, int]] | None:
    matches = [document for document in documents if _is_document(document, key)]
    if len(matches) != 1 or not hasattr(matches[0], "getSheets"):
        return None
    sheets = matches[0].getSheets()
    if not sheets.hasByName(sheet):
        return None
    sheet_object = sheets.getByName(sheet)
    with _kept_lock:
        while len(_kept) >= MAX_KEPT_SHEETS:
            _kept.pop(next(iter(_kept)))
        _kept[(id(connection), key, sheet)] = (connection, matches[0], sheet_object)
    return _cells_in(sheet_object, corners)


def _cells_in(sheet_object: Any, corners: Corners) -> set[tuple[int, int]] | None:
    row0, col0, row1, col1 = corners
    visible = sheet_object.getCellRangeByPosition(col0, row0, col1, row1)
    ranges = visible.queryContentCells(CONTENT_FLAGS).getRangeAddresses()
    if len(ranges) > MAX_CONTENT_RANGES:
        return None
    return {
        (row, col)
        for area in ranges
        for row in range(area.StartRow, area.EndRow + 1)
        for col in range(area.StartColumn, area.EndColumn + 1)
    }


def _is_document(document: Any, key: str) -> bool:
    url = document.getURL()
    if url:
        return url == key
    return hasattr(document, "getTitle") and document.getTitle() == key
