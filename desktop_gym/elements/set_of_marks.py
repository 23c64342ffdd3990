"""Set-of-marks screenshots: the screenshot with a numbered box on each element of the observation.

The numbers are the element ids of the observation's tree text (:mod:`.table`), so an agent that
sees mark 17 on the image acts with ``click(element=17)``. Drawn on the host with Pillow: one outline
and one label a element, a few milliseconds for a full Calc window.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from .table import ElementTable

#: Outline colours, cycled by id so that neighbours differ.
PALETTE = (
    (230, 25, 75),
    (60, 180, 75),
    (0, 130, 200),
    (245, 130, 48),
    (145, 30, 180),
    (0, 128, 128),
    (240, 50, 230),
    (128, 128, 0),
)
LABEL_FONT_PX = 11
LABEL_BACKGROUND = (0, 0, 0)
LABEL_FOREGROUND = (255, 255, 255)


@dataclass(frozen=True)
class Mark:
    """Where one element's mark was drawn.

    Attributes:
        element: The element id the label shows.
        box: The outline, ``(x, y, width, height)`` clipped to the screen.
        label: The label's rectangle ``(x0, y0, x1, y1)`` (inclusive), at the outline's top-left corner.
        colour: The outline's RGB colour.
    """

    element: int
    box: tuple[int, int, int, int]
    label: tuple[int, int, int, int]
    colour: tuple[int, int, int]


def colour_of(element_id: int) -> tuple[int, int, int]:
    """The outline colour of element ``element_id``."""
    return PALETTE[(element_id - 1) % len(PALETTE)]


def _clip(box: tuple[int, int, int, int], width: int, height: int) -> tuple[int, int, int, int] | None:
    x, y, w, h = box
    x0, y0 = max(0, x), max(0, y)
    x1, y1 = min(width, x + w), min(height, y + h)
    if x1 - x0 < 1 or y1 - y0 < 1:
        return None
    return x0, y0, x1 - x0, y1 - y0


def draw_marks(screenshot: np.ndarray, table: ElementTable) -> tuple[np.ndarray, list[Mark]]:
    """Draw each element's outline and id on a copy of ``screenshot``.

    Larger elements are drawn first, so that a small button's mark stays on top of the panel around it.

    Args:
        screenshot: ``(height, width, 3)`` uint8 RGB.
        table: The observation's elements.

    Returns:
        The marked image (same shape and dtype) and where each mark went (elements off the screen get none).
    """
    height, width = screenshot.shape[:2]
    image = Image.fromarray(np.ascontiguousarray(screenshot[:, :, :3]))
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=LABEL_FONT_PX)
    marks: list[Mark] = []
    for element in sorted(table, key=lambda e: -(e.box[2] * e.box[3])):
        clipped = _clip(element.box, width, height)
        if clipped is None:
            continue
        x, y, w, h = clipped
        colour = colour_of(element.id)
        draw.rectangle((x, y, x + w - 1, y + h - 1), outline=colour, width=1)
        text = str(element.id)
        left, top, right, bottom = draw.textbbox((0, 0), text, font=font)
        label_w, label_h = right - left + 2, bottom - top + 2
        lx0, ly0 = min(x, width - label_w), min(y, height - label_h)
        label = (max(0, lx0), max(0, ly0), max(0, lx0) + label_w - 1, max(0, ly0) + label_h - 1)
        draw.rectangle(label, fill=LABEL_BACKGROUND)
        draw.text((label[0] + 1 - left, label[1] + 1 - top), text, font=font, fill=LABEL_FOREGROUND)
        marks.append(Mark(element.id, clipped, label, colour))
    return np.asarray(image, dtype=np.uint8), marks
