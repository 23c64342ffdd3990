"""Verifiers on edited image files: format, size and mode, closeness to a reference, gray, palette
size, brightness, and the ink of one color in a region.

Each reads the saved file's bytes (Pillow, bounded by ``MAX_PIXELS``). Closeness is measured on a
grid of cell means (``image_grid``): a task computes its reference grid from the expected picture
(its source image edited with Pillow), so the gold is a few hundred integers, not an image. A
check passes only within its tolerance on every cell (a local change fails) and on average.
"""

from __future__ import annotations

import functools
import io
from collections.abc import Sequence
from typing import Any

from ._load import guarded_read, require
from .registry import register_verifier
from .result import CheckFailed, VerifierResult

MAX_PIXELS = 50_000_000
#: Pillow's format names for the suffixes GIMP exports.
FORMATS = {"png": "PNG", "jpg": "JPEG", "jpeg": "JPEG", "gif": "GIF", "bmp": "BMP", "tif": "TIFF", "tiff": "TIFF"}
#: The default grid: 16 x 16 cells.
GRID_CELLS = 16


@functools.lru_cache(maxsize=8)
def _open(data: bytes) -> Any:
    from PIL import Image

    image = Image.open(io.BytesIO(data))
    width, height = image.size
    if width * height > MAX_PIXELS:
        raise ValueError(f"{width} x {height} pixels is over the bound of {MAX_PIXELS}")
    image.load()
    return image


def open_image(data: bytes | None) -> Any:
    """The file as a loaded Pillow image (cached per bytes; do not mutate it).

    Raises:
        DocumentError: missing, too large, or not an image Pillow reads.
    """
    return guarded_read("image", _open, require(data, "image"))


def _rgb(image: Any) -> Any:
    """Pixels as an H x W x 3 float array, transparency composited over white."""
    import numpy as np
    from PIL import Image

    if image.mode in ("RGBA", "LA", "PA") or (image.mode == "P" and "transparency" in image.info):
        rgba = image.convert("RGBA")
        background = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
        image = Image.alpha_composite(background, rgba)
    return np.asarray(image.convert("RGB"), dtype=np.float64)


def image_grid(data_or_image: bytes | Any, cells: int = GRID_CELLS) -> list[int]:
    """The image's ``cells`` x ``cells`` grid of mean RGB values (row by row, 3 integers a cell).

    Args:
        data_or_image: the file's bytes or a Pillow image.
        cells: cells along each side (1 to 64; at most the image's smaller side).
    """
    import numpy as np

    image = open_image(data_or_image) if isinstance(data_or_image, bytes) else data_or_image
    if not 1 <= cells <= min(64, *image.size):
        raise CheckFailed(f"a {cells} x {cells} grid does not fit a {image.size[0]} x {image.size[1]} image")
    pixels = _rgb(image)
    rows = np.array_split(np.arange(pixels.shape[0]), cells)
    cols = np.array_split(np.arange(pixels.shape[1]), cells)
    grid = [pixels[r[0] : r[-1] + 1, c[0] : c[-1] + 1].mean(axis=(0, 1)) for r in rows for c in cols]
    return [int(round(value)) for cell in grid for value in cell]


def _size_check(image: Any, width: int | None, height: int | None) -> VerifierResult | None:
    if (width is not None and image.size[0] != width) or (height is not None and image.size[1] != height):
        return VerifierResult.failed(
            f"image is {image.size[0]} x {image.size[1]}, expected {width} x {height}",
            expected=[width, height],
            found=list(image.size),
        )
    return None


@register_verifier("image_properties", reads="file")
def verify_image_properties(
    data: bytes | None,
    format: str | None = None,
    width: int | None = None,
    height: int | None = None,
    modes: Sequence[str] | None = None,
) -> VerifierResult:
    """Check an image file's real format (by content, not name), size and Pillow mode.

    Args:
        data: the file's bytes, or None when it does not exist.
        format: "png", "jpg", "gif", "bmp" or "tif"; None for any.
        width, height: exact size in pixels; None for any.
        modes: Pillow modes allowed ("RGB", "RGBA", "L", "LA", "P", ...); None for any.
    """
    image = open_image(data)
    if format is not None:
        wanted = FORMATS.get(format.lower().lstrip("."))
        if wanted is None:
            raise ValueError(f"image_properties: unknown format {format!r} (known: {', '.join(FORMATS)})")
        if image.format != wanted:
            return VerifierResult.failed(f"the file is {image.format}, not {wanted}", found=image.format)
    wrong_size = _size_check(image, width, height)
    if wrong_size is not None:
        return wrong_size
    if modes is not None and image.mode not in modes:
        return VerifierResult.failed(f"image mode is {image.mode}, expected one of {list(modes)}", found=image.mode)
    return VerifierResult.passed(f"{image.format} image, {image.size[0]} x {image.size[1]}, mode {image.mode}")


@register_verifier("image_close_to", reads="file")
def verify_image_close_to(
    data: bytes | None,
    width: int,
    height: int,
    grid: list[int],
    cells: int = GRID_CELLS,
    max_mean_difference: float = 6.0,
    max_cell_difference: float = 24.0,
) -> VerifierResult:
    """Check that an image has a size and looks like a reference, cell by cell.

    Args:
        data: the image's bytes, or None when it does not exist.
        width, height: the reference's size (must match exactly).
        grid: the reference's ``image_grid`` with ``cells``.
        cells: cells along each side of the grid.
        max_mean_difference: largest mean absolute channel difference over all cells (0-255).
        max_cell_difference: largest mean absolute channel difference within any one cell.
    """
    image = open_image(data)
    wrong_size = _size_check(image, width, height)
    if wrong_size is not None:
        return wrong_size
    found = image_grid(image, cells)
    if len(grid) != len(found):
        raise ValueError(f"image_close_to: grid must hold {len(found)} integers, not {len(grid)}")
    per_cell = [sum(abs(found[i + k] - grid[i + k]) for k in range(3)) / 3 for i in range(0, len(found), 3)]
    mean, worst = sum(per_cell) / len(per_cell), max(per_cell)
    worst_at = per_cell.index(worst)
    details = {"mean_difference": round(mean, 2), "worst_cell": [worst_at % cells, worst_at // cells]}
    if mean > max_mean_difference:
        return VerifierResult.failed(
            f"image differs from the expected one: mean difference {mean:.1f} > {max_mean_difference}", **details
        )
    if worst > max_cell_difference:
        col, row = details["worst_cell"]
        return VerifierResult.failed(
            f"image differs from the expected one in cell ({col}, {row}) of {cells} x {cells}: "
            f"{worst:.1f} > {max_cell_difference}",
            **details,
        )
    return VerifierResult.passed(f"image matches the expected one (mean difference {mean:.1f})", **details)


@register_verifier("image_grayscale", reads="file")
def verify_image_grayscale(data: bytes | None, max_spread: float = 3.0) -> VerifierResult:
    """Check that every pixel is gray: its red, green and blue differ by at most ``max_spread``.

    Args:
        data: the image's bytes, or None when it does not exist.
        max_spread: largest allowed max(R, G, B) - min(R, G, B) of any pixel.
    """
    pixels = _rgb(open_image(data))
    spread = float((pixels.max(axis=2) - pixels.min(axis=2)).max())
    if spread > max_spread:
        return VerifierResult.failed(f"the image has color: a pixel's channels differ by {spread:.0f}", spread=spread)
    return VerifierResult.passed(f"every pixel is gray (largest channel spread {spread:.0f})")


@register_verifier("image_color_count", reads="file")
def verify_image_color_count(data: bytes | None, max_colors: int, min_colors: int = 1) -> VerifierResult:
    """Check how many distinct colors the image uses.

    Args:
        data: the image's bytes, or None when it does not exist.
        max_colors: most colors allowed.
        min_colors: fewest colors required.
    """
    image = open_image(data)
    colors = image.convert("RGB").getcolors(maxcolors=max(max_colors, 1) + 1)
    count = len(colors) if colors is not None else max_colors + 1
    if not min_colors <= count <= max_colors:
        shown = f"{count}" if colors is not None else f"more than {max_colors}"
        return VerifierResult.failed(f"the image uses {shown} colors, expected {min_colors} to {max_colors}")
    return VerifierResult.passed(f"the image uses {count} colors")


@register_verifier("image_brightness", reads="file")
def verify_image_brightness(data: bytes | None, low: float, high: float) -> VerifierResult:
    """Check that the image's mean luminance (0-255, ITU-R 601) lies in ``[low, high]``.

    Args:
        data: the image's bytes, or None when it does not exist.
        low, high: the allowed range.
    """
    pixels = _rgb(open_image(data))
    mean = float((pixels @ [0.299, 0.587, 0.114]).mean())
    if not low <= mean <= high:
        return VerifierResult.failed(f"mean brightness is {mean:.1f}, expected {low:g} to {high:g}", mean=mean)
    return VerifierResult.passed(f"mean brightness {mean:.1f}")


@register_verifier("image_region_ink", reads="file")
def verify_image_region_ink(
    data: bytes | None,
    box: Sequence[int],
    color: Sequence[int],
    tolerance: float = 40.0,
    min_fraction: float = 0.0,
    max_fraction: float = 1.0,
) -> VerifierResult:
    """Check what share of a region's pixels has a color (text or a shape drawn there).

    Args:
        data: the image's bytes, or None when it does not exist.
        box: the region (left, top, right, bottom), right and bottom exclusive, inside the image.
        color: the ink's RGB.
        tolerance: largest per-channel difference that still counts as the ink.
        min_fraction, max_fraction: the allowed share of ink pixels (0-1).
    """
    import numpy as np

    image = open_image(data)
    left, top, right, bottom = (int(v) for v in box)
    if not (0 <= left < right <= image.size[0] and 0 <= top < bottom <= image.size[1]):
        return VerifierResult.failed(
            f"the region {list(box)} is not inside the {image.size[0]} x {image.size[1]} image"
        )
    region = _rgb(image)[top:bottom, left:right]
    ink = (np.abs(region - np.asarray(color, dtype=np.float64)).max(axis=2) <= tolerance).mean()
    if not min_fraction <= ink <= max_fraction:
        return VerifierResult.failed(
            f"{ink:.1%} of the region {list(box)} has the color {list(color)}, "
            f"expected {min_fraction:.1%} to {max_fraction:.1%}",
            fraction=float(ink),
        )
    return VerifierResult.passed(f"{ink:.1%} of the region has the color {list(color)}", fraction=float(ink))
