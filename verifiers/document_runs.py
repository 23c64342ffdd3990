"""Verifiers for character formatting in docx: which text carries a run property, run fonts, page breaks.

These back OSWorld's Writer checks (highlighted, struck-through or subscript text as in a gold
document; every run in one font; italic text at one size; a page break; the first paragraph's
alignment) with our own reading of the document XML, inherited styles included.
"""

from __future__ import annotations

from typing import Any, Literal

from ._load import guarded_read, open_docx
from .documents import _all_paragraphs, effective_run_property, paragraph_alignment
from .registry import register_verifier
from .result import VerifierResult

RunProperty = Literal["highlight", "strike", "subscript", "superscript", "bold", "italic", "underline"]
RUN_PROPERTIES = ("highlight", "strike", "subscript", "superscript", "bold", "italic", "underline")
MAX_RUNS = 200_000


def _run_has(document: Any, paragraph: Any, run: Any, prop: str) -> bool:
    from docx.oxml.ns import qn

    r_pr = run._r.rPr
    if prop == "highlight":
        mark = r_pr.find(qn("w:highlight")) if r_pr is not None else None
        shade = r_pr.find(qn("w:shd")) if r_pr is not None else None
        if mark is not None:
            return mark.get(qn("w:val"), "none") != "none"
        return shade is not None and shade.get(qn("w:fill"), "auto") not in ("auto", "FFFFFF", "ffffff")
    if prop in ("subscript", "superscript"):
        align = r_pr.find(qn("w:vertAlign")) if r_pr is not None else None
        return align is not None and align.get(qn("w:val")) == prop
    if prop == "strike":
        return bool(run.font.strike or run.font.double_strike)
    return bool(effective_run_property(document, paragraph, run, prop))


def formatted_spans(data: bytes | None, prop: str) -> list[str]:
    """The texts carrying ``prop``: adjacent runs that have it joined, blank spans dropped, in order.

    Raises:
        ValueError: ``prop`` is not one of ``RUN_PROPERTIES``.
        DocumentError: the file is missing or not a readable docx.
    """
    if prop not in RUN_PROPERTIES:
        raise ValueError(f"run property must be one of {', '.join(RUN_PROPERTIES)}, not {prop!r}")
    document = open_docx(data)

    def read() -> list[str]:
        spans, seen = [], 0
        for paragraph in _all_paragraphs(document):
            current = ""
            for run in paragraph.runs:
                seen += 1
                if seen > MAX_RUNS:
                    raise ValueError(f"more than {MAX_RUNS} runs")
                if _run_has(document, paragraph, run, prop):
                    current += run.text
                elif current:
                    spans.append(current)
                    current = ""
            if current:
                spans.append(current)
        return [" ".join(span.split()) for span in spans if span.strip()]

    return guarded_read("docx", read)


@register_verifier("docx_formatted_text", reads="file")
def verify_docx_formatted_text(
    data: bytes | None, prop: RunProperty, expected: list[str], ignore_order: bool = False
) -> VerifierResult:
    """Check that exactly the texts ``expected`` carry run property ``prop`` (highlight, strike, ...).

    Args:
        data: the file's bytes, or None when it does not exist.
        prop: one of ``highlight``, ``strike``, ``subscript``, ``superscript``, ``bold``, ``italic``,
            ``underline`` (inherited from styles for the last three).
        expected: the formatted spans, in document order (adjacent formatted runs form one span;
            whitespace runs count as one space).
        ignore_order: compare as multisets.
    """
    found = formatted_spans(data, prop)
    wanted = [" ".join(text.split()) for text in expected]
    same = sorted(found) == sorted(wanted) if ignore_order else found == wanted
    if not same:
        return VerifierResult.failed(
            f"text with {prop}: expected {wanted[:10]}, found {found[:10]}", expected=wanted, found=found[:200]
        )
    return VerifierResult.passed(f"{len(found)} span(s) with {prop}, as expected")


@register_verifier("docx_run_fonts", reads="file")
def verify_docx_run_fonts(
    data: bytes | None, name: str | None = None, size: float | None = None, only: RunProperty | None = None
) -> VerifierResult:
    """Check the font of every run with text (or of those carrying ``only``, such as italic ones).

    Args:
        data: the file's bytes, or None when it does not exist.
        name: every such run's font name (inherited from styles and defaults).
        size: every such run's size in points.
        only: check only runs with this property; then at least one must exist.
    """
    if name is None and size is None:
        raise ValueError("docx_run_fonts: give name, size or both")
    document = open_docx(data)

    def read() -> tuple[int, list[str]]:
        checked, wrong = 0, []
        for paragraph in _all_paragraphs(document):
            for run in paragraph.runs:
                if not run.text.strip() or (only and not _run_has(document, paragraph, run, only)):
                    continue
                checked += 1
                if checked > MAX_RUNS:
                    raise ValueError(f"more than {MAX_RUNS} runs")
                found_name = effective_run_property(document, paragraph, run, "name")
                found_size = effective_run_property(document, paragraph, run, "size")
                if (name is not None and found_name != name) or (size is not None and found_size != size):
                    wrong.append(f"{run.text.strip()[:30]!r}: {found_name} {found_size}pt")
        return checked, wrong

    checked, wrong = guarded_read("docx", read)
    if only and not checked:
        return VerifierResult.failed(f"no run with {only} text")
    if wrong:
        return VerifierResult.failed(f"{len(wrong)} of {checked} runs differ: {'; '.join(wrong[:5])}", wrong=wrong[:50])
    return VerifierResult.passed(f"all {checked} runs in the expected font")


def _breaks_before(paragraph: Any, previous: Any | None) -> bool:
    """Whether a page break precedes ``paragraph``: page-break-before (direct), a page break run
    before its first text, or one after the last text of the paragraph before it."""
    from docx.oxml.ns import qn

    p_pr = paragraph._p.pPr
    if p_pr is not None and p_pr.find(qn("w:pageBreakBefore")) is not None:
        return True

    def page_break(element: Any) -> bool:
        return element.tag == qn("w:br") and element.get(qn("w:type")) == "page"

    for element in paragraph._p.iter(qn("w:br"), qn("w:t")):
        if element.tag == qn("w:t") and (element.text or "").strip():
            break
        if page_break(element):
            return True
    if previous is not None:
        for element in reversed(list(previous._p.iter(qn("w:br"), qn("w:t")))):
            if element.tag == qn("w:t") and (element.text or "").strip():
                return False
            if page_break(element):
                return True
    return False


@register_verifier("docx_page_breaks", reads="file")
def verify_docx_page_breaks(data: bytes | None, min_count: int = 1, before_text: str | None = None) -> VerifierResult:
    """Check for manual page breaks (a break run or page-break-before).

    Args:
        data: the file's bytes, or None when it does not exist.
        min_count: at least this many breaks in the body.
        before_text: also require a break right before the paragraph that starts with this text.
    """
    from docx.oxml.ns import qn

    document = open_docx(data)

    def count() -> int:
        body = document.element.body
        breaks = sum(1 for br in body.iter(qn("w:br")) if br.get(qn("w:type")) == "page")
        return breaks + sum(1 for _ in body.iter(qn("w:pageBreakBefore")))

    found = guarded_read("docx", count)
    if found < min_count:
        return VerifierResult.failed(f"expected at least {min_count} page break(s), found {found}", found=found)
    if before_text is not None:
        paragraphs = guarded_read("docx", lambda: list(document.paragraphs))
        index = next((i for i, p in enumerate(paragraphs) if p.text.strip().startswith(before_text)), None)
        if index is None:
            return VerifierResult.failed(f"no paragraph starts with {before_text[:60]!r}")
        previous = paragraphs[index - 1] if index else None
        if not guarded_read("docx", _breaks_before, paragraphs[index], previous):
            return VerifierResult.failed(f"no page break right before {before_text[:60]!r}", found=found)
    return VerifierResult.passed(f"{found} page break(s)")


@register_verifier("docx_paragraph_alignment", reads="file")
def verify_docx_paragraph_alignment(
    data: bytes | None, alignment: Literal["left", "center", "right", "justify"], index: int = 0
) -> VerifierResult:
    """Check the alignment of the ``index``-th paragraph with text (0: the first; -1: the last)."""
    document = open_docx(data)
    paragraphs = guarded_read("docx", lambda: [p for p in document.paragraphs if p.text.strip()])
    if not -len(paragraphs) <= index < len(paragraphs):
        return VerifierResult.failed(f"no paragraph {index}: the document has {len(paragraphs)} with text")
    found = guarded_read("docx", paragraph_alignment, paragraphs[index])
    if found != alignment:
        return VerifierResult.failed(
            f"paragraph {index} ({paragraphs[index].text[:40]!r}) is {found}-aligned, expected {alignment}",
            expected=alignment,
            found=found,
        )
    return VerifierResult.passed(f"paragraph {index} is {alignment}-aligned")


MATH_NS = "http://schemas.openxmlformats.org/officeDocument/2006/math"
VML_OFFICE_NS = "urn:schemas-microsoft-com:office:office"


def equation_count(data: bytes | None) -> int:
    """Equations in a docx: Office Math (``m:oMath``, what LibreOffice writes) plus embedded
    equation objects (``o:OLEObject`` whose ProgID names an equation or math object)."""
    document = open_docx(data)

    def count() -> int:
        body = document.element.body
        maths = sum(1 for _ in body.iter(f"{{{MATH_NS}}}oMath"))
        objects = sum(
            1
            for element in body.iter(f"{{{VML_OFFICE_NS}}}OLEObject")
            if any(word in (element.get("ProgID") or "") for word in ("Equation", "Math"))
        )
        return maths + objects

    return guarded_read("docx", count)


@register_verifier("docx_equations", reads="file")
def verify_docx_equations(data: bytes | None, min_count: int = 1) -> VerifierResult:
    """Check that the document holds at least ``min_count`` equations (``equation_count``)."""
    found = equation_count(data)
    if found < min_count:
        return VerifierResult.failed(f"expected at least {min_count} equation(s), found {found}", found=found)
    return VerifierResult.passed(f"{found} equation(s)")
