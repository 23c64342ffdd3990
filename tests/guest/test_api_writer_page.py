"""WriterTools tables, page setup, headers/footers, page numbers and saving on a live Writer document.

Checked in what the API saved: docx with python-docx, odt with odfpy, pdf by its bytes.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterator

import docx
import pytest
from docx.enum.section import WD_ORIENT
from docx.enum.text import WD_ALIGN_PARAGRAPH
from odf import style as odf_style
from odf import teletype
from odf import text as odf_text
from odf.opendocument import load as load_odf

from desktop_gym.guest.client import GuestClient
from desktop_gym.guest.types import GuestError

from .writer_api_support import PARAGRAPHS, call, launched_writer, saved_copy, saved_docx

pytestmark = pytest.mark.slow

TEXTS = [text for _, text in PARAGRAPHS]


@pytest.fixture(scope="module")
def writer(_session_guest: GuestClient) -> Iterator[GuestClient]:
    """One Writer instance on the source document for this module's tests (they run in order)."""
    yield from launched_writer(_session_guest, "api_page")


def body_order(document: docx.document.Document) -> list[str]:
    """The body as "p:<text>" / "tbl" items in document order."""
    items = []
    for element in document.element.body:
        tag = element.tag.rsplit("}", 1)[-1]
        if tag == "p":
            items.append("p:" + "".join(node.text or "" for node in element.iter() if node.tag.endswith("}t")))
        elif tag == "tbl":
            items.append("tbl")
    return items


def test_tables(writer: GuestClient) -> None:
    data = [["Region", "Units"], ["North", 30], ["South", 12.5]]
    assert call(writer, "insert_table", rows=4, columns=2, data=data, paragraph=3) == "inserted table 0 (Table1, 4x2)"
    assert call(writer, "insert_table", rows=1, columns=3) == "inserted table 1 (Table2, 1x3)"  # at the end
    assert call(writer, "set_table_cell", cell="a4", value="Total") == "table 0 cell A4 set to 'Total'"
    call(writer, "set_table_cell", cell="B4", value=42.5)
    call(writer, "set_table_cell", cell="C1", value="last", table=-1)
    assert call(writer, "get_table", table=0)[1:] == [["North", "30"], ["South", "12.5"], ["Total", "42.5"]]
    assert call(writer, "list_tables") == [
        {"index": 0, "name": "Table1", "rows": 4, "columns": 2},
        {"index": 1, "name": "Table2", "rows": 1, "columns": 3},
    ]
    document = saved_docx(writer)
    first, second = document.tables
    assert [[cell.text for cell in row.cells] for row in first.rows] == [
        ["Region", "Units"],
        ["North", "30"],
        ["South", "12.5"],
        ["Total", "42.5"],
    ]
    assert [cell.text for cell in second.rows[0].cells] == ["", "", "last"]
    order = body_order(document)
    # The table sits right after paragraph 3, splitting nothing; the last one ends the body.
    assert order[:6] == [f"p:{t}" for t in TEXTS[:4]] + ["tbl", f"p:{TEXTS[4]}"]
    assert order[-3:] == [f"p:{TEXTS[-1]}", "tbl", "p:"]
    assert [p.text for p in document.paragraphs][: len(TEXTS)] == TEXTS
    assert call(writer, "delete_paragraph", paragraph=-1).startswith("emptied paragraph -1 (a paragraph must follow")
    assert body_order(saved_docx(writer))[-2:] == ["tbl", "p:"]


def test_table_errors(writer: GuestClient) -> None:
    with pytest.raises(GuestError, match=r"cell 'C9' is outside table 0 \(4 rows x 2 columns\)"):
        call(writer, "set_table_cell", cell="C9", value=1)
    with pytest.raises(GuestError, match="cell must be a table cell like 'B2', got 'B0'"):
        call(writer, "set_table_cell", cell="B0", value=1)
    with pytest.raises(GuestError, match=r"table 5 is out of range: the document has 2 table\(s\)"):
        call(writer, "get_table", table=5)
    with pytest.raises(GuestError, match=r"data has 1 row\(s\) of up to 3 value\(s\): more than the 2x2 table"):
        call(writer, "insert_table", rows=2, columns=2, data=[[1, 2, 3]])
    with pytest.raises(GuestError, match="a table may have at most 2000 cells, got 100x30"):
        call(writer, "insert_table", rows=100, columns=30)
    with pytest.raises(GuestError, match="rows must be between 1 and 200, got 0"):
        call(writer, "insert_table", rows=0, columns=2)
    assert len(call(writer, "list_tables")) == 2


def test_page_setup(writer: GuestClient) -> None:
    assert call(writer, "set_paper_size", paper="A4") == "paper A4 (21 x 29.7 cm)"
    assert call(writer, "set_page_orientation", orientation="landscape") == "pages are landscape (29.7 x 21 cm)"
    assert call(writer, "set_paper_size", paper="letter") == "paper letter (27.94 x 21.59 cm)"  # stays landscape
    call(writer, "set_page_margins", top_cm=1.5, bottom_cm=2.5, left_cm=3, right_cm=1)
    call(writer, "set_page_margins", right_cm=1.25)
    section = saved_docx(writer).sections[0]
    assert section.orientation == WD_ORIENT.LANDSCAPE
    assert (round(section.page_width.cm, 2), round(section.page_height.cm, 2)) == (27.94, 21.59)
    margins = [section.top_margin, section.bottom_margin, section.left_margin, section.right_margin]
    assert [m.cm for m in margins] == pytest.approx([1.5, 2.5, 3.0, 1.25], abs=0.01)  # stored in twips
    call(writer, "set_page_orientation", orientation="portrait")
    section = saved_docx(writer).sections[0]
    assert section.orientation == WD_ORIENT.PORTRAIT
    assert (round(section.page_width.cm, 2), round(section.page_height.cm, 2)) == (21.59, 27.94)
    with pytest.raises(GuestError, match="give at least one of top_cm"):
        call(writer, "set_page_margins")
    with pytest.raises(GuestError, match="left_cm must be between 0 and 10 cm, got -1"):
        call(writer, "set_page_margins", left_cm=-1)
    with pytest.raises(GuestError, match=r"paper must be one of .*got 'b5'"):
        call(writer, "set_paper_size", paper="b5")


def test_header_footer_and_page_numbers(writer: GuestClient) -> None:
    call(writer, "set_header_text", text="ACME Corp")
    call(writer, "set_footer_text", text="Confidential")
    assert call(writer, "insert_page_numbers", alignment="right") == "page numbers in the footer, right"
    section = saved_docx(writer).sections[0]
    assert [p.text for p in section.header.paragraphs] == ["ACME Corp"]
    footer = section.footer.paragraphs
    assert footer[0].text == "Confidential"
    assert re.search(r"\bPAGE\b", footer[-1]._p.xml) and footer[-1].alignment == WD_ALIGN_PARAGRAPH.RIGHT
    call(writer, "set_header_text", text="")  # off
    call(writer, "set_footer_text", text="Page footer")  # replaces the number too
    section = saved_docx(writer).sections[0]
    assert section.header.is_linked_to_previous  # python-docx: no header of its own
    assert [p.text for p in section.footer.paragraphs] == ["Page footer"]
    assert not re.search(r"\bPAGE\b", section.footer._element.xml)
    call(writer, "insert_page_numbers", position="header", alignment="center")
    header = saved_docx(writer).sections[0].header.paragraphs
    assert re.search(r"\bPAGE\b", header[0]._p.xml) and header[0].alignment == WD_ALIGN_PARAGRAPH.CENTER


def test_page_break(writer: GuestClient) -> None:
    assert call(writer, "insert_page_break", paragraph=2) == "page break before paragraph 2"
    document = load_odf(io.BytesIO(saved_copy(writer, ".odt")))
    breaks = {
        style.getAttribute("name"): properties.getAttribute("breakbefore")
        for style in document.automaticstyles.getElementsByType(odf_style.Style)
        for properties in style.getElementsByType(odf_style.ParagraphProperties)
    }
    paragraphs = document.text.getElementsByType(odf_text.H) + document.text.getElementsByType(odf_text.P)
    by_text = {teletype.extractText(p): breaks.get(p.getAttribute("stylename")) for p in paragraphs}
    assert by_text[TEXTS[2]] == "page"
    assert by_text[TEXTS[1]] != "page" and by_text[TEXTS[3]] != "page"


def odt_texts(data: bytes) -> list[str]:
    document = load_odf(io.BytesIO(data))
    nodes = document.text.getElementsByType(odf_text.P) + document.text.getElementsByType(odf_text.H)
    return [teletype.extractText(node) for node in nodes]


def test_save_formats(writer: GuestClient) -> None:
    odt_path = call(writer, "save", path="~/api-saved/report.odt")
    assert odt_path.endswith("/api-saved/report.odt")
    assert TEXTS[1] in odt_texts(writer.get_file(odt_path))
    call(writer, "set_paragraph_text", paragraph=1, text="Saved in place.")
    assert call(writer, "save") == odt_path  # in place, still odt
    assert "Saved in place." in odt_texts(writer.get_file(odt_path))

    pdf_path = call(writer, "save", file_format="pdf")  # next to the document, same name
    assert pdf_path == odt_path[: -len(".odt")] + ".pdf"
    pdf = writer.get_file(pdf_path)
    assert pdf.startswith(b"%PDF-") and b"%%EOF" in pdf[-1024:]
    assert len(re.findall(rb"/Type\s*/Page\b(?!s)", pdf)) == 2  # the page break before paragraph 2
    assert call(writer, "save") == odt_path  # a PDF is an export: the document is still the odt

    docx_path = call(writer, "save", path="~/api-saved/report", file_format="docx")
    assert docx_path.endswith("/api-saved/report.docx")
    assert docx.Document(io.BytesIO(writer.get_file(docx_path))).paragraphs[1].text == "Saved in place."


def test_save_errors(writer: GuestClient) -> None:
    with pytest.raises(GuestError, match="path must be absolute or start with '~/', got 'report.docx'"):
        call(writer, "save", path="report.docx")
    with pytest.raises(GuestError, match="the folder .*no-such-folder' does not exist"):
        call(writer, "save", path="~/no-such-folder/x.docx")
    with pytest.raises(GuestError, match=r"path must end in one of \.docx, \.odt, \.pdf"):
        call(writer, "save", path="~/api-saved/x.xyz")
    with pytest.raises(GuestError, match=r"does not end in '\.odt' \(file_format\)"):
        call(writer, "save", path="~/api-saved/x.docx", file_format="odt")
    with pytest.raises(GuestError, match=r"file_format must be one of .*got 'xlsx'"):
        call(writer, "save", file_format="xlsx")
