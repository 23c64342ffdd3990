"""Verifiers on image files: the same picture as a gold image, compared by size and a small thumbnail.

A gold image is not embedded whole in a task file: ``image_fingerprint`` keeps its size and a
16 x 16 RGB thumbnail, and ``image_similar`` compares an artifact's fingerprint with it.
"""

from __future__ import annotations

import io
from typing import Any

from ._limits import check_size
from ._load import guarded_read, require
from .registry import register_verifier
from .result import VerifierResult

THUMBNAIL = 16
MAX_PIXELS = 50_000_000  # a decompression-bomb bound well above a 4K screenshot


def image_fingerprint(data: bytes | None) -> dict[str, Any]:
    """``{"width", "height", "thumbnail"}``: the size and a 16 x 16 RGB thumbnail as 768 integers.

    Raises:
        DocumentError: the file is missing, too large, or not an image Pillow reads.
    """
    data = require(data, "image")
    check_size(data, "image")

    def read() -> dict[str, Any]:
        from PIL import Image

        with Image.open(io.BytesIO(data)) as image:
            width, height = image.size
            if width * height > MAX_PIXELS:
                raise ValueError(f"{width} x {height} pixels is over the bound of {MAX_PIXELS}")
            small = image.convert("RGB").resize((THUMBNAIL, THUMBNAIL), Image.Resampling.BOX)
            return {"width": width, "height": height, "thumbnail": list(small.tobytes())}

    return guarded_read("image", read)


@register_verifier("image_similar", reads="file")
def verify_image_similar(
    data: bytes | None, width: int, height: int, thumbnail: list[int], max_difference: float = 4.0
) -> VerifierResult:
    """Check that an image has the gold's size and looks the same at thumbnail scale.

    Args:
        data: the image's bytes, or None when it does not exist.
        width, height: the gold image's size in pixels (must match exactly).
        thumbnail: the gold's ``image_fingerprint`` thumbnail.
        max_difference: the largest mean absolute difference of thumbnail channels (0-255).
    """
    found = image_fingerprint(data)
    if (found["width"], found["height"]) != (width, height):
        return VerifierResult.failed(
            f"image is {found['width']} x {found['height']}, expected {width} x {height}",
            expected=[width, height],
            found=[found["width"], found["height"]],
        )
    if len(thumbnail) != len(found["thumbnail"]):
        raise ValueError(f"image_similar: thumbnail must hold {len(found['thumbnail'])} integers, not {len(thumbnail)}")
    difference = sum(abs(a - b) for a, b in zip(found["thumbnail"], thumbnail, strict=True)) / len(thumbnail)
    if difference > max_difference:
        return VerifierResult.failed(
            f"image differs from the gold: mean difference {difference:.1f} > {max_difference}", difference=difference
        )
    return VerifierResult.passed(f"image matches the gold (mean difference {difference:.1f})")
