"""Set-of-marks drawing and OSWorld's text formats: each mark sits on its own element's box and shows
its id; the tables have OSWorld's headers and one row a node or mark."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFont

from desktop_gym import DesktopEnv
from desktop_gym.elements import number_elements
from desktop_gym.elements.osworld import MARKS_HEADER, OBSERVATION_PRESETS, TREE_HEADER, osworld_marks, osworld_tree
from desktop_gym.elements.set_of_marks import LABEL_BACKGROUND, LABEL_FONT_PX, colour_of, draw_marks

TREE = "\n".join(
    [
        'frame "Window" @(0,0,400,300)',
        '  push button "Save" @(20,30,60,30)',
        '  entry "Search" text="a \\"quoted\\" word" [editable] @(100,30,200,30)',
        '  link "Home" @(20,200,40,20)',
        '  link "Off screen" @(390,290,40,40)',
        '  panel "" @(0,0,400,300)',
    ]
)


def _digits(number: int) -> np.ndarray:
    """The label as drawn alone: white digits on black, for comparing with the marked image."""
    font = ImageFont.load_default(size=LABEL_FONT_PX)
    probe = Image.new("RGB", (40, 20), LABEL_BACKGROUND)
    draw = ImageDraw.Draw(probe)
    left, top, right, bottom = draw.textbbox((0, 0), str(number), font=font)
    draw.text((1 - left, 1 - top), str(number), font=font, fill=(255, 255, 255))
    return np.asarray(probe)[: bottom - top + 2, : right - left + 2]


def test_each_mark_is_drawn_on_its_element_s_box_with_its_id() -> None:
    screenshot = np.full((300, 400, 3), 200, dtype=np.uint8)
    _, table = number_elements(TREE)
    marked, marks = draw_marks(screenshot, table)
    assert marked.shape == screenshot.shape and marked.dtype == np.uint8
    assert (screenshot == 200).all(), "the observation's screenshot is not drawn on"
    assert [m.element for m in sorted(marks, key=lambda m: m.element)] == [1, 2, 3, 4]
    for mark in marks:
        element = table.get(mark.element)
        x, y, w, h = mark.box
        if mark.element != 4:
            assert mark.box == element.box
        # The outline has the element's colour on the box's edges, away from the label.
        right_edge = marked[y + h // 2, x + w - 1]
        assert tuple(right_edge) == colour_of(mark.element) == mark.colour
        # The label sits at the box's top-left corner (pulled inside the screen) and shows the id.
        x0, y0, x1, y1 = mark.label
        assert (x0, y0) == (min(x, 400 - (x1 - x0 + 1)), min(y, 300 - (y1 - y0 + 1)))
        np.testing.assert_array_equal(marked[y0 : y1 + 1, x0 : x1 + 1], _digits(mark.element))


def test_a_mark_off_the_screen_is_not_drawn_and_an_empty_table_changes_nothing() -> None:
    screenshot = np.zeros((300, 400, 3), dtype=np.uint8)
    _, table = number_elements('link "Away" @(500,500,10,10)')
    marked, marks = draw_marks(screenshot, table)
    assert len(table) == 1 and marks == [] and (marked == 0).all()


def test_osworld_tree_table_has_its_header_and_one_row_a_node_on_screen() -> None:
    rows = osworld_tree(TREE).splitlines()
    assert rows[0] == TREE_HEADER
    assert rows[1] == 'frame\tWindow\t""\t\t\t(0, 0)\t(400, 300)'
    assert rows[2] == 'push-button\tSave\t""\t\t\t(20, 30)\t(60, 30)'
    assert rows[3] == 'entry\tSearch\t"a ""quoted"" word"\t\t\t(100, 30)\t(200, 30)'
    assert len(rows) == 1 + 6
    assert all(row.count("\t") == 6 for row in rows)


def test_osworld_marks_table_indices_are_the_element_ids() -> None:
    _, table = number_elements(TREE)
    rows = osworld_marks(table).splitlines()
    assert rows[0] == MARKS_HEADER
    assert rows[1:] == [
        '1\tpush-button\tSave\t""',
        '2\tentry\tSearch\t"a ""quoted"" word"',
        '3\tlink\tHome\t""',
        '4\tlink\tOff screen\t""',
    ]


def test_observation_presets_and_formats_are_checked_by_name() -> None:
    assert OBSERVATION_PRESETS["som"][:3] == ("instruction", "som_screenshot", "a11y_tree")
    assert (
        DesktopEnv(observation="screenshot_a11y_tree").observation_parts == OBSERVATION_PRESETS["screenshot_a11y_tree"]
    )
    space = DesktopEnv(observation="som").observation_space
    assert space["som_screenshot"].shape == space["som_screenshot"].shape and "screenshot" not in space.spaces
    with pytest.raises(ValueError, match="unknown observation type 'tags'"):
        DesktopEnv(observation="tags")
    with pytest.raises(ValueError, match="a11y_format"):
        DesktopEnv(a11y_format="xml")
