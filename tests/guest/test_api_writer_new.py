"""WriterTools on a new, never-saved Writer document (no file): filling it and saving it the first time."""

from __future__ import annotations

import io
from collections.abc import Iterator

import pytest
from odf import teletype
from odf import text as odf_text
from odf.opendocument import load as load_odf

from desktop_gym.guest.client import GuestClient
from desktop_gym.guest.types import GuestError

from .writer_api_support import call

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def writer(_session_guest: GuestClient) -> Iterator[GuestClient]:
    """Writer started without a file: one empty untitled document."""
    _session_guest.exec("mkdir -p ~/api-new", shell=True)
    _session_guest.launch_app("writer")
    try:
        yield _session_guest
    finally:
        _session_guest.kill_apps()


def test_a_new_document_is_filled_from_its_empty_paragraph(writer: GuestClient) -> None:
    assert call(writer, "list_paragraphs") == [{"index": 0, "style": "Standard", "text": ""}]
    assert call(writer, "append_paragraph", text="Minutes", style="Title") == "appended paragraph 0"
    assert call(writer, "append_paragraph", text="Present: all.") == "appended paragraph 1"
    listed = call(writer, "list_paragraphs")
    assert [(p["style"], p["text"]) for p in listed] == [("Title", "Minutes"), ("Text body", "Present: all.")]


def test_saving_needs_a_path_the_first_time(writer: GuestClient) -> None:
    with pytest.raises(GuestError, match="the document has never been saved; give a path"):
        call(writer, "save")
    with pytest.raises(GuestError, match="the document has never been saved; give a path"):
        call(writer, "save", file_format="pdf")
    path = call(writer, "save", path="~/api-new/minutes.odt")
    call(writer, "insert_text", text=" Chair: Ada.")
    assert call(writer, "save") == path
    document = load_odf(io.BytesIO(writer.get_file(path)))
    texts = [teletype.extractText(p) for p in document.text.getElementsByType(odf_text.P)]
    assert texts == ["Minutes", "Present: all. Chair: Ada."]
    pdf = call(writer, "save", file_format="pdf")
    assert pdf.endswith("/api-new/minutes.pdf") and writer.get_file(pdf).startswith(b"%PDF-")
