"""Text-document verifiers on documents written by python-docx, and re-saved by real LibreOffice (slow)."""

from __future__ import annotations

import io
from pathlib import Path

import docx
import pytest
from docx.enum.section import WD_ORIENT
from docx.enum.text import WD_ALIGN_PARAGRAPH
from docx.shared import Cm, Pt

from desktop_gym.verifiers import (
    docx_paragraphs,
    verify_document_text,
    verify_docx_alignment,
    verify_docx_font,
    verify_docx_has_paragraph,
    verify_docx_header_footer,
    verify_docx_line_spacing,
    verify_docx_page_setup,
    verify_docx_paragraph_count,
    verify_docx_paragraph_style,
    verify_docx_tables,
)

from .libreoffice_convert import resaved_fixture, saved_bytes


def build_document() -> bytes:
    """A report with a heading, formatted runs, aligned and spaced paragraphs, a table, page setup."""
    document = docx.Document()
    document.add_heading("Status report", level=1)
    intro = document.add_paragraph("Intro text. ")
    run = intro.add_run("Important words")
    run.bold = run.italic = run.underline = True
    run.font.name, run.font.size = "Arial", Pt(14)
    document.add_paragraph("Centered line").alignment = WD_ALIGN_PARAGRAPH.CENTER
    document.add_paragraph("Justified line").alignment = WD_ALIGN_PARAGRAPH.JUSTIFY
    document.add_paragraph("Spaced line").paragraph_format.line_spacing = 1.5
    document.add_paragraph("Quoted line", style="Quote")
    table = document.add_table(rows=2, cols=2)
    for (row, col), text in {(0, 0): "Name", (0, 1): "Qty", (1, 0): "Tea", (1, 1): "3"}.items():
        table.cell(row, col).text = text
    section = document.sections[0]
    section.orientation = WD_ORIENT.LANDSCAPE
    section.page_width, section.page_height = Cm(29.7), Cm(21.0)
    section.left_margin, section.top_margin = Cm(2.5), Cm(1.5)
    section.header.paragraphs[0].text = "ACME Confidential"
    section.footer.paragraphs[0].text = "Page footer"
    return saved_bytes(document)


@pytest.fixture(scope="module")
def report() -> bytes:
    return build_document()


lo_report = resaved_fixture(
    build_document, "report.docx", "docx:MS Word 2007 XML", "The report re-saved by LibreOffice Writer as docx."
)


def test_paragraph_and_text(report: bytes) -> None:
    assert docx_paragraphs(report)[0] == "Status report"
    assert verify_docx_has_paragraph(report, "Centered line").success
    assert verify_docx_has_paragraph(report, "Important", exact=False).success
    last = verify_docx_has_paragraph(report, "Centered line", last=True)
    assert not last.success and "the last paragraph is" in last.reason
    assert "no paragraph equals 'Important'" in verify_docx_has_paragraph(report, "Important").reason
    assert verify_document_text(report, "important WORDS", ignore_case=True).success
    assert "does not contain 'Missing words'" in verify_document_text(report, "Missing words").reason


def test_whole_text_equals(report: bytes) -> None:
    body = "Status report\nIntro text. Important words\nCentered line\nJustified line\nSpaced line\nQuoted line"
    assert verify_document_text(report, body + "\nName\nQty\nTea\n3", match="equals").success
    result = verify_document_text(report, body.replace("Spaced", "Spacey"), match="equals")
    assert not result.success and "differs at paragraph 5: expected 'Spacey line', found 'Spaced line'" in result.reason


def test_paragraph_count(report: bytes) -> None:
    assert verify_docx_paragraph_count(report, count=6).success
    assert verify_docx_paragraph_count(report, min_count=2, max_count=6).success
    assert "expected 7 non-empty paragraphs, found 6" in verify_docx_paragraph_count(report, count=7).reason


def test_font_of_runs(report: bytes) -> None:
    assert verify_docx_font(
        report, "Important words", name="Arial", size=14, bold=True, italic=True, underline=True
    ).success
    assert verify_docx_font(report, "Intro text", bold=False, italic=False).success
    result = verify_docx_font(report, "Intro text. Important", bold=True)
    assert not result.success and "bold expected True, found False" in result.reason
    assert "size expected 12, found 14.0" in verify_docx_font(report, "Important", size=12).reason
    assert "not found" in verify_docx_font(report, "absent text", bold=True).reason


def test_paragraph_style_and_heading(report: bytes) -> None:
    assert verify_docx_paragraph_style(report, "Status report", heading=1).success
    assert verify_docx_paragraph_style(report, "Quoted line", style="quote").success
    assert "heading level expected 2, found 1" in verify_docx_paragraph_style(report, "Status", heading=2).reason
    assert (
        "style expected 'Heading 1', found 'Normal'"
        in verify_docx_paragraph_style(report, "Centered", style="Heading 1").reason
    )


def test_alignment_and_line_spacing(report: bytes) -> None:
    assert verify_docx_alignment(report, "Centered line", "center").success
    assert verify_docx_alignment(report, "Justified line", "justify").success
    assert "expected right, found left" in verify_docx_alignment(report, "Intro", "right").reason
    assert verify_docx_line_spacing(report, "Spaced line", multiple=1.5).success
    result = verify_docx_line_spacing(report, "Spaced line", multiple=2.0)
    assert "expected 2.0 (multiple), found 1.5 (multiple)" in result.reason
    with pytest.raises(ValueError, match="exactly one of"):
        verify_docx_line_spacing(report, "Spaced", multiple=1.0, points=12)


def test_tables(report: bytes) -> None:
    assert verify_docx_tables(report, count=1, expected_rows=[["Name", "Qty"], ["Tea", 3]]).success
    assert "expected 2 tables, found 1" in verify_docx_tables(report, count=2).reason
    result = verify_docx_tables(report, expected_rows=[["Name", "Qty"], ["Rice", 3]])
    assert "table 0: cell at row 2 column 1 differs: expected 'Rice', found 'Tea'" in result.reason


def test_page_setup(report: bytes) -> None:
    assert verify_docx_page_setup(
        report, orientation="landscape", margins_cm={"left": 2.5, "top": 1.5}, page_size="A4"
    ).success
    assert (
        "orientation expected portrait, found landscape"
        in verify_docx_page_setup(report, orientation="portrait").reason
    )
    assert (
        "left margin expected 2.0 cm, found 2.5 cm" in verify_docx_page_setup(report, margins_cm={"left": 2.0}).reason
    )
    assert "page size expected Letter" in verify_docx_page_setup(report, page_size="Letter").reason


def test_header_and_footer(report: bytes) -> None:
    assert verify_docx_header_footer(report, "acme", ignore_case=True).success
    assert verify_docx_header_footer(report, "Page footer", part="footer").success
    assert "no header contains 'Page footer'" in verify_docx_header_footer(report, "Page footer").reason
    assert "has no header text" in verify_docx_header_footer(docx_bytes_plain(), "x").reason


def docx_bytes_plain() -> bytes:
    buffer = io.BytesIO()
    docx.Document().save(buffer)
    return buffer.getvalue()


def test_odt_text(tmp_path: Path) -> None:
    from odf.opendocument import OpenDocumentText
    from odf.text import H, P

    document = OpenDocumentText()
    document.text.addElement(H(outlinelevel=1, text="Minutes"))
    document.text.addElement(P(text="Budget approved."))
    document.save(str(tmp_path / "minutes.odt"))
    data = (tmp_path / "minutes.odt").read_bytes()
    assert verify_docx_has_paragraph(data, "Budget approved.").success
    assert verify_document_text(data, "Minutes\nBudget approved.", match="equals").success
    assert verify_docx_paragraph_count(data, count=2).success
    assert "does not contain 'rejected'" in verify_document_text(data, "rejected").reason


@pytest.mark.slow
def test_libreoffice_docx_text_fonts_and_styles(lo_report: bytes) -> None:
    assert verify_docx_has_paragraph(lo_report, "Intro text. Important words").success
    assert verify_docx_paragraph_count(lo_report, count=6).success
    assert verify_docx_font(
        lo_report, "Important words", name="Arial", size=14, bold=True, italic=True, underline=True
    ).success
    assert not verify_docx_font(lo_report, "Intro text", bold=True).success
    assert verify_docx_paragraph_style(lo_report, "Status report", heading=1).success
    assert verify_docx_paragraph_style(lo_report, "Quoted line", style="Quote").success
    assert verify_docx_alignment(lo_report, "Centered line", "center").success
    assert verify_docx_alignment(lo_report, "Justified line", "justify").success
    assert verify_docx_line_spacing(lo_report, "Spaced line", multiple=1.5).success
    # python-docx's template sets 1.15 in the document defaults; LibreOffice writes it into the style.
    assert verify_docx_line_spacing(lo_report, "Intro", multiple=1.15).success


@pytest.mark.slow
def test_libreoffice_docx_layout(lo_report: bytes) -> None:
    assert verify_docx_tables(lo_report, count=1, expected_rows=[["Name", "Qty"], ["Tea", 3]]).success
    assert verify_docx_page_setup(
        lo_report, orientation="landscape", margins_cm={"left": 2.5, "top": 1.5}, page_size="A4"
    ).success
    assert not verify_docx_page_setup(lo_report, orientation="portrait").success
    assert verify_docx_header_footer(lo_report, "ACME Confidential").success
    assert verify_docx_header_footer(lo_report, "Page footer", part="footer").success


def test_last_paragraph_means_nothing_after_it() -> None:
    from desktop_gym.tasks.artifacts import docx_bytes

    appended = docx_bytes(["First.", "Second.", "The new ending."])
    assert verify_docx_has_paragraph(appended, "The new ending.", last=True).success
    stuffed = docx_bytes(["First.", "The new ending.", "junk a policy added"])
    assert verify_docx_has_paragraph(stuffed, "The new ending.").success
    assert not verify_docx_has_paragraph(stuffed, "The new ending.", last=True).success
