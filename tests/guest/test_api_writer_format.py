"""WriterTools formatting methods on a live Writer document, checked in the saved docx (python-docx).

Also checks that a heading set through the API shows in the window's accessibility tree.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from docx.enum.text import WD_ALIGN_PARAGRAPH
from docx.shared import RGBColor

from desktop_gym.guest.client import GuestClient
from desktop_gym.guest.types import GuestError

from .writer_api_support import call, document_children, launched_writer, list_format, saved_docx

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def writer(_session_guest: GuestClient) -> Iterator[GuestClient]:
    """One Writer instance on the source document for this module's tests (they run in order)."""
    yield from launched_writer(_session_guest, "api_format")


def runs_of(paragraph) -> dict[str, object]:
    """Each non-empty run's text -> the run (python-docx splits runs where formatting changes)."""
    return {run.text: run for run in paragraph.runs if run.text}


def test_bold_italic_underline_on_matches_and_paragraphs(writer: GuestClient) -> None:
    assert call(writer, "set_bold", match_text="fox") == "1 occurrence(s) of 'fox' bold"
    assert call(writer, "set_italic", paragraph=3) == "paragraph 3 italic"
    assert call(writer, "set_underline", match_text="percent", paragraph=3) == (
        "2 occurrence(s) of 'percent' in paragraph 3 underlined"
    )
    paragraphs = saved_docx(writer).paragraphs
    fox = runs_of(paragraphs[1])
    assert fox["fox"].bold and not fox["The quick brown "].bold
    assert all(run.italic for run in paragraphs[3].runs)
    underlined = [run.text for run in paragraphs[3].runs if run.underline]
    assert underlined == ["percent", "percent"]
    assert not any(run.italic or run.bold for run in paragraphs[4].runs)
    call(writer, "set_bold", bold=False, match_text="fox")
    call(writer, "set_italic", italic=False, paragraph=3)
    paragraphs = saved_docx(writer).paragraphs
    assert not any(run.bold for run in paragraphs[1].runs)
    assert not any(run.italic for run in paragraphs[3].runs)


def test_font_name_size_and_colour(writer: GuestClient) -> None:
    call(writer, "set_font_name", font_name="DejaVu Serif", paragraph=0)
    call(writer, "set_font_size", size=20, match_text="Report")
    call(writer, "set_font_color", color="#FF0000", match_text="lazy")
    call(writer, "set_font_size", size=9)  # the whole text
    call(writer, "set_font_size", size=13.5, paragraph=-1)
    paragraphs = saved_docx(writer).paragraphs
    assert {run.font.name for run in paragraphs[0].runs} == {"DejaVu Serif"}
    assert runs_of(paragraphs[1])["lazy"].font.color.rgb == RGBColor(0xFF, 0, 0)
    assert {run.font.size.pt for run in paragraphs[2].runs if run.text} == {9}
    assert {run.font.size.pt for run in paragraphs[-1].runs if run.text} == {13.5}


def test_alignment_and_line_spacing(writer: GuestClient) -> None:
    call(writer, "set_alignment", alignment="center", paragraph=0)
    call(writer, "set_alignment", alignment="JUSTIFY", paragraph=1)
    call(writer, "set_alignment", alignment="right", paragraph=-1)
    call(writer, "set_line_spacing", spacing=1.5, paragraph=1)
    call(writer, "set_line_spacing", spacing=2, paragraph=3)
    paragraphs = saved_docx(writer).paragraphs
    assert paragraphs[0].alignment == WD_ALIGN_PARAGRAPH.CENTER
    assert paragraphs[1].alignment == WD_ALIGN_PARAGRAPH.JUSTIFY
    assert paragraphs[-1].alignment == WD_ALIGN_PARAGRAPH.RIGHT
    assert paragraphs[2].alignment in (None, WD_ALIGN_PARAGRAPH.LEFT)
    assert paragraphs[1].paragraph_format.line_spacing == 1.5
    assert paragraphs[3].paragraph_format.line_spacing == 2.0
    call(writer, "set_alignment", alignment="left")  # every paragraph
    assert {p.alignment for p in saved_docx(writer).paragraphs} <= {None, WD_ALIGN_PARAGRAPH.LEFT}


def test_paragraph_styles_and_headings(writer: GuestClient, wait_until) -> None:
    assert call(writer, "set_paragraph_style", paragraph=4, style="quotations") == "paragraph 4 has style 'Quotations'"
    assert call(writer, "set_paragraph_style", paragraph=5, style="Body Text") == "paragraph 5 has style 'Text body'"
    call(writer, "set_heading", paragraph=1, level=3)
    styles = [p.style.name for p in saved_docx(writer).paragraphs]
    assert styles[:6] == ["Heading 1", "Heading 3", "Heading 2", "Normal", "Quotations", "Body Text"]
    wait_until(
        lambda: document_children(writer.a11y_tree())[:3] == ["heading", "heading", "heading"],
        timeout=10.0,
        what="paragraph 1 to show as a heading in the window",
    )
    with pytest.raises(GuestError, match=r"no paragraph style named 'Headline' \(did you mean"):
        call(writer, "set_paragraph_style", paragraph=1, style="Headline")
    with pytest.raises(GuestError, match="level must be between 1 and 10, got 11"):
        call(writer, "set_heading", paragraph=1, level=11)
    call(writer, "set_paragraph_style", paragraph=1, style="Default Paragraph Style")
    assert saved_docx(writer).paragraphs[1].style.name == "Normal"


def test_bulleted_and_numbered_lists(writer: GuestClient) -> None:
    for text in ("first", "second", "third"):
        call(writer, "append_paragraph", text=text)
    assert call(writer, "set_list", first_paragraph=-3, last_paragraph=-2) == "paragraphs 6-7 are a bullet list"
    call(writer, "set_list", first_paragraph=3, last_paragraph=4, list_type="numbered")
    document = saved_docx(writer)
    formats = [list_format(document, p) for p in document.paragraphs]
    assert formats == [None, None, None, "decimal", "decimal", None, "bullet", "bullet", None]
    call(writer, "set_list", first_paragraph=3, last_paragraph=4, list_type="none")
    document = saved_docx(writer)
    assert [list_format(document, p) for p in document.paragraphs][3:5] == [None, None]
    with pytest.raises(GuestError, match=r"last_paragraph \(2\) comes before first_paragraph \(5\)"):
        call(writer, "set_list", first_paragraph=5, last_paragraph=2)


def test_formatting_errors_name_the_problem(writer: GuestClient) -> None:
    with pytest.raises(GuestError, match=r"match_text 'zebra' does not occur \(the search is case-sensitive\)"):
        call(writer, "set_bold", match_text="zebra")
    with pytest.raises(GuestError, match="match_text 'fox' does not occur in paragraph 0"):
        call(writer, "set_italic", match_text="fox", paragraph=0)
    with pytest.raises(GuestError, match="color must be a hex colour like '#FF0000', got 'red'"):
        call(writer, "set_font_color", color="red")
    with pytest.raises(GuestError, match="size must be between 1 and 400 points, got 0"):
        call(writer, "set_font_size", size=0)
    with pytest.raises(GuestError, match=r"alignment must be one of .*got 'centre' \(did you mean 'center'\?\)"):
        call(writer, "set_alignment", alignment="centre")
    with pytest.raises(GuestError, match="spacing must be between 0.5 and 4"):
        call(writer, "set_line_spacing", spacing=10)
    with pytest.raises(GuestError, match="bold must be True or False"):
        call(writer, "set_bold", bold="yes")
