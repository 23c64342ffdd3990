"""Verifiers for exported and saved-as files: a file's real format, and PDFs (pages, title)."""

from __future__ import annotations

import re
from typing import Literal

from ._load import is_odt, require, unreadable
from .registry import register_verifier
from .result import VerifierResult

_PDF_PAGE = re.compile(rb"/Type\s*/Page(?![a-zA-Z])")


def pdf_page_count(data: bytes | None) -> int:
    """The number of page objects of a PDF (LibreOffice writes them uncompressed).

    Raises:
        DocumentError: the file is missing or has no ``%PDF-`` header.
    """
    data = require(data, "pdf")
    if not data.startswith(b"%PDF-"):
        raise unreadable("pdf", ValueError(f"no %PDF- header; it starts with {data[:8]!r}"))
    return len(_PDF_PAGE.findall(data))


def _pdf_strings(data: bytes, key: str) -> list[str]:
    """Decoded values of ``/<key>`` string entries (literal or hex, PDFDocEncoding or UTF-16)."""
    values = []
    pattern = rb"/" + key.encode() + rb"\s*(\((?:\\.|[^\\)])*\)|<[0-9A-Fa-f\s]*>)"
    for match in re.finditer(pattern, data, re.S):
        raw = match.group(1)
        if raw.startswith(b"<"):
            digits = re.sub(rb"\s", b"", raw[1:-1])
            value = bytes.fromhex((digits + b"0" * (len(digits) % 2)).decode())
        else:
            value = re.sub(rb"\\([\\()])", rb"\1", raw[1:-1])
        values.append(value[2:].decode("utf-16-be", "replace") if value[:2] == b"\xfe\xff" else value.decode("latin-1"))
    return values


@register_verifier("pdf_document", reads="file")
def verify_pdf_document(data: bytes | None, title: str | None = None, min_pages: int = 1) -> VerifierResult:
    """Check that a file is a PDF with at least ``min_pages`` pages and, optionally, a given title.

    Args:
        data: the file's bytes, or None when it does not exist.
        title: the document title expected in the PDF's metadata (``/Title``), exact.
        min_pages: the least number of pages (page objects counted; files using compressed
            object streams may hide them, so keep this at 1 for those).
    """
    pages = pdf_page_count(data)
    data = require(data, "pdf")
    if pages < min_pages:
        return VerifierResult.failed(f"expected at least {min_pages} pages, found {pages}", pages=pages)
    if title is not None:
        titles = _pdf_strings(data, "Title")
        if title not in titles:
            return VerifierResult.failed(f"the PDF's title is not {title!r}; titles found: {titles[:5]}", titles=titles)
    return VerifierResult.passed(f"a PDF with {pages} pages" + (f" titled {title!r}" if title else ""), pages=pages)


FORMAT_SIGNATURES = {"pdf": "PDF", "odt": "OpenDocument text (odt)", "docx": "Word document (docx)"}


@register_verifier("document_format", reads="file")
def verify_document_format(data: bytes | None, file_format: Literal["odt", "docx", "pdf"]) -> VerifierResult:
    """Check a saved file's real format from its content (not its name): ``odt``, ``docx`` or ``pdf``.

    Args:
        data: the file's bytes, or None when it does not exist.
        file_format: ``"odt"``, ``"docx"`` or ``"pdf"``.
    """
    if file_format not in FORMAT_SIGNATURES:
        raise ValueError(
            f"document_format: file_format must be one of {sorted(FORMAT_SIGNATURES)}, not {file_format!r}"
        )
    data = require(data, file_format)
    if file_format == "pdf":
        ok = data.startswith(b"%PDF-")
    elif file_format == "odt":
        ok = is_odt(data)
    else:
        ok = data.startswith(b"PK") and b"word/document.xml" in data
    if ok:
        return VerifierResult.passed(f"the file is a {FORMAT_SIGNATURES[file_format]}")
    return VerifierResult.failed(
        f"the file is not a readable {FORMAT_SIGNATURES[file_format]} (it starts with {data[:8]!r})"
    )


@register_verifier("pdf_pages", reads="file")
def verify_pdf_pages(data: bytes | None, count: int) -> VerifierResult:
    """Check that a file is a PDF with ``count`` pages.

    Pages are counted from their ``/Type /Page`` objects, which LibreOffice writes uncompressed.

    Args:
        data: the file's bytes, or None when it does not exist.
        count: the expected number of pages.
    """
    found = pdf_page_count(data)
    if found != count:
        return VerifierResult.failed(f"expected a {count}-page PDF, found {found} pages", found=found)
    return VerifierResult.passed(f"the PDF has {found} pages", found=found)
