"""The Impress suite's extra verifiers, on decks written by python-pptx and by real LibreOffice (odp, pdf)."""

from __future__ import annotations

import io

import pptx
import pytest
from pptx.enum.shapes import MSO_SHAPE
from pptx.util import Cm, Pt

from desktop_gym.tasks.artifacts import pptx_bytes
from desktop_gym.verifiers import (
    verify_odp_slide_titles,
    verify_pdf_pages,
    verify_pptx_autoshape,
    verify_pptx_slide_titles,
    verify_pptx_title_font_size,
)

from .libreoffice_convert import convert, saved_bytes

TITLES = ["Project Atlas Review", "Budget", "Hiring"]
SLIDES = [
    {"layout": "Title Slide", "title": TITLES[0]},
    {"layout": "Title and Content", "title": TITLES[1], "body": ["Cut costs"]},
    {"layout": "Title and Content", "title": TITLES[2], "body": ["Open two roles", "Train them"]},
]


def drawn_deck() -> bytes:
    """The three slides; slide 2 gets a labelled ellipse and a text box, slide 3's title is 36 pt."""
    deck = pptx.Presentation(io.BytesIO(pptx_bytes(SLIDES)))
    second, third = deck.slides[1], deck.slides[2]
    second.shapes.add_shape(MSO_SHAPE.OVAL, Cm(2), Cm(2), Cm(4), Cm(3)).text_frame.text = "Now hiring"
    second.shapes.add_textbox(Cm(2), Cm(8), Cm(6), Cm(2)).text_frame.text = "Loose text"
    for run in third.shapes.title.text_frame.paragraphs[0].runs:
        run.font.size = Pt(36)
    return saved_bytes(deck)


@pytest.fixture(scope="module")
def deck() -> bytes:
    return drawn_deck()


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    """The deck converted by real LibreOffice to odp and to pdf."""
    workdir = tmp_path_factory.mktemp("presentation_outline")
    (workdir / "deck.pptx").write_bytes(pptx_bytes(SLIDES))
    odp = convert([workdir / "deck.pptx"], "odp", workdir / "odp")["deck.odp"]
    pdf = convert([workdir / "deck.pptx"], "pdf", workdir / "pdf")["deck.pdf"]
    return {"odp": odp, "pdf": pdf}


def test_slide_titles_checks_order_count_and_text(deck: bytes) -> None:
    assert verify_pptx_slide_titles(deck, TITLES).success
    assert verify_pptx_slide_titles(deck, [t.upper() for t in TITLES]).success  # case-insensitive
    swapped = verify_pptx_slide_titles(deck, [TITLES[0], TITLES[2], TITLES[1]])
    assert not swapped.success and "Hiring" in swapped.reason
    assert not verify_pptx_slide_titles(deck, TITLES[:2]).success
    assert not verify_pptx_slide_titles(deck, [*TITLES, "Budget"]).success


def test_autoshape_counts_drawings_not_placeholders_or_text_boxes(deck: bytes) -> None:
    assert verify_pptx_autoshape(deck, 2, "ellipse").success
    assert verify_pptx_autoshape(deck, 2, "ellipse", text="now HIRING").success
    assert not verify_pptx_autoshape(deck, 2, "ellipse", text="Budget approved").success
    assert not verify_pptx_autoshape(deck, 2, "ellipse", min_count=2).success
    # The text box is written with a rect geometry; it is not a drawn rectangle.
    rect = verify_pptx_autoshape(deck, 2, "rect")
    assert not rect.success and "found 0" in rect.reason
    assert not verify_pptx_autoshape(deck, 3, "ellipse").success
    assert "does not exist" in verify_pptx_autoshape(deck, 9, "rect").reason


def test_title_font_size_reads_sizes_set_on_the_runs(deck: bytes) -> None:
    assert verify_pptx_title_font_size(deck, 3, 36).success
    wrong = verify_pptx_title_font_size(deck, 3, 40)
    assert not wrong.success and "36" in wrong.reason
    inherited = verify_pptx_title_font_size(deck, 2, 44)  # the master's size does not count
    assert not inherited.success and "inherited" in inherited.reason
    assert not verify_pptx_title_font_size(deck, 4, 36).success


@pytest.mark.slow
def test_odp_titles_on_a_libreoffice_odp(exported: dict[str, bytes], deck: bytes) -> None:
    assert verify_odp_slide_titles(exported["odp"], TITLES).success
    differ = verify_odp_slide_titles(exported["odp"], [TITLES[1], TITLES[0], TITLES[2]])
    assert not differ.success and "differ" in differ.reason
    not_odp = verify_odp_slide_titles(deck, TITLES)  # a pptx saved under an .odp name
    assert not not_odp.success and "not a readable odp" in not_odp.reason


@pytest.mark.slow
def test_pdf_pages_on_a_libreoffice_pdf(exported: dict[str, bytes], deck: bytes) -> None:
    assert verify_pdf_pages(exported["pdf"], 3).success
    assert "found 3" in verify_pdf_pages(exported["pdf"], 4).reason
    assert "not a readable PDF" in verify_pdf_pages(deck, 3).reason
    assert "does not exist" in verify_pdf_pages(None, 3).reason
