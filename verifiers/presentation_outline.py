"""Presentation verifiers for the deck's outline: the title of every slide (pptx and odp), drawn shapes,
and the title font size.

Slides are numbered from 1, as the app shows them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ._load import guarded_read, odf_mimetype, open_odf, open_pptx, require, unreadable
from ._ooxml import DRAWING_NS, local_name
from ._text import fold_text
from .registry import register_verifier
from .result import VerifierResult

ODP_MIMETYPE = "application/vnd.oasis.opendocument.presentation"


def pptx_titles(data: bytes | None) -> list[str]:
    """The title text of every slide of a pptx ("" for a slide without a title placeholder)."""
    presentation = open_pptx(data)

    def read() -> list[str]:
        titles = []
        for slide in presentation.slides:
            shape = slide.shapes.title
            titles.append(shape.text_frame.text if shape is not None and shape.has_text_frame else "")
        return titles

    return guarded_read("pptx", read)


def _compare_titles(found: list[str], titles: Sequence[str], kind: str) -> VerifierResult:
    if [fold_text(t, ignore_case=True) for t in found] == [fold_text(t, ignore_case=True) for t in titles]:
        return VerifierResult.passed(f"the {len(found)} slide titles are in the expected order", found=found)
    return VerifierResult.failed(
        f"the slide titles differ: expected {list(titles)}, found {found}",
        expected=list(titles),
        found=found,
        kind=kind,
    )


@register_verifier("pptx_slide_titles", reads="file")
def verify_pptx_slide_titles(data: bytes | None, titles: Sequence[str]) -> VerifierResult:
    """Check the titles of all slides, in order (so also the slide count).

    Args:
        data: the file's bytes, or None when it does not exist.
        titles: the expected title of each slide, first to last ("" for none); compared
            case-insensitively, whitespace runs counting as one space.
    """
    return _compare_titles(pptx_titles(data), titles, "pptx")


def _is_text_box(element: Any) -> bool:
    return any(e.get("txBox") in ("1", "true") for e in element.iter() if local_name(e) == "cNvSpPr")


@register_verifier("pptx_autoshape", reads="file")
def verify_pptx_autoshape(
    data: bytes | None, slide: int, geometry: str, min_count: int = 1, text: str | None = None
) -> VerifierResult:
    """Check that slide ``slide`` has drawn shapes of a preset geometry (``"rect"``, ``"ellipse"``, ...).

    Args:
        data: the file's bytes, or None when it does not exist.
        slide: the slide number (1-based).
        geometry: the DrawingML preset name (``<a:prstGeom prst="...">``), case-insensitive.
        min_count: the least number of such shapes.
        text: if given, one of them must contain this text (case-insensitive).
    """
    slides = guarded_read("pptx", lambda: list(open_pptx(data).slides))
    if not 1 <= slide <= len(slides):
        return VerifierResult.failed(f"slide {slide} does not exist; the presentation has {len(slides)} slides")

    def matching() -> list[Any]:
        found = []
        for shape in slides[slide - 1].shapes:
            # Placeholders and text boxes are written with a rect geometry too; they are not drawings.
            if local_name(shape.element) != "sp" or shape.is_placeholder or _is_text_box(shape.element):
                continue
            presets = shape.element.iter(f"{{{DRAWING_NS}}}prstGeom")
            if any((p.get("prst") or "").casefold() == geometry.casefold() for p in presets):
                found.append(shape)
        return found

    shapes = guarded_read("pptx", matching)
    if text is not None:
        needle = fold_text(text, ignore_case=True)
        shapes = [s for s in shapes if s.has_text_frame and needle in fold_text(s.text_frame.text, ignore_case=True)]
    label = f"{geometry} shapes" + (f" with text {text!r}" if text is not None else "")
    if len(shapes) < min_count:
        return VerifierResult.failed(f"slide {slide}: expected at least {min_count} {label}, found {len(shapes)}")
    return VerifierResult.passed(f"slide {slide} has {len(shapes)} {label}", found=len(shapes))


@register_verifier("pptx_title_font_size", reads="file")
def verify_pptx_title_font_size(data: bytes | None, slide: int, size: float) -> VerifierResult:
    """Check that every text run of slide ``slide``'s title is set to ``size`` points.

    Only sizes written on the runs count (what the user set); a size inherited from the master
    does not.

    Args:
        data: the file's bytes, or None when it does not exist.
        slide: the slide number (1-based).
        size: the font size in points.
    """
    slides = guarded_read("pptx", lambda: list(open_pptx(data).slides))
    if not 1 <= slide <= len(slides):
        return VerifierResult.failed(f"slide {slide} does not exist; the presentation has {len(slides)} slides")
    title = guarded_read("pptx", lambda: slides[slide - 1].shapes.title)
    if title is None or not title.has_text_frame or not title.text_frame.text.strip():
        return VerifierResult.failed(f"slide {slide} has no title text")
    sizes = guarded_read(
        "pptx",
        lambda: [
            run.font.size.pt if run.font.size is not None else None
            for paragraph in title.text_frame.paragraphs
            for run in paragraph.runs
            if run.text.strip()
        ],
    )
    wrong = [s for s in sizes if s is None or abs(s - size) > 0.01]
    if not sizes or wrong:
        return VerifierResult.failed(
            f"slide {slide}'s title runs have sizes {sizes} (None: inherited), expected {size:g} pt", found=sizes
        )
    return VerifierResult.passed(f"slide {slide}'s title is {size:g} pt", found=sizes)


def _odp_titles(document: Any) -> list[str]:
    from odf import teletype
    from odf.draw import Frame, Page

    frame_qname = Frame().qname
    titles = []
    for page in document.presentation.getElementsByType(Page):
        title = ""
        for child in page.childNodes:
            if getattr(child, "qname", None) == frame_qname and child.getAttribute("class") == "title":
                title = teletype.extractText(child)
                break
        titles.append(title)
    return titles


@register_verifier("odp_slide_titles", reads="file")
def verify_odp_slide_titles(data: bytes | None, titles: Sequence[str]) -> VerifierResult:
    """Check that a file is an OpenDocument presentation whose slide titles are ``titles``, in order.

    Args:
        data: the file's bytes, or None when it does not exist.
        titles: the expected title of each slide, first to last; compared case-insensitively.
    """
    mimetype = odf_mimetype(require(data, "odp"))
    if mimetype != ODP_MIMETYPE:
        raise unreadable("odp", ValueError(f"not an OpenDocument presentation (mimetype {mimetype!r})"))
    found = guarded_read("odp", _odp_titles, open_odf(data, "odp"))
    return _compare_titles(found, titles, "odp")


def pptx_slide_texts(data: bytes | None) -> list[list[str]]:
    """The non-blank text of every shape (groups and tables included) of every slide, in document order."""
    from .presentations import _walk

    presentation = open_pptx(data)

    def read() -> list[list[str]]:
        slides = []
        for slide in presentation.slides:
            texts = []
            for shape in _walk(slide.shapes):
                if shape.has_text_frame:
                    texts.append(fold_text(shape.text_frame.text))
                if getattr(shape, "has_table", False):
                    texts.extend(fold_text(cell.text) for row in shape.table.rows for cell in row.cells)
            slides.append([text for text in texts if text])
        return slides

    return guarded_read("pptx", read)


@register_verifier("pptx_slide_texts", reads="file")
def verify_pptx_slide_texts(data: bytes | None, slides: Sequence[Sequence[str]]) -> VerifierResult:
    """Check the text of every slide: same slides, and on each the same shape texts in the same order.

    Whitespace runs count as one space and case matters; shapes without text are ignored. This is
    the text part of comparing a presentation with a gold one.

    Args:
        data: the file's bytes, or None when it does not exist.
        slides: per slide, the texts of its shapes in document order.
    """
    found = pptx_slide_texts(data)
    wanted = [[" ".join(text.split()) for text in slide if text.strip()] for slide in slides]
    if len(found) != len(wanted):
        return VerifierResult.failed(f"expected {len(wanted)} slides, found {len(found)}", found=len(found))
    for number, (got, want) in enumerate(zip(found, wanted, strict=True), start=1):
        if got != want:
            first = next(
                (i for i, (a, b) in enumerate(zip(got, want, strict=False)) if a != b), min(len(got), len(want))
            )
            return VerifierResult.failed(
                f"slide {number} differs at text {first + 1}: expected "
                f"{want[first] if first < len(want) else None!r}, found {got[first] if first < len(got) else None!r}",
                score=(number - 1) / len(wanted),
                slide=number,
            )
    return VerifierResult.passed(f"all {len(wanted)} slides have the expected texts")
