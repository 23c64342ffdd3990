"""Verifiers on the text of a PDF, page by page (read with pypdf), as in a gold PDF."""

from __future__ import annotations

import io
from collections.abc import Sequence

from ._limits import check_size
from ._load import guarded_read, require, unreadable
from .registry import register_verifier
from .result import VerifierResult

MAX_PAGES = 500
MAX_PAGE_CHARS = 200_000


def pdf_page_texts(data: bytes | None) -> list[str]:
    """Each page's text, whitespace runs as one space.

    Raises:
        DocumentError: the file is missing, over the size bound, not a PDF, encrypted or unreadable.
    """
    data = require(data, "pdf")
    check_size(data, "pdf")
    if not data.lstrip()[:5] == b"%PDF-":
        raise unreadable("pdf", ValueError(f"no %PDF- header; it starts with {data[:8]!r}"))

    def read() -> list[str]:
        from pypdf import PdfReader

        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted:
            raise ValueError("the PDF is encrypted")
        if len(reader.pages) > MAX_PAGES:
            raise ValueError(f"the PDF has {len(reader.pages)} pages (at most {MAX_PAGES} are read)")
        return [" ".join((page.extract_text() or "")[:MAX_PAGE_CHARS].split()) for page in reader.pages]

    return guarded_read("pdf", read)


@register_verifier("pdf_text", reads="file")
def verify_pdf_text(data: bytes | None, pages: Sequence[str], ignore_case: bool = False) -> VerifierResult:
    """Check that the PDF has exactly these pages with this text (whitespace runs count as one space).

    Args:
        data: the PDF's bytes, or None when it does not exist.
        pages: each page's expected text, in order.
        ignore_case: compare case-insensitively.
    """
    found = pdf_page_texts(data)
    wanted = [" ".join(text.split()) for text in pages]
    if len(found) != len(wanted):
        return VerifierResult.failed(f"expected {len(wanted)} page(s), found {len(found)}", found=len(found))
    for number, (have, want) in enumerate(zip(found, wanted, strict=True), start=1):
        if (have.lower() != want.lower()) if ignore_case else (have != want):
            return VerifierResult.failed(
                f"page {number} text differs: expected {want[:120]!r}, found {have[:120]!r}", page=number
            )
    return VerifierResult.passed(f"{len(found)} page(s) with the expected text")
