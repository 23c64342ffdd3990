"""Presentation verifiers on decks written by python-pptx, and re-saved by real LibreOffice (slow)."""

from __future__ import annotations

import io

import pptx
import pytest
from lxml import etree
from PIL import Image
from pptx.dml.color import RGBColor
from pptx.util import Inches

from desktop_gym.verifiers import presentations as decks

from .libreoffice_convert import resaved_fixture, saved_bytes

P_NS = "http://schemas.openxmlformats.org/presentationml/2006/main"


def build_deck() -> bytes:
    """Two slides: a title slide with notes, and a red content slide with a picture and a fade."""
    deck = pptx.Presentation()
    first = deck.slides.add_slide(deck.slide_layouts[0])
    first.shapes.title.text = "Quarterly Review"
    first.placeholders[1].text = "Team Amber"
    first.notes_slide.notes_text_frame.text = "Greet the audience"
    second = deck.slides.add_slide(deck.slide_layouts[1])
    second.shapes.title.text = "Results"
    second.placeholders[1].text = "Growth 12%"
    second.background.fill.solid()
    second.background.fill.fore_color.rgb = RGBColor(0xFF, 0x00, 0x00)
    image = io.BytesIO()
    Image.new("RGB", (20, 20), "blue").save(image, format="PNG")
    second.shapes.add_picture(image, Inches(1), Inches(1))
    transition = etree.SubElement(second.element, f"{{{P_NS}}}transition")
    etree.SubElement(transition, f"{{{P_NS}}}fade")
    return saved_bytes(deck)


@pytest.fixture(scope="module")
def deck() -> bytes:
    return build_deck()


lo_deck = resaved_fixture(build_deck, "deck.pptx", "pptx", "The deck re-saved by LibreOffice Impress as pptx.")


def test_slide_count(deck: bytes) -> None:
    assert decks.verify_pptx_slide_count(deck, count=2).success
    assert decks.verify_pptx_slide_count(deck, min_count=1, max_count=2).success
    assert "expected 3 slides, found 2" in decks.verify_pptx_slide_count(deck, count=3).reason


def test_text_and_title(deck: bytes) -> None:
    assert decks.verify_pptx_text(deck, "Growth 12%", slide=2).success
    assert decks.verify_pptx_text(deck, "team amber", ignore_case=True).success
    assert "'Growth 12%' is not anywhere on slide 1" in decks.verify_pptx_text(deck, "Growth 12%", slide=1).reason
    assert "slide 5 does not exist" in decks.verify_pptx_text(deck, "Growth", slide=5).reason
    assert decks.verify_pptx_text(deck, "Growth 12%", slide=2, match="shape").success
    whole = decks.verify_pptx_text(deck, "Growth", slide=2, match="shape")
    assert not whole.success and "not any shape's whole text on slide 2" in whole.reason
    assert decks.verify_pptx_title(deck, 1, "quarterly review").success
    assert decks.verify_pptx_title(deck, 2, "Res", match="contains").success
    assert "expected 'Summary', found 'Results'" in decks.verify_pptx_title(deck, 2, "Summary").reason


def test_layout_background_and_notes(deck: bytes) -> None:
    assert decks.verify_pptx_layout(deck, 1, "Title Slide").success
    assert "expected 'Title Only', found 'Title and Content'" in decks.verify_pptx_layout(deck, 2, "Title Only").reason
    assert decks.verify_pptx_background(deck, "#ff0000", slide=2).success
    result = decks.verify_pptx_background(deck, "FF0000")
    assert not result.success and result.reason.startswith("slide 1's background differs: expected FF0000")
    assert decks.verify_pptx_notes(deck, 1, "Greet").success
    assert "slide 2 has no speaker notes" in decks.verify_pptx_notes(deck, 2, "Greet").reason
    assert "notes do not contain 'Thanks'" in decks.verify_pptx_notes(deck, 1, "Thanks").reason


def test_transitions_and_shapes(deck: bytes) -> None:
    assert decks.verify_pptx_transitions(deck, slide=2, transition_type="fade").success
    assert "slide 1 has no transition" in decks.verify_pptx_transitions(deck).reason
    assert "expected push" in decks.verify_pptx_transitions(deck, slide=2, transition_type="push").reason
    assert decks.verify_pptx_shapes(deck, 2, kind="picture", count=1).success
    assert decks.verify_pptx_shapes(deck, 2, kind="text", count=2).success
    assert (
        "slide 1: expected at least 1 picture shapes, found 0"
        in decks.verify_pptx_shapes(deck, 1, kind="picture").reason
    )


@pytest.mark.slow
def test_libreoffice_pptx(lo_deck: bytes) -> None:
    assert decks.verify_pptx_slide_count(lo_deck, count=2).success
    assert decks.verify_pptx_text(lo_deck, "Growth 12%", slide=2).success
    assert decks.verify_pptx_title(lo_deck, 1, "Quarterly Review").success
    assert decks.verify_pptx_layout(lo_deck, 1, "Title Slide").success
    assert decks.verify_pptx_background(lo_deck, "FF0000", slide=2).success
    assert decks.verify_pptx_notes(lo_deck, 1, "Greet the audience").success
    assert decks.verify_pptx_transitions(lo_deck, slide=2, transition_type="fade").success
    # LibreOffice writes an empty <p:transition> on every slide; that is no transition.
    assert not decks.verify_pptx_transitions(lo_deck, slide=1).success
    assert decks.verify_pptx_shapes(lo_deck, 2, kind="picture", count=1).success
