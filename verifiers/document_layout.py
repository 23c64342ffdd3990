"""Verifiers that read the layout of saved docx documents: tables, page setup, headers and footers."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from ._load import guarded_read, open_docx
from ._text import fold_text
from .registry import register_verifier
from .result import VerifierResult
from .tables import TableOptions, compare_rows

EMU_PER_CM = 360000

PAGE_SIZES_CM: dict[str, tuple[float, float]] = {
    "a3": (29.7, 42.0),
    "a4": (21.0, 29.7),
    "a5": (14.8, 21.0),
    "letter": (21.59, 27.94),
    "legal": (21.59, 35.56),
}


@register_verifier("docx_tables", reads="file")
def verify_docx_tables(
    data: bytes | None,
    count: int | None = None,
    table_index: int = 0,
    expected_rows: Sequence[Sequence[object]] | None = None,
    ignore_case: bool = False,
    tolerance: float = 1e-6,
    strip: bool = False,
    numeric_text: bool = False,
) -> VerifierResult:
    """Check the number of tables and, optionally, the cell text of one of them.

    Args:
        data: the file's bytes, or None when it does not exist.
        count: the exact number of top-level tables; at least one when None.
        table_index: which table ``expected_rows`` describes (0-based, document order).
        expected_rows: the table's cell texts row by row (numbers compare within ``tolerance``).
        ignore_case: compare text case-insensitively.
        tolerance: absolute tolerance for numbers.
        strip: ignore whitespace around cell text.
        numeric_text: let any cell text that reads as a number equal it (``'1,000'``, ``'3.0'``);
            off, an expected number must be written plainly (``3``, ``-12.5``).
    """
    document = open_docx(data)

    def read() -> list[list[list[str]]]:
        return [[[cell.text for cell in row.cells] for row in table.rows] for table in document.tables]

    tables = guarded_read("docx", read)
    if count is not None and len(tables) != count:
        return VerifierResult.failed(f"expected {count} tables, found {len(tables)}", found=len(tables))
    if count is None and not tables:
        return VerifierResult.failed("the document has no tables", found=0)
    if expected_rows is None:
        return VerifierResult.passed(f"the document has {len(tables)} tables", found=len(tables))
    if table_index >= len(tables):
        return VerifierResult.failed(f"table {table_index} does not exist; found {len(tables)} tables")
    options = TableOptions(
        ignore_case=ignore_case,
        tolerance=tolerance,
        strip=strip,
        numeric_text=numeric_text,
        cells_are_text=True,
    )
    result = compare_rows(tables[table_index], expected_rows, options)
    return VerifierResult(result.success, result.score, f"table {table_index}: {result.reason}", result.details)


def _cm(length: Any) -> float | None:
    return round(length / EMU_PER_CM, 2) if length is not None else None


def section_page_setup(section: Any) -> dict[str, Any]:
    """Orientation, page width/height and margins (cm) of a docx section."""
    width, height = _cm(section.page_width), _cm(section.page_height)
    orientation = "landscape" if width is not None and height is not None and width > height else "portrait"
    return {
        "orientation": orientation,
        "width": width,
        "height": height,
        "margins": {
            "top": _cm(section.top_margin),
            "bottom": _cm(section.bottom_margin),
            "left": _cm(section.left_margin),
            "right": _cm(section.right_margin),
        },
    }


@register_verifier("docx_page_setup", reads="file")
def verify_docx_page_setup(
    data: bytes | None,
    orientation: Literal["portrait", "landscape"] | None = None,
    margins_cm: Mapping[str, float] | None = None,
    page_size: str | tuple[float, float] | None = None,
    section_index: int | None = None,
    tolerance_cm: float = 0.05,
) -> VerifierResult:
    """Check page orientation, margins and paper size of every section (or one).

    Orientation is judged from the page's width and height, which both Word and Writer swap.

    Args:
        data: the file's bytes, or None when it does not exist.
        orientation: ``"portrait"`` or ``"landscape"``.
        margins_cm: side (``"top"``, ``"bottom"``, ``"left"``, ``"right"``) -> margin in cm.
        page_size: ``"A4"``, ``"Letter"``, ``"Legal"``, ``"A3"``, ``"A5"`` or (width, height) in cm,
            in either orientation.
        section_index: check only this section (0-based); every section when None.
        tolerance_cm: absolute tolerance for lengths.
    """
    document = open_docx(data)
    sections = guarded_read("docx", lambda: [section_page_setup(s) for s in document.sections])
    if not sections:
        return VerifierResult.failed("the document has no sections (no page setup)")
    indices = range(len(sections)) if section_index is None else [section_index]
    if section_index is not None and section_index >= len(sections):
        return VerifierResult.failed(f"section {section_index} does not exist; found {len(sections)}")
    if isinstance(page_size, str):
        if page_size.casefold() not in PAGE_SIZES_CM:
            raise ValueError(f"docx_page_setup: unknown page size {page_size!r}; known: {sorted(PAGE_SIZES_CM)}")
        wanted_size: tuple[float, float] | None = PAGE_SIZES_CM[page_size.casefold()]
    else:
        wanted_size = page_size
    for index in indices:
        found = sections[index]
        where = f"section {index}"
        if orientation is not None and found["orientation"] != orientation:
            return VerifierResult.failed(
                f"{where}: orientation expected {orientation}, found {found['orientation']}", found=found
            )
        for side, want in (margins_cm or {}).items():
            got = found["margins"].get(side)
            if got is None or abs(got - want) > tolerance_cm:
                return VerifierResult.failed(f"{where}: {side} margin expected {want} cm, found {got} cm", found=found)
        if wanted_size is not None:
            got_size = sorted([found["width"] or 0.0, found["height"] or 0.0])
            if any(abs(a - b) > tolerance_cm for a, b in zip(got_size, sorted(wanted_size), strict=True)):
                return VerifierResult.failed(
                    f"{where}: page size expected {page_size} ({wanted_size[0]} x {wanted_size[1]} cm), "
                    f"found {found['width']} x {found['height']} cm",
                    found=found,
                )
    return VerifierResult.passed(f"page setup of {len(indices)} sections as expected", sections=sections)


def _header_footer_texts(document: Any, part: str) -> list[dict[str, Any]]:
    found = []
    for index, section in enumerate(document.sections):
        for variant in ("", "first_page_", "even_page_"):
            item = getattr(section, f"{variant}{part}")
            # Reading a linked (undefined) header would make python-docx add one; skip those.
            if item.is_linked_to_previous:
                continue
            text = "\n".join(p.text for p in item.paragraphs)
            text += "".join("\n" + cell.text for table in item.tables for row in table.rows for cell in row.cells)
            found.append({"section": index, "variant": variant.rstrip("_") or "default", "text": text})
    return found


@register_verifier("docx_header_footer", reads="file")
def verify_docx_header_footer(
    data: bytes | None,
    text: str,
    part: Literal["header", "footer"] = "header",
    ignore_case: bool = False,
) -> VerifierResult:
    """Check that a page header (or footer) of any section contains ``text``.

    Args:
        data: the file's bytes, or None when it does not exist.
        text: the text to find.
        part: ``"header"`` or ``"footer"``.
        ignore_case: compare case-insensitively.
    """
    if part not in ("header", "footer"):
        raise ValueError(f"docx_header_footer: part must be 'header' or 'footer', not {part!r}")
    document = open_docx(data)
    found = guarded_read("docx", _header_footer_texts, document, part)
    needle = fold_text(text, ignore_case)
    for entry in found:
        if needle in fold_text(entry["text"], ignore_case):
            return VerifierResult.passed(f"the {entry['variant']} {part} of section {entry['section']} has {text!r}")
    if not found or not any(entry["text"].strip() for entry in found):
        return VerifierResult.failed(f"the document has no {part} text; expected {text!r}", found=found)
    return VerifierResult.failed(
        f"no {part} contains {text!r}; {part}s: {[entry['text'][:80] for entry in found]}", found=found
    )
