"""A text document's whole state as data, and ``docx_state``: the saved document is exactly the expected one.

``docx_state(data)`` reads, per body paragraph in order, its text, paragraph style, alignment and
the stretches of text set bold, italic or underlined by direct formatting (a heading style's own
boldness is the style's, not a stretch). Fonts, sizes, colours and page setup are not part of it.
Mined Writer tasks (``tasks synth --app writer``) verify with it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ._load import open_docx
from .registry import register_verifier
from .result import CheckFailed, VerifierResult, differences_verdict, sequence_differences

MAX_STATE_PARAGRAPHS = 2_000
MAX_REPORTED_DIFFERENCES = 6
MARKS = ("bold", "italic", "underline")
_ALIGNMENTS = {0: "left", 1: "center", 2: "right", 3: "justify"}


def _stretches(runs: list[Any], mark: str) -> list[str]:
    """The texts of consecutive runs carrying ``mark``, merged."""
    stretches: list[str] = []
    open_stretch = False
    for run in runs:
        if getattr(run, mark) and run.text:
            if open_stretch:
                stretches[-1] += run.text
            else:
                stretches.append(run.text)
            open_stretch = True
        elif run.text:
            open_stretch = False
    return stretches


def paragraph_state(text: str, style: str, align: str, **marks: list[str]) -> dict[str, Any]:
    """One paragraph's entry of a document state."""
    return {"text": text, "style": style, "align": align, **{mark: list(marks.get(mark, [])) for mark in MARKS}}


def document_state(data: bytes | None) -> dict[str, Any]:
    """The state of a saved docx document (see the module docstring).

    Raises:
        DocumentError: missing or unreadable.
        CheckFailed: more than ``MAX_STATE_PARAGRAPHS`` paragraphs.
    """
    document = open_docx(data)
    paragraphs = []
    for index, paragraph in enumerate(document.paragraphs):
        if index >= MAX_STATE_PARAGRAPHS:
            raise CheckFailed(f"the document has more than {MAX_STATE_PARAGRAPHS} paragraphs")
        alignment = paragraph.alignment
        align = _ALIGNMENTS.get(int(alignment), str(alignment)) if alignment is not None else "left"
        runs = list(paragraph.runs)
        marks = {mark: _stretches(runs, mark) for mark in MARKS}
        paragraphs.append(
            paragraph_state(paragraph.text, paragraph.style.name if paragraph.style else "", align, **marks)
        )
    return {"paragraphs": paragraphs}


def document_differences(found: Mapping[str, Any], expected: Mapping[str, Any]) -> list[str]:
    """Each way ``found`` differs from ``expected``, paragraph by paragraph."""
    have, want = list(found.get("paragraphs", [])), list(expected.get("paragraphs", []))
    return sequence_differences(have, want, ("text", "style", "align", *MARKS), "paragraph")


@register_verifier("docx_state", reads="file")
def verify_docx_state(data: bytes | None, expected: Mapping[str, Any]) -> VerifierResult:
    """Check that a saved docx document's state (``document_state``) is exactly ``expected``.

    Args:
        data: the file's bytes, or None when it does not exist.
        expected: a state as ``document_state`` gives it.

    Returns:
        success when the states are equal; otherwise the first differences name paragraph and property.
    """
    return differences_verdict(
        document_differences(document_state(data), expected), "document", MAX_REPORTED_DIFFERENCES
    )
