"""Verifiers for a deck's page setup, pictures and media: orientation, slide-number colour, a picture
filling a slide, embedded videos and audio."""

from __future__ import annotations

import io
import zipfile
from typing import Literal

from ._limits import MAX_PACKAGE_ENTRIES
from ._load import guarded_read, open_pptx, require_package
from .registry import register_verifier
from .result import VerifierResult

MEDIA_EXTENSIONS = {
    "video": ("mp4", "m4v", "mov", "avi", "mkv", "webm", "wmv", "mpg", "mpeg"),
    "audio": ("mp3", "wav", "m4a", "ogg", "oga", "wma", "flac"),
}


@register_verifier("pptx_orientation", reads="file")
def verify_pptx_orientation(data: bytes | None, orientation: Literal["portrait", "landscape"]) -> VerifierResult:
    """Check the slide size's orientation (portrait: taller than wide)."""
    if orientation not in ("portrait", "landscape"):
        raise ValueError(f"pptx_orientation: orientation must be 'portrait' or 'landscape', not {orientation!r}")
    presentation = open_pptx(data)
    width, height = guarded_read("pptx", lambda: (presentation.slide_width, presentation.slide_height))
    if width is None or height is None:
        return VerifierResult.failed("the deck declares no slide size")
    found = "portrait" if height > width else "landscape"
    if found != orientation:
        return VerifierResult.failed(
            f"slides are {found} ({width} x {height} EMU), expected {orientation}", expected=orientation, found=found
        )
    return VerifierResult.passed(f"slides are {orientation}")


@register_verifier("pptx_media", reads="file")
def verify_pptx_media(
    data: bytes | None, kind: Literal["video", "audio"] = "video", extension: str | None = None, count: int = 1
) -> VerifierResult:
    """Check that the deck embeds at least ``count`` media files of ``kind`` (and ``extension`` when given).

    Media is read from the package (``ppt/media/*``) and must be referenced by a slide.
    """
    if kind not in MEDIA_EXTENSIONS:
        raise ValueError(f"pptx_media: kind must be one of {', '.join(MEDIA_EXTENSIONS)}, not {kind!r}")
    data = require_package(data, "pptx")
    allowed = (extension.lower().lstrip("."),) if extension else MEDIA_EXTENSIONS[kind]

    def read() -> list[str]:
        with zipfile.ZipFile(io.BytesIO(data)) as package:
            names = package.namelist()[:MAX_PACKAGE_ENTRIES]
            rels = [n for n in names if n.startswith("ppt/slides/_rels/") and n.endswith(".rels")]
            referenced = " ".join(package.read(n)[:1_000_000].decode("utf-8", "replace") for n in rels)
        media = [n for n in names if n.startswith("ppt/media/") and n.rsplit(".", 1)[-1].lower() in allowed]
        return [n for n in media if n.rsplit("/", 1)[-1] in referenced]

    found = guarded_read("pptx", read)
    if len(found) < count:
        return VerifierResult.failed(
            f"expected at least {count} {kind} file(s) ({', '.join(allowed)}) on slides, found {len(found)}",
            found=found,
        )
    return VerifierResult.passed(f"{len(found)} {kind} file(s) on slides: {', '.join(found[:5])}")


NAMED_COLORS = {"red": (255, 0, 0), "green": (0, 128, 0), "blue": (0, 0, 255), "black": (0, 0, 0)}


def _near(rgb: tuple[int, int, int], want: tuple[int, int, int], tolerance: int) -> bool:
    return all(abs(a - b) <= tolerance for a, b in zip(rgb, want, strict=True))


@register_verifier("pptx_slide_number_color", reads="file")
def verify_pptx_slide_number_color(data: bytes | None, color: str, tolerance: int = 60) -> VerifierResult:
    """Check that every slide-number placeholder on the slides has text in ``color``.

    Args:
        data: the file's bytes, or None when it does not exist.
        color: ``"RRGGBB"`` or one of ``red``, ``green``, ``blue``, ``black``.
        tolerance: the largest difference per channel (0-255) that still counts as that colour.
    """
    from pptx.enum.shapes import PP_PLACEHOLDER

    want = NAMED_COLORS.get(color.lower()) or tuple(int(color.lstrip("#")[i : i + 2], 16) for i in (0, 2, 4))
    presentation = open_pptx(data)

    def read() -> tuple[int, list[str]]:
        checked, wrong = 0, []
        for number, slide in enumerate(presentation.slides, start=1):
            for shape in slide.placeholders:
                if shape.placeholder_format.type != PP_PLACEHOLDER.SLIDE_NUMBER or not shape.has_text_frame:
                    continue
                for run in (r for p in shape.text_frame.paragraphs for r in p.runs):
                    checked += 1
                    rgb = run.font.color.rgb if run.font.color and run.font.color.type is not None else None
                    if rgb is None or not _near(tuple(rgb), want, tolerance):
                        wrong.append(f"slide {number}: {rgb or 'no colour set'}")
        return checked, wrong

    checked, wrong = guarded_read("pptx", read)
    if not checked:
        return VerifierResult.failed("no slide has a slide-number placeholder with text")
    if wrong:
        return VerifierResult.failed(f"slide numbers not {color}: {'; '.join(wrong[:5])}", wrong=wrong[:50])
    return VerifierResult.passed(f"{checked} slide-number run(s) in {color}")


@register_verifier("pptx_picture_fills_slide", reads="file")
def verify_pptx_picture_fills_slide(data: bytes | None, slide: int = 1, tolerance: float = 0.01) -> VerifierResult:
    """Check that a picture on slide ``slide`` (1-based) covers the whole slide, centred.

    Args:
        data: the file's bytes, or None when it does not exist.
        slide: the slide number.
        tolerance: allowed offset and size difference, as a fraction of the slide's size.
    """
    presentation = open_pptx(data)

    def read() -> list[tuple[int, int, int, int]] | None:
        slides = list(presentation.slides)
        if not 1 <= slide <= len(slides):
            return None
        return [
            (shape.left or 0, shape.top or 0, shape.width or 0, shape.height or 0)
            for shape in slides[slide - 1].shapes
            if shape.shape_type == 13  # MSO_SHAPE_TYPE.PICTURE
        ]

    boxes = guarded_read("pptx", read)
    if boxes is None:
        return VerifierResult.failed(f"the deck has no slide {slide}")
    if not boxes:
        return VerifierResult.failed(f"slide {slide} has no picture")
    width, height = presentation.slide_width, presentation.slide_height
    for left, top, w, h in boxes:
        if (
            abs(w - width) <= tolerance * width
            and abs(h - height) <= tolerance * height
            and abs(left + w / 2 - width / 2) <= tolerance * width
            and abs(top + h / 2 - height / 2) <= tolerance * height
        ):
            return VerifierResult.passed(f"a picture covers slide {slide}")
    return VerifierResult.failed(
        f"no picture on slide {slide} covers the {width} x {height} slide; pictures at {boxes[:5]}", pictures=boxes[:20]
    )
