"""Helpers for the ImpressTools tests: a source deck, API calls over gRPC, saved-file readback."""

from __future__ import annotations

import io
from typing import Any

from PIL import Image
from pptx import Presentation
from pptx.oxml.ns import qn
from pptx.util import Cm

from desktop_gym.guest.client import GuestClient

from .office_api_support import OfficeApi

TITLE_SLIDE, TITLE_AND_CONTENT, BLANK = 0, 1, 6  # python-pptx default template layouts


def deck_bytes() -> bytes:
    """A pptx of three slides: a title slide, "Agenda" with two bullets, a blank one with a text box."""
    deck = Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[TITLE_SLIDE])
    slide.shapes.title.text = "Quarterly Review"
    slide.placeholders[1].text = "Q3 2026"
    slide = deck.slides.add_slide(deck.slide_layouts[TITLE_AND_CONTENT])
    slide.shapes.title.text = "Agenda"
    slide.placeholders[1].text = "Budget\nHiring"
    slide.notes_slide.notes_text_frame.text = "Mention the budget first"
    slide = deck.slides.add_slide(deck.slide_layouts[BLANK])
    box = slide.shapes.add_textbox(Cm(2), Cm(2), Cm(8), Cm(2))
    box.text_frame.text = "Free text"
    buffer = io.BytesIO()
    deck.save(buffer)
    return buffer.getvalue()


API = OfficeApi("ImpressTools", "impress", ".pptx", deck_bytes)
call, saved_copy, launched_impress = API.call, API.saved_copy, API.launched


def png_bytes(width: int = 40, height: int = 20, color: tuple[int, int, int] = (255, 0, 0)) -> bytes:
    """A solid-colour PNG image."""
    buffer = io.BytesIO()
    Image.new("RGB", (width, height), color).save(buffer, format="PNG")
    return buffer.getvalue()


def saved_deck(guest: GuestClient) -> Any:
    """The live presentation as python-pptx reads it after an API save as pptx (the independent check)."""
    return Presentation(io.BytesIO(saved_copy(guest)))


def slide_texts(slide: Any) -> list[str]:
    """The texts of a python-pptx slide's shapes that have text, in order."""
    return [shape.text_frame.text for shape in slide.shapes if shape.has_text_frame and shape.text_frame.text]


def title_of(slide: Any) -> str:
    """The text of a python-pptx slide's title placeholder ("" if none)."""
    title = slide.shapes.title
    return title.text_frame.text if title is not None else ""


def bulleted(paragraph: Any) -> bool:
    """Whether a python-pptx paragraph shows a character bullet of its own."""
    properties = paragraph._p.pPr
    return properties is not None and properties.find(qn("a:buChar")) is not None


def transition_effect(slide: Any) -> str | None:
    """The PowerPoint transition element of a python-pptx slide ("fade", "push", ...), None if none."""
    transition = slide._element.find(".//" + qn("p:transition"))
    if transition is None or len(transition) == 0:
        return None
    return transition[0].tag.split("}", 1)[1]
