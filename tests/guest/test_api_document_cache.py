"""API calls keep the document they act on between calls, and follow the focus without document events.

Through the real CallApi RPC on the shared desktop's Calc: a second document opened from the
keyboard (no UNO event reaches the guest), a dialog over it, and a switch back must each make the
next call act on the right document; plus the cache's own rules with stand-in objects.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from desktop_gym.guest.apps.uno_document_cache import DocumentCache, focused_document
from desktop_gym.guest.client import GuestClient
from desktop_gym.polling import poll_until

from .calc_api_support import call, launched_calc


@pytest.fixture(scope="module")
def calc(_session_guest: GuestClient) -> Iterator[GuestClient]:
    yield from launched_calc(_session_guest, "api_focus")


def _focused_title(guest: GuestClient, starts: str, what: str) -> int:
    def focused() -> int | None:
        window = guest.focused_window()
        return window.window_id if window is not None and window.title.startswith(starts) else None

    return poll_until(focused, 30, what)


@pytest.mark.slow
def test_api_calls_follow_the_focus_to_the_right_document(calc: GuestClient) -> None:
    first = _focused_title(calc, "api_focus", "the api_focus.xlsx window focused")
    assert call(calc, "list_sheets") == ["Data", "Notes"]
    assert call(calc, "get_cell_value", cell="B2") == "Apples"

    calc.hotkey(["ctrl", "n"])  # a new document in a new window: no document event reaches the guest
    _focused_title(calc, "Untitled", "the new Untitled document focused")
    assert call(calc, "list_sheets") == ["Sheet1"]
    call(calc, "set_cell_value", cell="B2", value="second")

    calc.hotkey(["ctrl", "1"])  # Format Cells, a dialog over the new document
    _focused_title(calc, "Format Cells", "the Format Cells dialog focused")
    assert call(calc, "get_cell_value", cell="B2") == "second"
    calc.press("Escape")
    _focused_title(calc, "Untitled", "the new document focused again")

    calc.activate_window(first)
    _focused_title(calc, "api_focus", "the api_focus.xlsx window focused again")
    assert call(calc, "get_cell_value", cell="B2") == "Apples"
    assert call(calc, "list_sheets") == ["Data", "Notes"]


class StandInConnection:
    """Only its identity matters to the cache."""


class StandInDocument:
    """A document whose frame has a title (controller, frame and document in one)."""

    def __init__(self, title: str) -> None:
        self.title = title

    def getCurrentController(self):  # noqa: N802 - UNO's name
        return self

    def getFrame(self):  # noqa: N802
        return self

    def getTitle(self) -> str:  # noqa: N802
        return self.title


def test_cache_keeps_one_document_per_connection_and_focus_key() -> None:
    cache, office, other = DocumentCache(), StandInConnection(), StandInConnection()
    assert cache.kept(office, ("w1",)) is None
    cache.keep(office, ("w1",), "a")
    assert cache.kept(office, ("w1",)) == "a"
    assert cache.kept(office, ("w2",)) is None  # another window took the focus
    assert cache.kept(other, ("w1",)) is None  # another office
    assert cache.kept(office, None) is None  # no key: nothing is kept
    assert cache.last(office) == "a" and cache.last(other) is None  # what a dialog's call acts on
    cache.forget(office)
    assert cache.kept(office, ("w1",)) is None


def test_the_focused_document_is_the_one_whose_frame_has_the_focused_title() -> None:
    first, second = StandInDocument("a.xlsx - LibreOffice Calc"), StandInDocument("Untitled 2 - LibreOffice Calc")
    documents = [first, second]
    assert focused_document(documents, (7, b"Untitled 2 - LibreOffice Calc")) is second
    assert focused_document(documents, (8, "a.xlsx - LibreOffice Calc")) is first
    assert focused_document(documents, (9, b"Format Cells")) is None  # a dialog
    assert focused_document(documents, (None, None)) is None
    assert focused_document(documents, None) is None
