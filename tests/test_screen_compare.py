"""Screenshots of one state match outside a caret-sized box; an unpainted window does not."""

from __future__ import annotations

import numpy as np
import pytest

from desktop_gym.screen_compare import CARET_MAX_HEIGHT, CARET_MAX_WIDTH, screen_difference, screens_match


def screen() -> np.ndarray:
    return np.full((720, 1280, 3), 240, dtype=np.uint8)


def test_identical_screens_match() -> None:
    assert screens_match(screen(), screen())
    assert str(screen_difference(screen(), screen())) == "identical"


def test_a_blinking_caret_is_inside_the_mask() -> None:
    other = screen()
    other[100 : 100 + 18, 300:302] = 0  # a 2x18 px text caret
    difference = screen_difference(screen(), other)
    assert difference.pixels == 36 and difference.box == (300, 100, 2, 18)
    assert difference.within_caret_mask and screens_match(screen(), other)


def test_differences_wider_or_taller_than_a_caret_or_in_two_places_do_not_match() -> None:
    wide, tall, apart = screen(), screen(), screen()
    wide[10:12, 10 : 10 + CARET_MAX_WIDTH + 1] = 0
    tall[10 : 10 + CARET_MAX_HEIGHT + 1, 10] = 0
    apart[10, 10] = apart[500, 900] = 0  # two pixels, but far apart
    for other in (wide, tall, apart):
        assert not screens_match(screen(), other)


def test_a_grey_unpainted_window_is_far_outside_the_mask() -> None:
    painted, unpainted = screen(), screen()
    painted[30:700:20, :] = 0  # grid lines
    unpainted[27:720] = 200
    assert screen_difference(painted, unpainted).pixels > 500_000


def test_shapes_must_agree() -> None:
    with pytest.raises(ValueError, match="shapes"):
        screen_difference(screen(), screen()[:10])
