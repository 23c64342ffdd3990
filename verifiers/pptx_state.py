"""A presentation's whole state as data, and ``pptx_state``: the saved deck is exactly the expected one.

``presentation_state(data)`` reads, per slide in order, its title, the non-empty texts of its other
shapes (subtitle, body, text boxes, in shape order) and its speaker notes. Layout names, positions,
fonts and empty placeholders are not part of it (an app names layouts its own way, and an empty
placeholder shows nothing). Mined Impress tasks (``tasks synth --app impress``) verify with it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ._load import open_pptx
from .registry import register_verifier
from .result import CheckFailed, VerifierResult, differences_verdict, sequence_differences

MAX_STATE_SLIDES = 500
MAX_REPORTED_DIFFERENCES = 6
_TITLE_TYPES = {1, 3}  # PP_PLACEHOLDER_TYPE.TITLE, CENTER_TITLE


def slide_state(title: str, texts: list[str], notes: str) -> dict[str, Any]:
    """One slide's entry of a presentation state."""
    return {"title": title, "texts": [t for t in texts if t.strip()], "notes": notes}


def _is_title(shape: Any) -> bool:
    return bool(shape.is_placeholder) and int(shape.placeholder_format.type or 0) in _TITLE_TYPES


def presentation_state(data: bytes | None) -> dict[str, Any]:
    """The state of a saved pptx presentation (see the module docstring).

    Raises:
        DocumentError: missing or unreadable.
        CheckFailed: more than ``MAX_STATE_SLIDES`` slides.
    """
    deck = open_pptx(data)
    slides = []
    for index, slide in enumerate(deck.slides):
        if index >= MAX_STATE_SLIDES:
            raise CheckFailed(f"the presentation has more than {MAX_STATE_SLIDES} slides")
        title, texts = "", []
        for shape in slide.shapes:
            if not shape.has_text_frame:
                continue
            if _is_title(shape) and not title:
                title = shape.text_frame.text
            else:
                texts.append(shape.text_frame.text)
        notes = ""
        if slide.has_notes_slide and slide.notes_slide.notes_text_frame is not None:
            notes = slide.notes_slide.notes_text_frame.text
        slides.append(slide_state(title, texts, notes))
    return {"slides": slides}


def presentation_differences(found: Mapping[str, Any], expected: Mapping[str, Any]) -> list[str]:
    """Each way ``found`` differs from ``expected``, slide by slide (numbered from 1)."""
    have, want = list(found.get("slides", [])), list(expected.get("slides", []))
    return sequence_differences(have, want, ("title", "texts", "notes"), "slide", first=1)


@register_verifier("pptx_state", reads="file")
def verify_pptx_state(data: bytes | None, expected: Mapping[str, Any]) -> VerifierResult:
    """Check that a saved pptx presentation's state (``presentation_state``) is exactly ``expected``.

    Args:
        data: the file's bytes, or None when it does not exist.
        expected: a state as ``presentation_state`` gives it.

    Returns:
        success when the states are equal; otherwise the first differences name slide and property.
    """
    return differences_verdict(
        presentation_differences(presentation_state(data), expected), "presentation", MAX_REPORTED_DIFFERENCES
    )
