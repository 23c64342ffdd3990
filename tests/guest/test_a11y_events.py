"""The event-invalidated tree cache (:mod:`a11y_events`) gives the text of a full walk.

One real Calc on a private X server and session bus, read in-process. The edits go to a second,
unsaved document (the shared one stays as the other a11y tests expect it). After random action
sequences (typing into cells, arrow keys, UNO edits, a dialog, a menu, a scroll, a window switch),
partly under CPU load, the cached read equals a full walk; with invalidation switched off
(``_ignore_events``) the same kind of change leaves the cached read stale, so the check has teeth.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from desktop_gym.guest import a11y, a11y_events
from desktop_gym.guest.a11y_grid import uno_grid_contents
from desktop_gym.guest.apps import uno_bridge
from desktop_gym.testing import cpu_load

from ..support.soffice import needs_desktop_tools
from .conftest import A11Y_DOCUMENT as GRID
from .test_a11y_cache import _assert_reads_equal, _keys, _sheet, _wait_tree

pytestmark = [needs_desktop_tools, pytest.mark.slow]

Office = tuple[dict[str, str], uno_bridge.UnoConnection]
_SECOND: list[Any] = []  # the unsaved second document, once the fixture made it
ACTIONS = ("type", "right", "down", "uno", "scroll", "dialog", "menu", "switch")


@pytest.fixture(scope="module")
def office(a11y_calc_office: Office, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Office]:
    """The shared Calc on budget.xlsx, with a second document (sheet "Events") in front, to edit."""
    import openpyxl
    import uno

    env, connection = a11y_calc_office
    _wait_tree(lambda tree: 'table "Sheet Budget"' in tree, f"the Calc grid of {GRID}")
    path = tmp_path_factory.mktemp("a11y-events") / "events.xlsx"
    workbook = openpyxl.Workbook()
    workbook.active.title = "Events"  # its grid: table "Sheet Events" (a renamed sheet keeps its old a11y name)
    workbook.active["A1"] = "other"
    workbook.save(path)
    second = connection.desktop.loadComponentFromURL(uno.systemPathToFileUrl(str(path)), "_blank", 0, ())
    _SECOND[:] = [second]
    _wait_tree(lambda tree: 'table "Sheet Events"' in tree and 'A1="other"' in tree, "the second document")
    yield a11y_calc_office
    _SECOND.clear()
    second.close(True)


@pytest.fixture(autouse=True)
def fresh_cache() -> Iterator[a11y_events.EventCache]:
    """Every test starts and ends with an empty cache (a stale one must not leak into the next)."""
    a11y.EVENT_CACHE.forget("test start")
    yield a11y.EVENT_CACHE
    a11y.EVENT_CACHE._ignore_events = False
    a11y.EVENT_CACHE.forget("test end")


def _reads(connection: uno_bridge.UnoConnection) -> tuple[Any, Any]:
    grid = uno_grid_contents(lambda: [connection])  # as the guest server reads the tree
    return (
        lambda: a11y.linearize_tree(grid_contents=grid),
        lambda: a11y.linearize_tree(grid_contents=grid, event_cache=True),
    )


def _front(connection: uno_bridge.UnoConnection | None, which: str) -> None:
    document = _SECOND[0] if which == "second" else _sheet(connection, GRID)[0]
    frame = document.getCurrentController().getFrame()
    frame.getContainerWindow().toFront()
    frame.activate()


def _click_grid(env: dict[str, str]) -> None:
    """Bring the second document's grid the keyboard focus."""
    _front(None, "second")
    _wait_tree(lambda tree: 'table "Sheet Events"' in tree, "the second document's grid")
    _keys(env, click=a11y.find_nodes("table", "Sheet Events")[0].center)
    _wait_tree(lambda tree: 'table "Sheet Events" [focused' in tree, "the second document's grid focused")


def _act(office: Office, action: str, value: int) -> None:
    env, connection = office
    table = lambda: a11y.find_nodes("table", "Sheet Events")[0]  # noqa: E731
    if action == "type":
        _keys(env, "Return", text=f"t{value}")
    elif action in ("right", "down"):
        _keys(env, *[action.capitalize()] * (1 + value % 3))
    elif action == "uno":
        sheet = _SECOND[0].getSheets().getByIndex(0)
        sheet.getCellByPosition(value % 6, value % 9).setString(f"u{value}")
    elif action == "scroll":
        from desktop_gym.guest.input import InputController

        controller = InputController(env["DISPLAY"])
        try:
            controller.scroll(*table().center, 0, 3 if value % 2 else -3)
        finally:
            controller.close()
    elif action == "dialog":
        _keys(env, "ctrl+h")
        _wait_tree(lambda tree: 'dialog "Find and Replace"' in tree, "the Find and Replace dialog")
        _assert_reads_equal(*_reads(connection))
        _keys(env, "Escape")
        _wait_tree(lambda tree: 'dialog "Find and Replace"' not in tree, "the dialog closed")
    elif action == "menu":
        _keys(env, click=a11y.find_nodes("menu", "Edit", app="soffice")[0].center)
        _wait_tree(lambda tree: 'menu item "Undo' in tree, "the open Edit menu")
        _assert_reads_equal(*_reads(connection))
        _keys(env, "Escape")
    elif action == "switch":  # to the shared document and back
        _front(connection, GRID)
        _assert_reads_equal(*_reads(connection))
        _click_grid(env)


def _run(office: Office, actions: list[tuple[str, int]]) -> None:
    full, cached = _reads(office[1])
    _click_grid(office[0])
    _assert_reads_equal(full, cached)
    for action, value in actions:
        _act(office, action, value)
        _assert_reads_equal(full, cached)


@settings(
    max_examples=5,
    deadline=None,
    phases=[Phase.explicit, Phase.generate],  # no shrinking: each try drives a real desktop
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(st.lists(st.tuples(st.sampled_from(ACTIONS), st.integers(0, 99)), min_size=3, max_size=4))
def test_cached_tree_equals_a_full_walk_after_random_actions(office: Office, actions: list[tuple[str, int]]) -> None:
    _run(office, actions)
    assert a11y.EVENT_CACHE.stats["hits"] > 0


def test_cached_tree_equals_a_full_walk_under_load(office: Office) -> None:
    actions = [("type", 1), ("right", 2), ("dialog", 0), ("switch", 0), ("down", 1), ("scroll", 1)]
    with cpu_load(processes=3, seconds=60):
        _run(office, actions)


def test_still_desktop_is_read_from_the_cache(office: Office) -> None:
    full, cached = _reads(office[1])
    cached()  # registers the listener; the app is trusted once an event from it arrives
    _click_grid(office[0])
    _wait_tree(lambda tree: a11y.EVENT_CACHE.stats["events"] > 0, "an event from Calc", read=cached)
    _assert_reads_equal(full, cached)
    stats = a11y.EVENT_CACHE.stats
    misses, hits = stats["misses"], stats["hits"]
    _assert_reads_equal(full, cached)
    assert stats["hits"] - hits > 300, dict(stats)  # a Calc window keeps ~500 properties
    assert stats["misses"] - misses < stats["hits"] - hits, dict(stats)


def test_ignoring_events_leaves_the_cache_stale(office: Office, fresh_cache: a11y_events.EventCache) -> None:
    """The teeth of the tests above: without invalidation, a moved cell cursor is missed."""
    env, connection = office
    full, cached = _reads(connection)
    _click_grid(env)
    document = _SECOND[0]
    sheet = document.getSheets().getByIndex(0)
    document.getCurrentController().select(sheet.getCellRangeByName("B2"))
    _wait_tree(lambda tree: 'text "" text="B2"' in tree, "the cursor in B2 (the Name Box)", read=full)
    _assert_reads_equal(full, cached)
    fresh_cache._ignore_events = True
    document.getCurrentController().select(sheet.getCellRangeByName("C7"))  # the Name Box's text changes
    _wait_tree(lambda tree: 'text "" text="C7"' in tree, "the cursor in C7 (the Name Box)", read=full)
    assert 'text "" text="C7"' not in cached(), "the cached read saw the change without events"


def test_doubt_walks_in_full(office: Office, monkeypatch: pytest.MonkeyPatch) -> None:
    full, cached = _reads(office[1])
    cache = a11y.EVENT_CACHE
    cached()
    assert cache.last_full_reason  # the first walk after forget()
    cached()
    assert cache.last_full_reason == ""
    monkeypatch.setattr(a11y_events, "MAX_QUIET_S", 0.0)
    cached()
    assert "since the last walk" in cache.last_full_reason
    monkeypatch.setattr(a11y_events, "MAX_QUIET_S", 30.0)
    monkeypatch.setattr(a11y_events, "MAX_EVENTS_PER_WALK", 0)
    _keys(office[0], "Right")
    _wait_tree(lambda tree: cache.stats["events"] > 0, "an event")
    cached()
    assert "events since the last walk" in cache.last_full_reason or cache.last_full_reason, cache.last_full_reason
    _assert_reads_equal(full, cached)
