"""The cheap tree paths give the same tree text as reading everything.

Cheap: UNO names the non-empty visible cells of the Calc grid (:mod:`a11y_grid`), each
object's role, interfaces and toolkit are kept between reads (:mod:`a11y_static`), a closed
GTK menu's items are not asked about past the first (``a11y._menu_items``), and the office is read
over its own socket, one ``GetChildren`` per node (:mod:`a11y_peer`); the full read goes through
libatspi alone. One real Calc on
a private X server and session bus, read in-process (libatspi binds one bus per process); the tree
is read both ways after edits typed and set through UNO, a dialog, a second (unsaved) document, a
window switch and a scroll.
"""

from __future__ import annotations

import difflib
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from desktop_gym.guest import a11y, a11y_grid, a11y_peer, a11y_static
from desktop_gym.guest.apps import uno_bridge
from desktop_gym.guest.input import InputController
from desktop_gym.polling import poll_until

from ..support.soffice import needs_desktop_tools
from .conftest import A11Y_DOCUMENT as GRID

pytestmark = [needs_desktop_tools, pytest.mark.slow]

STABLE_READS = 5
FULL_READ = lambda: a11y.linearize_tree(static_cache=False, skip_closed_menus=False, peer=False)  # noqa: E731


class CountingGrid:
    """The UNO grid contents, counting the answers it gave (so a test sees the cheap path ran)."""

    def __init__(self, connection: uno_bridge.UnoConnection) -> None:
        self._contents = a11y_grid.uno_grid_contents(lambda: [connection])
        self.answers: list[set[tuple[int, int]]] = []

    def __call__(self, document: str, table: str, corners: a11y_grid.Corners) -> set[tuple[int, int]] | None:
        found = self._contents(document, table, corners)
        if found is not None:
            self.answers.append(found)
        return found


@pytest.fixture(scope="module")
def office(
    a11y_calc_office: tuple[dict[str, str], uno_bridge.UnoConnection],
) -> tuple[dict[str, str], uno_bridge.UnoConnection]:
    """Xvfb + openbox + private dbus + soffice --calc on the shared sheet, with its UNO connection."""
    _wait_tree(lambda tree: 'table "Sheet Budget"' in tree, f"the Calc grid of {GRID}")
    return a11y_calc_office


def _wait_tree(condition: Any, what: str, timeout: float = 30, read: Any = a11y.linearize_tree) -> str:
    def tree_if_ready() -> str | None:
        tree = read()
        return tree if condition(tree) else None

    return poll_until(tree_if_ready, timeout, what + " in the accessibility tree", retry_on=(a11y.A11yError,))


def _assert_same_text(grid: CountingGrid) -> str:
    """Read the tree in full and the cheap way (grid contents, kept properties, closed menus skipped)."""
    answers = len(grid.answers)

    def cheap() -> str:
        walked = a11y_peer.roots_over_socket
        text = a11y.linearize_tree(grid_contents=grid)
        assert len(grid.answers) > answers, "the cheap path never answered (the tree read every cell)"
        assert a11y_peer.roots_over_socket > walked, "the office was not read over its own socket"
        return text

    return _assert_reads_equal(FULL_READ, cheap)


def _assert_reads_equal(full_read: Any, cheap_read: Any) -> str:
    """``cheap_read()`` gives ``full_read()``'s text; a difference fails once another full read confirms it."""
    for _ in range(STABLE_READS):
        full, cheap = full_read(), cheap_read()
        if cheap == full:
            return full
        if full_read() == full:  # the desktop was still: a real difference
            diff = "\n".join(difflib.unified_diff(full.splitlines(), cheap.splitlines(), "full", "cheap", lineterm=""))
            pytest.fail(f"the cheap path changed the tree text:\n{diff}")
    pytest.fail(f"the tree changed between reads {STABLE_READS} times in a row (the desktop never settled)")


def _keys(env: dict[str, str], *keys: str, text: str = "", click: tuple[int, int] | None = None) -> None:
    controller = InputController(env["DISPLAY"])
    try:
        if click:
            controller.click(*click)
        if text:
            controller.type_text(text)
        for key in keys:
            controller.hotkey(key.split("+"))
    finally:
        controller.close()


def _table_line(tree: str, document: str) -> str:
    """The grid's line under the frame of ``document``."""
    frame = tree.split(f'frame "{document} - LibreOffice Calc"', 1)[1]
    return next(line for line in frame.splitlines() if line.lstrip().startswith('table "Sheet '))


def _sheet(connection: uno_bridge.UnoConnection, url_end: str) -> Any:
    document = next(doc for doc in connection.documents() if doc.getURL().endswith(url_end))
    return document, document.getSheets().getByIndex(0)


def test_cheap_grid_path_keeps_the_tree_text(office: tuple[dict[str, str], uno_bridge.UnoConnection]) -> None:
    env, connection = office
    grid = CountingGrid(connection)

    # Edits: typed at the cursor, and set through UNO (long text, a formula, a cell holding its own name).
    document, sheet = _sheet(connection, GRID)
    _keys(env, click=a11y.find_nodes("table", "Sheet Budget")[0].center)
    document.getCurrentController().select(sheet.getCellRangeByName("A3"))
    _wait_tree(lambda tree: 'text "" text="A3"' in tree, "the cursor in A3 (the Name Box)")
    _keys(env, "Return", text="typed here")
    sheet.getCellRangeByName("C3").setString("a text that is longer than forty characters, cut")
    sheet.getCellRangeByName("D4").setFormula("=B1*2")
    sheet.getCellRangeByName("E5").setString("E5")
    sheet.getCellRangeByName("A8:L13").setDataArray(
        tuple(tuple(float(r * 12 + c) for c in range(12)) for r in range(6))
    )
    _wait_tree(lambda tree: 'A3="typed here"' in tree, "the typed cell A3")
    table = _table_line(_assert_same_text(grid), GRID)
    assert 'A1="rent" B1="1200"' in table and 'D4="2400"' in table, table
    assert "E5=" not in table and table.endswith(" ...}"), table  # a cell showing its own name; the 50-cell cap
    assert (2, 0) in grid.answers[-1] and (1, 1) in grid.answers[-1]

    # A dialog over the document.
    _keys(env, "ctrl+h")
    _wait_tree(lambda tree: 'dialog "Find and Replace"' in tree, "the Find and Replace dialog")
    _assert_same_text(grid)
    _keys(env, "Escape")
    _wait_tree(lambda tree: 'dialog "Find and Replace"' not in tree, "the Find and Replace dialog gone")

    # A second, unsaved document takes the focus (its document node is named by its title).
    second = connection.desktop.loadComponentFromURL("private:factory/scalc", "_blank", 0, ())
    second.getSheets().getByIndex(0).getCellRangeByName("B3").setString("second")
    _wait_tree(lambda tree: 'B3="second"' in tree, "the second document's B3")
    _assert_same_text(grid)

    # Back to the first window, scrolled far from A1.
    frame = document.getCurrentController().getFrame()
    frame.getContainerWindow().toFront()
    frame.activate()
    sheet.getCellRangeByName("AA300").setString("far away")
    document.getCurrentController().select(sheet.getCellRangeByName("AA300"))
    _wait_tree(lambda tree: 'AA300="far away"' in tree, f"the scrolled-to cell AA300 of {GRID}")
    table = _table_line(_assert_same_text(grid), GRID)
    assert 'AA300="far away"' in table and 'A1="rent"' not in table, table


def test_closed_menus_skipped_open_menu_read(
    office: tuple[dict[str, str], uno_bridge.UnoConnection], monkeypatch: pytest.MonkeyPatch
) -> None:
    env, _ = office
    calls: list[int] = []  # items returned per menu: the closed-menu shortcut ran, and stopped early
    read_items = a11y._menu_items

    def counted_items(menu: Any, atspi: Any) -> list:
        items = read_items(menu, atspi)
        calls.append(len(items))
        return items

    monkeypatch.setattr(a11y, "_menu_items", counted_items)
    every_item = lambda: a11y.linearize_tree(skip_closed_menus=False, peer=False)  # noqa: E731

    def item_lines(tree: str) -> int:
        return sum(line.lstrip().startswith("menu item ") for line in tree.splitlines())

    skipping = lambda: a11y.linearize_tree(peer=False)  # noqa: E731 - the shortcut is libatspi's path

    closed = _assert_reads_equal(every_item, skipping)
    assert calls and max(calls) <= 2, calls  # each closed menu: its first visible item tells
    _assert_reads_equal(every_item, a11y.linearize_tree)  # over the office's socket: it drops hidden items itself
    file_menu = a11y.find_nodes("menu", "File", app="soffice")[0]
    _keys(env, click=file_menu.center)
    try:
        _wait_tree(
            lambda tree: item_lines(tree) > item_lines(closed) + 5, "the open File menu's items", read=every_item
        )
        calls.clear()
        opened = _assert_reads_equal(every_item, skipping)
        assert max(calls) > 5 and item_lines(opened) > item_lines(closed) + 5, calls
        _assert_reads_equal(every_item, a11y.linearize_tree)
    finally:
        _keys(env, "Escape")
    _wait_tree(lambda tree: item_lines(tree) == item_lines(closed), "the File menu closed")
    _assert_reads_equal(every_item, skipping)
    _assert_reads_equal(every_item, a11y.linearize_tree)


def test_unknown_documents_and_sheets_fall_back_to_reading_every_cell(
    office: tuple[dict[str, str], uno_bridge.UnoConnection],
) -> None:
    _, connection = office
    contents = a11y_grid.uno_grid_contents(lambda: [connection])
    corners = (0, 0, 10, 10)
    assert contents("file:///nowhere.xlsx - LibreOffice Spreadsheets", "Sheet Budget", corners) is None
    assert contents("a Writer document", "Sheet Budget", corners) is None
    url = next(doc.getURL() for doc in connection.documents() if doc.getURL().endswith(GRID))
    assert contents(f"{url} - LibreOffice Spreadsheets", "Sheet Nope", corners) is None
    assert contents(f"{url} - LibreOffice Spreadsheets", "Table 1", corners) is None
    assert (0, 0) in (contents(f"{url} - LibreOffice Spreadsheets", "Sheet Budget", corners) or set())
    assert a11y_grid.uno_grid_contents(lambda: [])(f"{url} - LibreOffice Spreadsheets", "Sheet Budget", corners) is None


class CountingConnection:
    """A UNO connection that counts how often the office's documents are listed (a sheet looked up)."""

    def __init__(self, connection: uno_bridge.UnoConnection) -> None:
        self._connection, self.lookups = connection, 0

    def documents(self, timeout: float) -> list[Any]:
        self.lookups += 1
        return self._connection.documents(timeout=timeout)

    def call(self, *args: Any, **kwargs: Any) -> Any:
        return self._connection.call(*args, **kwargs)


def test_a_found_sheet_is_kept_while_it_answers_to_its_names(
    office: tuple[dict[str, str], uno_bridge.UnoConnection],
) -> None:
    _, connection = office
    counting = CountingConnection(connection)
    contents = a11y_grid.uno_grid_contents(lambda: [counting])
    document, budget = _sheet(connection, GRID)
    name, corners = f"{document.getURL()} - LibreOffice Spreadsheets", (0, 0, 10, 10)
    first = contents(name, "Sheet Budget", corners)
    assert first is not None and (0, 0) in first and counting.lookups == 1
    assert contents(name, "Sheet Budget", corners) == first and counting.lookups == 1  # the kept sheet answered

    # Another sheet takes the kept one's name: the kept sheet no longer answers to it and is looked up again.
    sheets = document.getSheets()
    budget.setName("Budget before")
    try:
        sheets.insertNewByName("Budget", 1)
        sheets.getByName("Budget").getCellRangeByName("C3").setString("new")
        assert contents(name, "Sheet Budget", corners) == {(2, 2)} and counting.lookups == 2
        assert contents(name, "Sheet Budget before", corners) == first and counting.lookups == 3
    finally:
        if sheets.hasByName("Budget"):
            sheets.removeByName("Budget")
        budget.setName("Budget")

    # A closed document's kept sheet is dropped, never answered from.
    other = connection.desktop.loadComponentFromURL("private:factory/scalc", "_blank", 0, ())
    other.getSheets().getByIndex(0).getCellRangeByName("B2").setString("x")
    other_name, other_sheet = (
        f"{other.getTitle()} - LibreOffice Spreadsheets",
        f"Sheet {other.getSheets().getByIndex(0).getName()}",
    )
    assert contents(other_name, other_sheet, corners) == {(1, 1)}
    lookups = counting.lookups
    assert contents(other_name, other_sheet, corners) == {(1, 1)} and counting.lookups == lookups
    other.close(True)
    assert contents(other_name, other_sheet, corners) is None and counting.lookups == lookups + 1


def test_static_properties_are_read_once_per_object() -> None:
    class Node:
        def __init__(self, path: str) -> None:
            self.app, self.path, self.reads = type("App", (), {"bus_name": ":1.7"})(), path, 0

        def get_role_name(self) -> str:
            self.reads += 1
            return "push button"

    kept, uncached = a11y_static.StaticProperties(max_objects=2), a11y_static.StaticProperties(enabled=False)
    first, second, third = Node("/a/1"), Node("/a/2"), Node("/a/3")
    assert [kept.role(first), kept.role(first), kept.role(Node("/a/1"))] == ["push button"] * 3
    assert first.reads == 1 and len(kept) == 1
    kept.role(second), kept.role(third)  # past max_objects: starts over
    assert len(kept) == 1
    uncached.role(second), uncached.role(second)
    assert second.reads == 3 and len(uncached) == 0


@given(st.text(max_size=60))
def test_document_and_sheet_names_round_trip(name: str) -> None:
    assert a11y_grid.document_key(name + " - LibreOffice Spreadsheets") == name
    assert a11y_grid.sheet_name("Sheet " + name) == name
    if not name.endswith(" - LibreOffice Spreadsheets"):
        assert a11y_grid.document_key(name) is None


def test_names_parse() -> None:
    assert a11y_grid.document_key("file:///a b.xlsx - LibreOffice Spreadsheets") == "file:///a b.xlsx"
    assert a11y_grid.document_key("Untitled 2 - LibreOffice Spreadsheets") == "Untitled 2"
    assert a11y_grid.document_key("file:///a.odt - LibreOffice Documents") is None
    assert a11y_grid.sheet_name("Sheet Sheet 1") == "Sheet 1"
    assert a11y_grid.sheet_name("Budget") is None
