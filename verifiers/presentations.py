"""Verifiers that read saved presentations (pptx through python-pptx, plus the slide XML).

Slides are numbered from 1, as the app shows them.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Literal

from ._load import guarded_read, open_pptx
from ._ooxml import DRAWING_NS, local_name
from ._text import fold_text
from .registry import register_verifier
from .result import CheckFailed, VerifierResult, count_mismatch

ShapeKind = Literal["any", "picture", "table", "chart", "text", "group"]

# PowerPoint's layout names -> the names LibreOffice gives the same layouts when it saves pptx.
LAYOUT_ALIASES: dict[str, str] = {
    "title and content": "title, content",
    "two content": "title, 2 content",
    "blank": "blank slide",
    "title only": "title only",
    "title slide": "title slide",
}


def _slides(data: bytes | None) -> list[Any]:
    presentation = open_pptx(data)
    return guarded_read("pptx", lambda: list(presentation.slides))


def _pick(slides: list[Any], slide: int) -> Any:
    """Slide number ``slide`` (from 1), or ``CheckFailed`` when the presentation has no such slide."""
    if not 1 <= slide <= len(slides):
        raise CheckFailed(f"slide {slide} does not exist; the presentation has {len(slides)} slides")
    return slides[slide - 1]


def _walk(shapes: Any) -> Iterator[Any]:
    for shape in shapes:
        yield shape
        if local_name(shape.element) == "grpSp":
            yield from _walk(shape.shapes)


def slide_text(slide: Any) -> str:
    """All text on a slide: text frames (groups included) and table cells, one line per paragraph."""
    lines: list[str] = []
    for shape in _walk(slide.shapes):
        if shape.has_text_frame:
            lines.extend(p.text for p in shape.text_frame.paragraphs)
        if getattr(shape, "has_table", False):
            lines.extend(cell.text for row in shape.table.rows for cell in row.cells)
    return "\n".join(lines)


@register_verifier("pptx_slide_count", reads="file")
def verify_pptx_slide_count(
    data: bytes | None, count: int | None = None, min_count: int | None = None, max_count: int | None = None
) -> VerifierResult:
    """Check the number of slides.

    Args:
        data: the file's bytes, or None when it does not exist.
        count: the exact number.
        min_count: the least number.
        max_count: the most.
    """
    found = len(_slides(data))
    mismatch = count_mismatch(found, "slides", count, min_count, max_count)
    return mismatch or VerifierResult.passed(f"the presentation has {found} slides", found=found)


@register_verifier("pptx_text", reads="file")
def verify_pptx_text(
    data: bytes | None,
    text: str,
    slide: int | None = None,
    ignore_case: bool = False,
    match: Literal["contains", "shape"] = "contains",
) -> VerifierResult:
    """Check that ``text`` appears on slide ``slide`` (1-based), or on any slide when None.

    Args:
        data: the file's bytes, or None when it does not exist.
        text: the text to find (whitespace runs count as one space).
        slide: the slide number; any slide when None.
        ignore_case: compare case-insensitively.
        match: ``"contains"``: anywhere in the slide's text; ``"shape"``: one shape's whole text is
            ``text`` (a box stuffed with other text as well does not count).
    """
    slides = _slides(data)
    numbers = range(1, len(slides) + 1) if slide is None else [slide]
    if slide is not None:
        _pick(slides, slide)
    needle = fold_text(text, ignore_case)

    def shape_texts(page: Any) -> list[str]:
        return [fold_text(shape.text_frame.text, ignore_case) for shape in _walk(page.shapes) if shape.has_text_frame]

    for number in numbers:
        page = slides[number - 1]
        if match == "shape":
            found = needle in guarded_read("pptx", shape_texts, page)
        else:
            found = needle in fold_text(guarded_read("pptx", slide_text, page), ignore_case)
        if found:
            return VerifierResult.passed(f"slide {number} has {text[:60]!r}", slide=number)
    where = f"slide {slide}" if slide is not None else f"any of {len(slides)} slides"
    wording = "any shape's whole text" if match == "shape" else "anywhere"
    return VerifierResult.failed(f"{text[:60]!r} is not {wording} on {where}")


@register_verifier("pptx_title", reads="file")
def verify_pptx_title(
    data: bytes | None,
    slide: int,
    title: str,
    match: Literal["equals", "contains"] = "equals",
    ignore_case: bool = True,
) -> VerifierResult:
    """Check the title placeholder's text of slide ``slide``.

    Args:
        data: the file's bytes, or None when it does not exist.
        slide: the slide number (1-based).
        title: the expected title.
        match: the title ``"equals"`` or ``"contains"`` the text.
        ignore_case: compare case-insensitively.
    """
    picked = _pick(_slides(data), slide)
    shape = guarded_read("pptx", lambda: picked.shapes.title)
    if shape is None:
        return VerifierResult.failed(f"slide {slide} has no title placeholder", expected=title)
    found = shape.text_frame.text if shape.has_text_frame else ""
    got, want = fold_text(found, ignore_case), fold_text(title, ignore_case)
    if got == want or (match == "contains" and want in got):
        return VerifierResult.passed(f"slide {slide}'s title is {found!r}")
    return VerifierResult.failed(
        f"slide {slide}'s title differs: expected {title!r}, found {found!r}", expected=title, found=found
    )


@register_verifier("pptx_layout", reads="file")
def verify_pptx_layout(data: bytes | None, slide: int, layout: str) -> VerifierResult:
    """Check the layout name of slide ``slide`` (``"Title Slide"``, ``"Title and Content"``, ...).

    Args:
        data: the file's bytes, or None when it does not exist.
        slide: the slide number (1-based).
        layout: the layout name, case-insensitive; PowerPoint names also match LibreOffice's
            (``"Title and Content"`` = ``"Title, Content"``).
    """
    picked = _pick(_slides(data), slide)
    found = guarded_read("pptx", lambda: picked.slide_layout.name)
    names = {layout.casefold(), LAYOUT_ALIASES.get(layout.casefold(), layout.casefold())}
    if (found or "").casefold() in names:
        return VerifierResult.passed(f"slide {slide} uses layout {found!r}")
    return VerifierResult.failed(
        f"slide {slide}'s layout differs: expected {layout!r}, found {found!r}", expected=layout, found=found
    )


def _own_background(element: Any) -> str | None:
    for bg in element.iter("{http://schemas.openxmlformats.org/presentationml/2006/main}bg"):
        fill = bg.find(f".//{{{DRAWING_NS}}}solidFill")
        if fill is None:
            return "non-solid"
        for child in fill:
            if local_name(child) == "srgbClr":
                return (child.get("val") or "").upper()
            if local_name(child) == "schemeClr":
                return f"scheme:{child.get('val')}"
        return "non-solid"
    return None


def slide_background(slide: Any) -> str | None:
    """The background colour ``"RRGGBB"`` of a slide (inherited from its layout and master), or
    ``"scheme:<name>"``, ``"non-solid"`` (gradient, picture), or None when nothing defines one."""
    for part in (slide, slide.slide_layout, slide.slide_layout.slide_master):
        found = _own_background(part.element)
        if found is not None:
            return found
    return None


@register_verifier("pptx_background", reads="file")
def verify_pptx_background(data: bytes | None, color: str, slide: int | None = None) -> VerifierResult:
    """Check the solid background colour of slide ``slide`` (every slide when None).

    Args:
        data: the file's bytes, or None when it does not exist.
        color: ``"RRGGBB"`` (a leading ``#`` is fine), case-insensitive.
        slide: the slide number (1-based); every slide when None.
    """
    slides = _slides(data)
    want = color.lstrip("#").upper()
    numbers = range(1, len(slides) + 1) if slide is None else [slide]
    if slide is not None:
        _pick(slides, slide)
    for number in numbers:
        found = guarded_read("pptx", slide_background, slides[number - 1])
        if found != want:
            return VerifierResult.failed(
                f"slide {number}'s background differs: expected {want}, found {found}",
                slide=number,
                expected=want,
                found=found,
            )
    return VerifierResult.passed(f"{len(numbers)} slides have background {want}")


@register_verifier("pptx_notes", reads="file")
def verify_pptx_notes(data: bytes | None, slide: int, text: str, ignore_case: bool = False) -> VerifierResult:
    """Check that the speaker notes of slide ``slide`` contain ``text``.

    Args:
        data: the file's bytes, or None when it does not exist.
        slide: the slide number (1-based).
        text: the text to find.
        ignore_case: compare case-insensitively.
    """
    picked = _pick(_slides(data), slide)

    def notes() -> str | None:
        if not picked.has_notes_slide:
            return None
        frame = picked.notes_slide.notes_text_frame
        return frame.text if frame is not None else ""

    found = guarded_read("pptx", notes)
    if found is None:
        return VerifierResult.failed(f"slide {slide} has no speaker notes; expected {text!r}")
    if fold_text(text, ignore_case) in fold_text(found, ignore_case):
        return VerifierResult.passed(f"slide {slide}'s notes contain {text!r}")
    return VerifierResult.failed(f"slide {slide}'s notes do not contain {text!r}; notes: {found[:200]!r}", found=found)


def slide_transitions(slide: Any) -> list[str]:
    """Transition effect names of a slide (``"fade"``, ``"push"``, ...).

    Both the plain element and the ``mc:AlternateContent`` copies count. A ``<p:transition>`` with
    no effect inside is no transition: LibreOffice writes one on every slide it saves.
    """
    kinds: list[str] = []
    for element in slide.element.iter():
        if local_name(element) == "transition":
            effects = [local_name(child) for child in element if local_name(child) not in ("sndAc", "extLst")]
            kinds.extend(effects)
    return kinds


@register_verifier("pptx_transitions", reads="file")
def verify_pptx_transitions(
    data: bytes | None, slide: int | None = None, transition_type: str | None = None
) -> VerifierResult:
    """Check that slide ``slide`` (every slide when None) has a transition, optionally of a type.

    Args:
        data: the file's bytes, or None when it does not exist.
        slide: the slide number (1-based); every slide when None.
        transition_type: the effect's element name, case-insensitive (``"fade"``, ``"push"``,
            ``"wipe"``, ``"prism"``, ...); any effect when None.
    """
    slides = _slides(data)
    numbers = range(1, len(slides) + 1) if slide is None else [slide]
    if slide is not None:
        _pick(slides, slide)
    for number in numbers:
        kinds = guarded_read("pptx", slide_transitions, slides[number - 1])
        if not kinds:
            return VerifierResult.failed(f"slide {number} has no transition", slide=number)
        if transition_type is not None and transition_type.casefold() not in [k.casefold() for k in kinds]:
            return VerifierResult.failed(
                f"slide {number}'s transition is {sorted(set(kinds))}, expected {transition_type}",
                slide=number,
                found=kinds,
            )
    return VerifierResult.passed(f"{len(numbers)} slides have the expected transition")


def _shape_kind_matches(shape: Any, kind: ShapeKind) -> bool:
    tag = local_name(shape.element)
    if kind == "any":
        return True
    if kind == "picture":
        return tag == "pic"
    if kind == "table":
        return bool(getattr(shape, "has_table", False))
    if kind == "chart":
        return bool(getattr(shape, "has_chart", False))
    if kind == "group":
        return tag == "grpSp"
    return bool(shape.has_text_frame and shape.text_frame.text.strip())


@register_verifier("pptx_shapes", reads="file")
def verify_pptx_shapes(
    data: bytes | None,
    slide: int,
    kind: ShapeKind = "any",
    count: int | None = None,
    min_count: int | None = None,
) -> VerifierResult:
    """Check how many shapes of a kind slide ``slide`` has (top-level shapes; groups count once).

    Args:
        data: the file's bytes, or None when it does not exist.
        slide: the slide number (1-based).
        kind: ``"any"``, ``"picture"``, ``"table"``, ``"chart"``, ``"text"`` (non-empty text) or ``"group"``.
        count: the exact number.
        min_count: the least number (1 when neither is given).
    """
    picked = _pick(_slides(data), slide)
    found = guarded_read("pptx", lambda: sum(1 for s in picked.shapes if _shape_kind_matches(s, kind)))
    label = "shapes" if kind == "any" else f"{kind} shapes"
    if count is not None and found != count:
        return VerifierResult.failed(f"slide {slide}: expected {count} {label}, found {found}", found=found)
    if count is None and found < (min_count if min_count is not None else 1):
        return VerifierResult.failed(
            f"slide {slide}: expected at least {min_count if min_count is not None else 1} {label}, found {found}",
            found=found,
        )
    return VerifierResult.passed(f"slide {slide} has {found} {label}", found=found)
