"""WriterTools text, paragraph and find & replace methods on a live Writer document.

Every change goes through ``guest.call_api`` (the real CallApi RPC) and is checked in the docx the
document is then saved as, read with python-docx, or in the accessibility tree of the Writer
window: independent paths from the UNO getters.
"""

from __future__ import annotations

import io
from collections.abc import Iterator

import docx
import pytest

from desktop_gym.guest.client import GuestClient
from desktop_gym.guest.types import GuestError

from .writer_api_support import (
    PARAGRAPHS,
    TITLE,
    call,
    document_children,
    launched_writer,
    saved_docx,
)

pytestmark = pytest.mark.slow

TEXTS = [text for _, text in PARAGRAPHS]


@pytest.fixture(scope="module")
def writer(_session_guest: GuestClient) -> Iterator[GuestClient]:
    """One Writer instance on the source document for this module's tests (they run in order)."""
    yield from launched_writer(_session_guest, "api_text")


def body_texts(guest: GuestClient) -> list[str]:
    return [paragraph.text for paragraph in saved_docx(guest).paragraphs]


def test_read_text_and_paragraphs(writer: GuestClient) -> None:
    assert call(writer, "get_text") == "\n".join(TEXTS)
    listed = call(writer, "list_paragraphs")
    assert [p["text"] for p in listed] == TEXTS
    assert [p["index"] for p in listed] == list(range(len(TEXTS)))
    assert [p["style"] for p in listed[:3]] == ["Heading 1", "Standard", "Heading 2"]
    assert len(call(writer, "list_paragraphs", max_paragraphs=2)) == 2


def test_save_in_place_keeps_the_docx(writer: GuestClient) -> None:
    call(writer, "append_paragraph", text="Saved in place")
    path = call(writer, "save")
    assert path.endswith("/api_text.docx")
    document = docx.Document(io.BytesIO(writer.get_file(path)))
    assert [p.text for p in document.paragraphs] == [*TEXTS, "Saved in place"]
    call(writer, "delete_paragraph", paragraph=-1)


def test_insert_append_set_and_delete_paragraphs(writer: GuestClient) -> None:
    assert call(writer, "append_paragraph", text="Appendix") == f"appended paragraph {len(TEXTS)}"
    assert call(writer, "insert_paragraph", index=1, text="By the team", style="Subtitle") == "inserted paragraph 1"
    assert call(writer, "insert_text", text="Draft: ", paragraph=0, position="start") == f"Draft: {TITLE}"
    assert call(writer, "insert_text", text=" (end)") == "Appendix (end)"  # default: the last paragraph's end
    call(writer, "set_paragraph_text", paragraph=-2, text="Thank you.")
    document = saved_docx(writer)
    texts = [p.text for p in document.paragraphs]
    assert texts == [f"Draft: {TITLE}", "By the team", *TEXTS[1:-1], "Thank you.", "Appendix (end)"]
    assert document.paragraphs[1].style.name == "Subtitle"
    assert document.paragraphs[0].style.name == "Heading 1"  # inserting text kept the heading
    assert call(writer, "delete_paragraph", paragraph=1) == "deleted paragraph 1 ('By the team')"
    call(writer, "delete_paragraph", paragraph=-1)
    call(writer, "set_paragraph_text", paragraph=0, text=TITLE)
    call(writer, "set_paragraph_text", paragraph=-1, text=TEXTS[-1])
    assert body_texts(writer) == TEXTS


def test_append_after_heading_uses_the_follow_style(writer: GuestClient) -> None:
    call(writer, "append_paragraph", text="Outlook", style="Heading 2")
    call(writer, "append_paragraph", text="Growth continues.")
    paragraphs = saved_docx(writer).paragraphs
    assert [(p.style.name, p.text) for p in paragraphs[-2:]] == [
        ("Heading 2", "Outlook"),
        ("Normal", "Growth continues."),  # Word documents: Normal follows headings
    ]
    call(writer, "delete_paragraph", paragraph=-1)
    call(writer, "delete_paragraph", paragraph=-1)


def test_new_paragraph_shows_in_the_window(writer: GuestClient, wait_until) -> None:
    before = document_children(writer.a11y_tree())
    call(writer, "append_paragraph", text="Shown in the window")
    after = wait_until(
        lambda: (kinds := document_children(writer.a11y_tree())) != before and kinds,
        timeout=10.0,
        what="the Writer window's document to gain a paragraph",
    )
    assert after == [*before, "paragraph"]
    call(writer, "delete_paragraph", paragraph=-1)


def test_find_replace(writer: GuestClient) -> None:
    assert call(writer, "find_replace", find="apples", replace="Oranges") == 2  # case-insensitive by default
    assert call(writer, "find_replace", find="Oranges", replace="apples", match_case=True) == 2
    assert call(writer, "find_replace", find="sold", replace="went", whole_words=True) == 2
    assert call(writer, "find_replace", find="([0-9]+) percent", replace="$1%", regex=True) == 2
    assert call(writer, "find_replace", find="zebra", replace="x") == 0
    texts = body_texts(writer)
    assert texts[3] == "Sales grew by 10% in 2024 and 12% in 2025."
    assert texts[4] == "apples and pears went well; apples went best."
    assert call(writer, "find_replace", find=r"\p{Lu}hanks", replace="Thanks", regex=True) == 1  # ICU, not Python
    with pytest.raises(GuestError, match="find is not a valid regular expression .*nothing was replaced"):
        call(writer, "find_replace", find="([0-9]+", replace="", regex=True)
    with pytest.raises(GuestError, match="find must not be empty"):
        call(writer, "find_replace", find="", replace="x")


def test_argument_errors_name_the_problem(writer: GuestClient) -> None:
    with pytest.raises(
        GuestError, match=r"paragraph 99 is out of range: the document has 6 paragraph\(s\), numbered 0-5"
    ):
        call(writer, "set_paragraph_text", paragraph=99, text="x")
    with pytest.raises(GuestError, match=r"index -7 is out of range"):
        call(writer, "insert_paragraph", index=-7, text="x")
    with pytest.raises(GuestError, match=r"no paragraph style named 'Headng 2' \(did you mean 'Heading 2'"):
        call(writer, "append_paragraph", text="x", style="Headng 2")
    with pytest.raises(GuestError, match=r"unknown argument 'paragraf' \(did you mean 'paragraph'\?\)"):
        call(writer, "insert_text", text="x", paragraf=1)
    with pytest.raises(GuestError, match=r"position must be one of 'start', 'end', got 'middle'"):
        call(writer, "insert_text", text="x", position="middle")
    with pytest.raises(GuestError, match=r"missing the required argument 'text'"):
        call(writer, "append_paragraph")
    assert body_texts(writer)[:2] == TEXTS[:2]  # nothing reached the document


def test_unknown_method_names_the_closest(writer: GuestClient) -> None:
    with pytest.raises(
        GuestError, match=r"WriterTools has no method 'apend_paragraph' \(did you mean 'append_paragraph'"
    ):
        call(writer, "apend_paragraph", text="x")
    with pytest.raises(GuestError, match="no method 'summary'"):
        call(writer, "summary")


def test_summary_outlines_the_document(writer: GuestClient) -> None:
    call(writer, "insert_table", rows=2, columns=3, paragraph=1)
    text = writer.app_summary("writer")
    short = writer.app_summary("writer", max_chars=60)
    lines = text.splitlines()
    words = sum(len(t.split()) for t in body_texts(writer))
    assert lines[0] == f"Paragraphs: {len(TEXTS)}, words: {words}, tables: 1"
    assert "  [0] H1: Quarterly Report" in lines and "  [2] H2: Sales" in lines
    assert "Table 0 (Table1): 2x3" in lines
    assert f"  [1] (Standard) {TEXTS[1]}" in lines
    assert len(short) == 60 and short.endswith("...")
