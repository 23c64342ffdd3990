"""Comparing two screenshots of one desktop state, outside the mask of a blinking text caret.

Two observations of the same state can differ only where something blinks: a text caret
(LibreOffice Writer's and Impress's, the editor's, xterm's cursor block). The caret mask is one box of
at most :data:`CARET_MAX_WIDTH` x :data:`CARET_MAX_HEIGHT` pixels anywhere on the screen: two
screenshots match when every differing pixel lies inside one such box. (The mouse pointer is not
part of a screenshot: the X server does not draw it into the frame buffer that is captured.)
An unpainted window or a missing toolbar differs in thousands of pixels over a large box.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

CARET_MAX_WIDTH = 12  # an xterm cursor block is one character cell wide (~6-10 px); a text caret 1-2 px
CARET_MAX_HEIGHT = 40  # a caret spans one line of text at up to ~3x the default font size


@dataclass(frozen=True)
class ScreenDifference:
    """Where two screenshots differ.

    Attributes:
        pixels: How many pixels differ.
        box: ``(left, top, width, height)`` of the differing pixels; None when none differ.
    """

    pixels: int
    box: tuple[int, int, int, int] | None

    @property
    def within_caret_mask(self) -> bool:
        """Whether every difference fits in one caret-sized box."""
        return self.box is None or (self.box[2] <= CARET_MAX_WIDTH and self.box[3] <= CARET_MAX_HEIGHT)

    def __str__(self) -> str:
        if self.box is None:
            return "identical"
        left, top, width, height = self.box
        return f"{self.pixels} pixels differ in a {width}x{height} box at ({left}, {top})"


def screen_difference(first: np.ndarray, second: np.ndarray) -> ScreenDifference:
    """Count the pixels where ``first`` and ``second`` (``HxWx3`` arrays) differ, and box them.

    Raises:
        ValueError: the two screenshots have different shapes.
    """
    if first.shape != second.shape:
        raise ValueError(f"screenshots of different shapes: {first.shape} and {second.shape}")
    changed = np.any(first != second, axis=-1) if first.ndim == 3 else first != second
    count = int(np.count_nonzero(changed))
    if count == 0:
        return ScreenDifference(0, None)
    rows = np.flatnonzero(changed.any(axis=1))
    columns = np.flatnonzero(changed.any(axis=0))
    left, top = int(columns[0]), int(rows[0])
    return ScreenDifference(count, (left, top, int(columns[-1]) - left + 1, int(rows[-1]) - top + 1))


def screens_match(first: np.ndarray, second: np.ndarray) -> bool:
    """Whether two screenshots show the same state: every difference lies in one caret-sized box."""
    return screen_difference(first, second).within_caret_mask
