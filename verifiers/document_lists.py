"""Verifiers for numbered things in saved docx documents: bulleted and numbered lists, page-number fields."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from ._load import guarded_read, open_docx
from .documents import _style_chain, find_paragraphs, paragraph_alignment
from .registry import register_verifier
from .result import VerifierResult

ListKind = Literal["bullet", "numbered"]


def _numbering(paragraph: Any) -> tuple[str, str] | None:
    """``(numId, ilvl)`` of a docx paragraph in a list (directly or through its style), else None."""
    from docx.oxml.ns import qn

    for p_pr in [paragraph._p.pPr] + [style.element.pPr for style in _style_chain(paragraph.style)]:
        num_pr = p_pr.find(qn("w:numPr")) if p_pr is not None else None
        if num_pr is None:
            continue
        num_id = num_pr.find(qn("w:numId"))
        if num_id is None:
            continue
        value = num_id.get(qn("w:val"), "0")
        if value == "0":  # numId 0 explicitly removes list formatting
            return None
        level = num_pr.find(qn("w:ilvl"))
        return value, level.get(qn("w:val"), "0") if level is not None else "0"
    return None


def _number_format(document: Any, num_id: str, level: str) -> str | None:
    """The ``w:numFmt`` (``"bullet"``, ``"decimal"``, ...) of a list level, following numId -> abstractNum."""
    from docx.oxml.ns import qn

    try:
        numbering = document.part.numbering_part.element
    except (KeyError, NotImplementedError):
        return None
    for num in numbering.findall(qn("w:num")):
        if num.get(qn("w:numId")) != num_id:
            continue
        abstract = num.find(qn("w:abstractNumId"))
        abstract_id = abstract.get(qn("w:val")) if abstract is not None else None
        for override in num.findall(qn("w:lvlOverride")):
            fmt = _level_format(override.find(qn("w:lvl")), level, override.get(qn("w:ilvl")))
            if fmt:
                return fmt
        for abstract_num in numbering.findall(qn("w:abstractNum")):
            if abstract_num.get(qn("w:abstractNumId")) == abstract_id:
                for lvl in abstract_num.findall(qn("w:lvl")):
                    fmt = _level_format(lvl, level, lvl.get(qn("w:ilvl")))
                    if fmt:
                        return fmt
    return None


def _level_format(lvl: Any, wanted: str, found: str | None) -> str | None:
    from docx.oxml.ns import qn

    if lvl is None or found != wanted:
        return None
    fmt = lvl.find(qn("w:numFmt"))
    return fmt.get(qn("w:val")) if fmt is not None else None


def list_kind(document: Any, paragraph: Any) -> str | None:
    """``"bullet"``, ``"numbered"`` or None (not a list item) for a docx paragraph."""
    numbering = _numbering(paragraph)
    if numbering is None:
        return None
    fmt = _number_format(document, *numbering)
    if fmt is None or fmt == "none":
        return None
    return "bullet" if fmt == "bullet" else "numbered"


@register_verifier("docx_list", reads="file")
def verify_docx_list(
    data: bytes | None, items: Sequence[str], kind: ListKind, not_items: Sequence[str] = ()
) -> VerifierResult:
    """Check that the paragraphs holding ``items`` are list items of one kind (and ``not_items`` are not).

    Args:
        data: the file's bytes, or None when it does not exist.
        items: text inside each paragraph that must be a list item.
        kind: ``"bullet"`` or ``"numbered"`` (any numbering format: 1., a), i., ...).
        not_items: text of paragraphs that must not be list items.
    """
    if kind not in ("bullet", "numbered"):
        raise ValueError(f"docx_list: kind must be 'bullet' or 'numbered', not {kind!r}")
    document = open_docx(data)

    def check() -> VerifierResult:
        for item in items:
            found = find_paragraphs(document, item)
            if not found:
                return VerifierResult.failed(f"no paragraph contains the list item {item[:60]!r}")
            kinds = [list_kind(document, paragraph) for paragraph in found]
            if kind not in kinds:
                return VerifierResult.failed(
                    f"the paragraph with {item[:60]!r} is not a {kind} list item (found {kinds[0] or 'no list'})",
                    item=item,
                    found=kinds,
                )
        for text in not_items:
            kinds = [list_kind(document, paragraph) for paragraph in find_paragraphs(document, text)]
            if any(kinds):
                return VerifierResult.failed(f"the paragraph with {text[:60]!r} should not be a list item")
        return VerifierResult.passed(f"{len(items)} paragraphs are {kind} list items")

    return guarded_read("docx", check)


def _page_field_paragraphs(area: Any) -> list[Any]:
    """The paragraphs of a header/footer that hold a ``PAGE`` field (simple or complex field form)."""
    from docx.oxml.ns import qn
    from docx.text.paragraph import Paragraph

    found = []
    for p in area._element.iter(qn("w:p")):
        simple = any((f.get(qn("w:instr")) or "").split()[:1] == ["PAGE"] for f in p.iter(qn("w:fldSimple")))
        complex_ = any((i.text or "").split()[:1] == ["PAGE"] for i in p.iter(qn("w:instrText")))
        if simple or complex_:
            found.append(Paragraph(p, area))
    return found


@register_verifier("docx_page_number", reads="file")
def verify_docx_page_number(
    data: bytes | None,
    part: Literal["header", "footer"] = "footer",
    alignment: Literal["left", "center", "right"] | None = None,
) -> VerifierResult:
    """Check that a page header (or footer) of some section holds a page-number field (``PAGE``).

    Args:
        data: the file's bytes, or None when it does not exist.
        part: ``"header"`` or ``"footer"``.
        alignment: also require the field's paragraph to be aligned so (``"left"``, ``"center"``, ``"right"``).
    """
    if part not in ("header", "footer"):
        raise ValueError(f"docx_page_number: part must be 'header' or 'footer', not {part!r}")
    document = open_docx(data)

    def check() -> VerifierResult:
        misaligned: list[str] = []
        for index, section in enumerate(document.sections):
            for variant in ("", "first_page_", "even_page_"):
                area = getattr(section, f"{variant}{part}")
                if area.is_linked_to_previous:
                    continue
                for paragraph in _page_field_paragraphs(area):
                    found = paragraph_alignment(paragraph)
                    if alignment is None or found == alignment:
                        where = variant.rstrip("_") or "default"
                        return VerifierResult.passed(f"the {where} {part} of section {index} has a page number field")
                    misaligned.append(found)
        if misaligned:
            return VerifierResult.failed(
                f"the page number in the {part} is aligned {misaligned[0]}, expected {alignment}", found=misaligned
            )
        return VerifierResult.failed(f"no {part} holds a page number field (PAGE)")

    return guarded_read("docx", check)
