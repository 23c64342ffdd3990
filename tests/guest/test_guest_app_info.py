"""The GetAppInfo RPC: which launched app has the focus, its tool class and its API summary."""

from __future__ import annotations

import pytest

from desktop_gym.guest.client import GuestClient, GuestError

from .calc_api_support import call, workbook_bytes

pytestmark = pytest.mark.slow


def test_no_focused_app_and_apis_without_an_app(guest: GuestClient) -> None:
    assert guest.app_info()["app"] == ""
    assert guest.app_info("os").to_dict() == {
        "app": "os",
        "tool_class": "OSTools",
        "summary": "",
        "window_id": None,
        "modified": False,
    }
    with pytest.raises(GuestError, match="no running calc app"):
        guest.app_info("calc")
    with pytest.raises(GuestError, match="no app API for 'NoSuchTools'"):
        guest.app_info("NoSuchTools")


def test_focused_calc_then_terminal(guest: GuestClient) -> None:
    calc = guest.launch_app("calc", guest.put_file("~/info.xlsx", workbook_bytes()))
    info = guest.app_info()
    assert (info["app"], info["tool_class"], info["window_id"]) == ("calc", "CalcTools", calc.window_id)
    assert info["summary"].startswith("Sheets: Data, Notes\nActive sheet: Data\nUsed range: A1:D6")
    call(guest, "set_cell_value", cell="B3", value="changed-live")
    assert "changed-live" in guest.app_info()["summary"]  # the live document, not the file
    assert guest.app_info("calc", max_chars=0, check_modified=True)["modified"] is True
    assert guest.document_modified("calc") is True and guest.focused_app().app == "calc"
    assert guest.focused_app().summary == "" and "changed-live" in guest.app_summary()
    call(guest, "save")
    assert guest.app_info("calc", max_chars=0, check_modified=True)["modified"] is False
    assert guest.app_info("calc", max_chars=0)["modified"] is False  # not asked for
    short = guest.app_info(max_chars=12)["summary"]
    assert short == "Sheets: D..." and len(short) == 12
    assert guest.app_info(max_chars=0)["summary"] == ""

    terminal = guest.launch_app("terminal")
    focused = guest.app_info()
    assert (focused["app"], focused["tool_class"], focused["summary"]) == ("terminal", "", "")
    assert focused["window_id"] == terminal.window_id
    named = guest.app_info("CalcTools")  # a named app answers even without the focus
    assert named["app"] == "calc" and "changed-live" in named["summary"]


def test_focused_writer_and_impress_summaries(guest: GuestClient) -> None:
    from desktop_gym.tasks.artifacts import docx_bytes, pptx_bytes

    guest.launch_app("writer", guest.put_file("~/info.docx", docx_bytes(["a paragraph to find"], heading="Head")))
    info = guest.app_info()
    assert (info["app"], info["tool_class"]) == ("writer", "WriterTools")
    assert "a paragraph to find" in info["summary"]
    slides = [{"layout": "Title and Content", "title": "Slide title to find", "body": ["point"]}]
    guest.launch_app("impress", guest.put_file("~/info.pptx", pptx_bytes(slides)))
    info = guest.app_info()
    assert (info["app"], info["tool_class"]) == ("impress", "ImpressTools")
    assert "Slide title to find" in info["summary"]
