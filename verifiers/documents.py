"""Verifiers that read saved text documents (docx through python-docx)."""

from __future__ import annotations

import io
import zipfile

from .result import VerifierResult


def docx_paragraphs(data: bytes) -> list[str]:
    """The text of every body paragraph of a docx file, in order."""
    import docx

    return [paragraph.text for paragraph in docx.Document(io.BytesIO(data)).paragraphs]


def verify_docx_has_paragraph(data: bytes | None, text: str, exact: bool = True) -> VerifierResult:
    """Check that a saved docx has a paragraph equal to (or, with ``exact=False``, containing) ``text``.

    Args:
        data: the file's bytes, or None when it does not exist.
        text: the paragraph text to look for (surrounding whitespace ignored).
        exact: require the whole paragraph to equal ``text``.
    """
    if data is None:
        return VerifierResult.failed("the document does not exist (was it saved?)")
    try:
        paragraphs = docx_paragraphs(data)
    except (zipfile.BadZipFile, KeyError, ValueError) as error:
        return VerifierResult.failed(f"the file is not a readable docx document: {error}")
    wanted = text.strip()
    for index, paragraph in enumerate(paragraphs):
        found = paragraph.strip()
        if found == wanted or (not exact and wanted in found):
            return VerifierResult.passed(f"paragraph {index} has the text", paragraph_index=index)
    return VerifierResult.failed(
        f"no paragraph {'equals' if exact else 'contains'} {wanted!r}",
        paragraphs=[p for p in paragraphs if p.strip()][:20],
    )
