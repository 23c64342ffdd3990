"""Writer verifiers: lists, page-number fields, saved-file formats and PDFs, on python-docx files and
on what real LibreOffice writes (round trips through headless soffice)."""

from __future__ import annotations

import docx
import pytest
from docx.enum.text import WD_ALIGN_PARAGRAPH
from docx.oxml import parse_xml
from docx.oxml.ns import nsdecls

from desktop_gym.tasks.artifacts import docx_bytes
from desktop_gym.verifiers import (
    get_verifier,
    verify_document_format,
    verify_docx_list,
    verify_docx_page_number,
    verify_pdf_document,
)

from .libreoffice_convert import convert, saved_bytes

ITEMS = ["Book the room", "Send the agenda", "Order lunch"]


def _save(document: docx.document.Document) -> bytes:
    return saved_bytes(document)


def list_docx(style: str) -> bytes:
    """An intro paragraph, then ``ITEMS`` in the paragraph style ``style`` (e.g. "List Bullet")."""
    document = docx.Document()
    document.add_paragraph("Intro text here.")
    for item in ITEMS:
        document.add_paragraph(item, style=style)
    return _save(document)


def page_number_docx(part: str, centred: bool = False) -> bytes:
    """A document whose ``part`` (header/footer) holds "Page " and a simple PAGE field."""
    document = docx.Document()
    document.add_paragraph("Body text.")
    area = getattr(document.sections[0], part)
    paragraph = area.paragraphs[0]
    if centred:
        paragraph.alignment = WD_ALIGN_PARAGRAPH.CENTER
    paragraph.add_run("Page ")
    paragraph._p.append(
        parse_xml(f'<w:fldSimple {nsdecls("w")} w:instr=" PAGE "><w:r><w:t>1</w:t></w:r></w:fldSimple>')
    )
    return _save(document)


@pytest.fixture(scope="module")
def roundtrip(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    """python-docx files re-saved by real LibreOffice as docx, plus one exported as PDF."""
    workdir = tmp_path_factory.mktemp("document_lists")
    sources = {
        "bullets.docx": list_docx("List Bullet"),
        "numbers.docx": list_docx("List Number"),
        "footer.docx": page_number_docx("footer"),
    }
    for name, data in sources.items():
        (workdir / name).write_bytes(data)
    saved = convert([workdir / name for name in sources], "docx:MS Word 2007 XML", workdir)
    pdf_dir = workdir / "pdf"
    pdf_dir.mkdir()
    (pdf_dir / "titled.docx").write_bytes(docx_bytes(["Hello there."], heading="Head", title="Release Plan 7"))
    saved.update(convert([pdf_dir / "titled.docx"], "pdf", pdf_dir))
    return saved


def test_list_kinds_from_list_styles() -> None:
    bullets, numbers = list_docx("List Bullet"), list_docx("List Number")
    assert verify_docx_list(bullets, ITEMS, "bullet").success
    assert verify_docx_list(numbers, ITEMS, "numbered").success
    wrong = verify_docx_list(bullets, ITEMS, "numbered")
    assert not wrong.success and "not a numbered list item" in wrong.reason
    assert verify_docx_list(bullets, ITEMS, "bullet", not_items=["Intro text"]).success
    assert not verify_docx_list(bullets, ITEMS, "bullet", not_items=["Order lunch"]).success


def test_plain_paragraphs_are_not_list_items() -> None:
    plain = docx_bytes(ITEMS)
    result = verify_docx_list(plain, ITEMS, "bullet")
    assert not result.success and "found no list" in result.reason
    assert "no paragraph contains" in verify_docx_list(plain, ["Missing item"], "bullet").reason
    with pytest.raises(ValueError, match="kind"):
        verify_docx_list(plain, ITEMS, "dotted")  # type: ignore[arg-type]


@pytest.mark.slow
def test_lists_as_libreoffice_writes_them(roundtrip: dict[str, bytes]) -> None:
    assert verify_docx_list(roundtrip["bullets.docx"], ITEMS, "bullet", not_items=["Intro text"]).success
    assert verify_docx_list(roundtrip["numbers.docx"], ITEMS, "numbered").success
    assert not verify_docx_list(roundtrip["numbers.docx"], ITEMS, "bullet").success


def test_page_number_field_in_the_right_part() -> None:
    footer = page_number_docx("footer")
    assert verify_docx_page_number(footer, "footer").success
    assert not verify_docx_page_number(footer, "header").success
    assert verify_docx_page_number(page_number_docx("header"), "header").success
    assert not verify_docx_page_number(docx_bytes(["No fields."]), "footer").success
    with pytest.raises(ValueError, match="part"):
        verify_docx_page_number(footer, "margin")  # type: ignore[arg-type]


def test_page_number_alignment() -> None:
    assert verify_docx_page_number(page_number_docx("footer"), "footer", alignment="left").success
    centred = page_number_docx("footer", centred=True)
    assert verify_docx_page_number(centred, "footer", alignment="center").success
    wrong = verify_docx_page_number(centred, "footer", alignment="right")
    assert not wrong.success and "aligned center, expected right" in wrong.reason


@pytest.mark.slow
def test_page_number_field_as_libreoffice_writes_it(roundtrip: dict[str, bytes]) -> None:
    assert verify_docx_page_number(roundtrip["footer.docx"], "footer", alignment="left").success
    assert not verify_docx_page_number(roundtrip["footer.docx"], "footer", alignment="center").success
    assert not verify_docx_page_number(roundtrip["footer.docx"], "header").success


@pytest.mark.slow
def test_pdf_exported_by_libreoffice(roundtrip: dict[str, bytes]) -> None:
    pdf = roundtrip["titled.pdf"]
    result = verify_pdf_document(pdf, title="Release Plan 7")
    assert result.success, result.reason
    assert result.details["pages"] == 1
    wrong = verify_pdf_document(pdf, title="Release Plan 8")
    assert not wrong.success and "Release Plan 7" in wrong.reason
    assert not verify_pdf_document(pdf, min_pages=2).success
    assert verify_document_format(pdf, "pdf").success
    assert not verify_document_format(pdf, "odt").success


def test_pdf_title_encodings() -> None:
    literal = b"%PDF-1.4\n1 0 obj <</Type /Page>> endobj\n2 0 obj <</Title (Budget \\(draft\\))>> endobj\n"
    assert verify_pdf_document(literal, title="Budget (draft)").success
    utf16 = b"%PDF-1.6\n<</Type/Page>>\n<</Title<FEFF00C900740065>>>\n"
    assert verify_pdf_document(utf16, title="\u00c9te").success
    assert "not a readable PDF" in verify_pdf_document(b"PK\x03\x04 zip").reason


def test_document_format_reads_content_not_name() -> None:
    data = docx_bytes(["Text."])
    assert verify_document_format(data, "docx").success
    result = verify_document_format(data, "odt")
    assert not result.success and "OpenDocument" in result.reason
    assert "does not exist" in verify_document_format(None, "odt").reason
    with pytest.raises(ValueError, match="file_format"):
        verify_document_format(data, "xlsx")  # type: ignore[arg-type]


def test_registered_by_name() -> None:
    assert get_verifier("docx_list") is verify_docx_list
    assert get_verifier("docx_page_number") is verify_docx_page_number
    assert get_verifier("pdf_document") is verify_pdf_document
    assert get_verifier("document_format") is verify_document_format
