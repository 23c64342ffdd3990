"""Helpers for the WriterTools tests: a source document, API calls over gRPC, saved-file readback.

The independent checks read what the API saved with python-docx (docx), odfpy (odt) or the
file's magic bytes (pdf), never through the UNO getters under test.
"""

from __future__ import annotations

import io
import re

import docx
from docx.oxml.ns import qn

from desktop_gym.guest.client import GuestClient

from .office_api_support import OfficeApi

TITLE = "Quarterly Report"
PARAGRAPHS = [
    ("Heading 1", TITLE),
    ("Normal", "The quick brown fox jumps over the lazy dog."),
    ("Heading 2", "Sales"),
    ("Normal", "Sales grew by 10 percent in 2024 and 12 percent in 2025."),
    ("Normal", "Apples and pears sold well; apples sold best."),
    ("Normal", "Thanks for reading."),
]
"""(python-docx style, text) of the source document's paragraphs, in order."""


def document_bytes() -> bytes:
    """A docx with the ``PARAGRAPHS`` above (two headings, four body paragraphs), no tables."""
    document = docx.Document()
    for style, text in PARAGRAPHS:
        document.add_paragraph(text, style=style)
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


API = OfficeApi("WriterTools", "writer", ".docx", document_bytes)
call, saved_copy, launched_writer = API.call, API.saved_copy, API.launched


def saved_docx(guest: GuestClient) -> docx.document.Document:
    """The live document as python-docx reads it after an API save as docx."""
    return docx.Document(io.BytesIO(saved_copy(guest)))


def list_format(document: docx.document.Document, paragraph: docx.text.paragraph.Paragraph) -> str | None:
    """The numbering format ("bullet", "decimal", ...) of a docx paragraph, or None if not in a list."""
    properties = paragraph._p.pPr
    numbering = properties.numPr if properties is not None else None
    if numbering is None or numbering.numId is None:
        return None
    num_id, level = numbering.numId.val, numbering.ilvl.val if numbering.ilvl is not None else 0
    if num_id == 0:  # numId 0 means "no list" in OOXML
        return None
    part = document.part.numbering_part.element
    num = next(n for n in part.findall(qn("w:num")) if int(n.get(qn("w:numId"))) == num_id)
    abstract_id = num.find(qn("w:abstractNumId")).get(qn("w:val"))
    abstract = next(a for a in part.findall(qn("w:abstractNum")) if a.get(qn("w:abstractNumId")) == abstract_id)
    for lvl in abstract.findall(qn("w:lvl")):
        if int(lvl.get(qn("w:ilvl"))) == level:
            return lvl.find(qn("w:numFmt")).get(qn("w:val"))
    return None


def document_children(a11y_tree: str) -> list[str]:
    """The roles of the Writer document's paragraphs as the accessibility tree shows them.

    The linearized tree summarises the document node's children as
    ``{5 children: heading ""; paragraph ""; ...}``.
    """
    match = re.search(r'document text "[^"]*".*?\{\d+ children: ([^}]*)\}', a11y_tree)
    assert match is not None, "no Writer document in the accessibility tree"
    return [child.split(" ")[0] for child in match.group(1).split("; ")]
