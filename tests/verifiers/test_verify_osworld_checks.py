"""The verifiers behind OSWorld's Writer, Impress, PDF, image and archive checks, on documents
LibreOffice saved (docx round-tripped through soffice, a PDF it exported) as well as our own."""

from __future__ import annotations

import hashlib
import io
import tarfile
import zipfile
from pathlib import Path

import docx
import pptx
import pytest
from docx.enum.text import WD_ALIGN_PARAGRAPH, WD_BREAK
from docx.oxml import parse_xml
from docx.shared import Pt
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from desktop_gym.verifiers import get_verifier
from desktop_gym.verifiers.archive_members import archive_digests
from desktop_gym.verifiers.document_runs import equation_count, formatted_spans
from desktop_gym.verifiers.images import image_fingerprint
from desktop_gym.verifiers.pdf_text import pdf_page_texts

from .libreoffice_convert import convert

OMML = (
    '<m:oMath xmlns:m="http://schemas.openxmlformats.org/officeDocument/2006/math"><m:r><m:t>x^2</m:t></m:r></m:oMath>'
)


def _report() -> bytes:
    document = docx.Document()
    title = document.add_paragraph("Quarterly report")
    title.alignment = WD_ALIGN_PARAGRAPH.CENTER
    body = document.add_paragraph()
    body.add_run("Water is H")
    body.add_run("2").font.subscript = True
    body.add_run("O and ")
    body.add_run("this is key").font.highlight_color = 7  # yellow
    body.add_run(" text.")
    notes = document.add_paragraph()
    italic = notes.add_run("an aside")
    italic.italic = True
    italic.font.size = Pt(14)
    notes.add_run().add_break(WD_BREAK.PAGE)
    formula = document.add_paragraph("Formula: ")
    formula._p.append(parse_xml(OMML))
    last = document.add_paragraph()
    last.add_run("Struck out").font.strike = True
    for paragraph in document.paragraphs:
        for run in paragraph.runs:
            run.font.name = "Liberation Serif"
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    """Our report as written, as LibreOffice re-saved it (docx) and as it exported it (pdf)."""
    folder = tmp_path_factory.mktemp("lo")
    source = folder / "in" / "report.docx"
    source.parent.mkdir()
    source.write_bytes(_report())
    resaved = convert([source], "docx:MS Word 2007 XML", folder / "docx")["report.docx"]
    pdf = convert([source], "pdf", folder / "pdf")["report.pdf"]
    return {"ours": _report(), "libreoffice": resaved, "pdf": pdf}


@pytest.mark.parametrize("which", ["ours", "libreoffice"])
def test_formatted_spans_find_highlight_subscript_and_strike(saved: dict[str, bytes], which: str) -> None:
    data = saved[which]
    assert formatted_spans(data, "highlight") == ["this is key"]
    assert formatted_spans(data, "subscript") == ["2"]
    assert formatted_spans(data, "strike") == ["Struck out"]
    check = get_verifier("docx_formatted_text")
    assert check(data, prop="highlight", expected=["this is key"]).success
    wrong = check(data, prop="highlight", expected=["this is key", "text."])
    assert not wrong.success and "text with highlight" in wrong.reason


@pytest.mark.parametrize("which", ["ours", "libreoffice"])
def test_fonts_breaks_equations_and_alignment(saved: dict[str, bytes], which: str) -> None:
    data = saved[which]
    fonts = get_verifier("docx_run_fonts")
    assert fonts(data, name="Liberation Serif").success
    assert not fonts(data, name="Times New Roman").success
    assert fonts(data, size=14, only="italic").success
    assert not fonts(data, size=12, only="italic").success
    assert get_verifier("docx_page_breaks")(data).success
    assert not get_verifier("docx_page_breaks")(data, min_count=2).success
    assert equation_count(data) == 1 and get_verifier("docx_equations")(data).success
    alignment = get_verifier("docx_paragraph_alignment")
    assert alignment(data, alignment="center", index=0).success
    assert not alignment(data, alignment="center", index=1).success


def test_a_plain_document_has_no_marked_text_no_break_and_no_equation() -> None:
    document = docx.Document()
    document.add_paragraph("Water is H2O")
    out = io.BytesIO()
    document.save(out)
    data = out.getvalue()
    assert not get_verifier("docx_formatted_text")(data, prop="subscript", expected=["2"]).success
    assert not get_verifier("docx_page_breaks")(data).success
    assert not get_verifier("docx_equations")(data).success
    assert "no run with italic" in get_verifier("docx_run_fonts")(data, size=14, only="italic").reason


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.text("abc xyz", min_size=1, max_size=6), st.booleans()), min_size=1, max_size=12))
def test_formatted_spans_join_adjacent_marked_runs(runs: list[tuple[str, bool]]) -> None:
    document = docx.Document()
    paragraph = document.add_paragraph()
    for text, marked in runs:
        paragraph.add_run(text).font.strike = marked
    out = io.BytesIO()
    document.save(out)
    expected, current = [], ""
    for text, marked in runs:
        if marked:
            current += text
        elif current:
            expected.append(current)
            current = ""
    expected.append(current)
    assert formatted_spans(out.getvalue(), "strike") == [" ".join(s.split()) for s in expected if s.strip()]


def test_pdf_text_reads_a_libreoffice_export_page_by_page(saved: dict[str, bytes]) -> None:
    pages = pdf_page_texts(saved["pdf"])
    assert len(pages) == 2 and pages[0].startswith("Quarterly report") and "Struck out" in pages[1]
    check = get_verifier("pdf_text")
    assert check(saved["pdf"], pages=pages).success
    assert not check(saved["pdf"], pages=pages[:1]).success
    changed = check(saved["pdf"], pages=[pages[0].replace("Quarterly", "Annual"), pages[1]])
    assert not changed.success and "page 1 text differs" in changed.reason


def _deck(portrait: bool = False, picture: bytes | None = None, movie: Path | None = None) -> bytes:
    presentation = pptx.Presentation()
    if portrait:
        presentation.slide_width, presentation.slide_height = presentation.slide_height, presentation.slide_width
    slide = presentation.slides.add_slide(presentation.slide_layouts[6])
    if picture is not None:
        slide.shapes.add_picture(io.BytesIO(picture), 0, 0, presentation.slide_width, presentation.slide_height)
    if movie is not None:
        slide.shapes.add_movie(str(movie), 0, 0, 100, 100, mime_type="video/mp4")
    out = io.BytesIO()
    presentation.save(out)
    return out.getvalue()


def _png(color: tuple[int, int, int], size: tuple[int, int] = (32, 24)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, color).save(out, format="PNG")
    return out.getvalue()


def test_deck_orientation_media_and_a_picture_that_fills_the_slide(tmp_path: Path) -> None:
    movie = tmp_path / "clip.mp4"
    movie.write_bytes(b"\x00\x00\x00\x18ftypmp42" + b"\x00" * 64)
    orientation = get_verifier("pptx_orientation")
    assert orientation(_deck(portrait=True), orientation="portrait").success
    assert not orientation(_deck(), orientation="portrait").success
    media = get_verifier("pptx_media")
    assert media(_deck(movie=movie), kind="video", extension="mp4").success
    assert not media(_deck(), kind="video").success
    fills = get_verifier("pptx_picture_fills_slide")
    assert fills(_deck(picture=_png((0, 0, 255)))).success
    small = pptx.Presentation(io.BytesIO(_deck(picture=_png((0, 0, 255)))))
    small.slides[0].shapes[0].width //= 2
    out = io.BytesIO()
    small.save(out)
    assert "no picture on slide 1 covers" in fills(out.getvalue()).reason
    assert "has no picture" in fills(_deck()).reason


def test_slide_numbers_in_a_colour(tmp_path: Path) -> None:
    from pptx.dml.color import RGBColor

    presentation = pptx.Presentation()
    slide = presentation.slides.add_slide(presentation.slide_layouts[1])
    layout_number = next(s for s in slide.slide_layout.placeholders if s.placeholder_format.type == 13)
    slide.shapes.clone_placeholder(layout_number)  # the layout's slide-number placeholder, onto the slide
    shape = next(s for s in slide.placeholders if s.placeholder_format.type == 13)
    run = shape.text_frame.paragraphs[0].add_run()
    run.text = "1"
    run.font.color.rgb = RGBColor(0xE0, 0x10, 0x10)
    out = io.BytesIO()
    presentation.save(out)
    check = get_verifier("pptx_slide_number_color")
    assert check(out.getvalue(), color="red").success
    assert not check(out.getvalue(), color="blue").success
    assert "no slide has a slide-number placeholder" in check(_deck(), color="red").reason


def test_image_similar_compares_size_and_thumbnail() -> None:
    gold = image_fingerprint(_png((200, 10, 10)))
    check = get_verifier("image_similar")
    assert check(_png((200, 10, 10)), **gold).success
    assert check(_png((201, 11, 10)), **gold).success  # within the default mean difference
    assert "differs from the gold" in check(_png((10, 200, 10)), **gold).reason
    assert "expected 32 x 24" in check(_png((200, 10, 10), (24, 32)), **gold).reason


def test_archive_members_compare_paths_and_bytes_in_zip_and_tar() -> None:
    def zipped(members: dict[str, bytes]) -> bytes:
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w") as archive:
            for name, data in members.items():
                archive.writestr(name, data)
        return out.getvalue()

    def tarred(members: dict[str, bytes]) -> bytes:
        out = io.BytesIO()
        with tarfile.open(fileobj=out, mode="w:gz") as archive:
            for name, data in members.items():
                info = tarfile.TarInfo(name)
                info.size = len(data)
                archive.addfile(info, io.BytesIO(data))
        return out.getvalue()

    members = {"docs/a.txt": b"alpha", "docs/b.pdf": b"%PDF-1.4"}
    digest = hashlib.sha256(b"alpha").hexdigest()
    expected = {"docs/a.txt": digest, "docs/b.pdf": None}
    check = get_verifier("archive_members")
    for pack in (zipped, tarred):
        assert archive_digests(pack(members))["docs/a.txt"] == digest
        assert check(pack(members), expected=expected).success
        assert "other content" in check(pack({**members, "docs/a.txt": b"beta"}), expected=expected).reason
        assert "missing member" in check(pack({"docs/a.txt": b"alpha"}), expected=expected).reason
        extra = pack({**members, "docs/c.txt": b"c"})
        assert "unexpected member" in check(extra, expected=expected).reason
        assert check(extra, expected=expected, allow_extra=True).success


@pytest.mark.parametrize("which", ["ours", "libreoffice"])
def test_a_page_break_before_a_named_paragraph(saved: dict[str, bytes], which: str) -> None:
    check = get_verifier("docx_page_breaks")
    assert check(saved[which], before_text="Formula").success  # the break ends the paragraph before it
    assert "no page break right before" in check(saved[which], before_text="Struck out").reason
    assert "no paragraph starts with" in check(saved[which], before_text="Nowhere").reason
