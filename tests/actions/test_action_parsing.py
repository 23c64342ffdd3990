"""Parsing Python-call actions: every action of every style, coordinates, keys, text."""

from __future__ import annotations

import pytest

from desktop_gym.actions import ActionParseError, ActionSet
from desktop_gym.actions import types as act

ALL = ActionSet()

COMPUTERRL_CASES = [
    ("click(coordinates=[120, 44])", [act.Click(120, 44)]),
    ("click([120, 44])", [act.Click(120, 44)]),
    ("click(coordinates=(1.5, 2), num_clicks=2, button_type='right')", [act.Click(1.5, 2, "right", 2)]),
    ("click([5, 6], 3)", [act.Click(5, 6, "left", 3)]),
    ("click(coordinates=[5, 6], button_type='Middle')", [act.Click(5, 6, "middle")]),
    ("type(text='hello')", [act.TypeText("hello")]),
    (
        "type(coordinates=[10, 20], text='x', overwrite=True, enter=True)",
        [act.TypeText("x", 10, 20, True, True)],
    ),
    ("type(text='', enter=True)", [act.TypeText("", enter=True)]),
    ("drag_and_drop(drag_from_coordinates=[1, 2], drop_on_coordinates=[3, 4])", [act.Drag(3, 4, 1, 2)]),
    ("drag_and_drop([1, 2], [3, 4])", [act.Drag(3, 4, 1, 2)]),
    ("scroll(coordinates=[100, 200], direction='down')", [act.Scroll(0, 5, 100, 200)]),
    ("scroll([100, 200], 'up')", [act.Scroll(0, -5, 100, 200)]),
    ("scroll([100, 200], 'left', amount=2)", [act.Scroll(-2, 0, 100, 200)]),
    ("scroll([100, 200], direction='right', amount=3)", [act.Scroll(3, 0, 100, 200)]),
    ("open_app(app_name='LibreOffice Calc')", [act.OpenApp("LibreOffice Calc")]),
    ("open_app('terminal')", [act.OpenApp("terminal")]),
    ("switch_window(window_id=60817415)", [act.SwitchWindow(60817415)]),
    ("switch_window('0x3a00007')", [act.SwitchWindow(0x3A00007)]),
    ("switch_window(window_id='42')", [act.SwitchWindow(42)]),
    ("hotkey(keys=['ctrl', 's'])", [act.Hotkey(("ctrl", "s"))]),
    ("hotkey(['Control', 'Shift', 'Escape'])", [act.Hotkey(("ctrl", "shift", "esc"))]),
    ("quote(content='B2 holds 17')", [act.Quote("B2 holds 17")]),
    ("wait()", [act.Wait()]),
    ("wait(seconds=1)", [act.Wait(1.0)]),
    ("exit(success=True)", [act.Done()]),
    ("exit(False)", [act.Fail()]),
]

COMPUTER13_CASES = [
    ("MOVE_TO(x=10, y=20)", [act.MoveTo(10, 20)]),
    ("move_to(x=10, y=20)", [act.MoveTo(10, 20)]),
    ("CLICK()", [act.Click()]),
    ("CLICK(x=5, y=6, button='right', num_clicks=2)", [act.Click(5, 6, "right", 2)]),
    ("click(x=5, y=6)", [act.Click(5, 6)]),
    ("MOUSE_DOWN()", [act.MouseDown()]),
    ("mouse_down(button='right')", [act.MouseDown(button="right")]),
    ("MOUSE_UP(button='left')", [act.MouseUp()]),
    ("mouse_up()", [act.MouseUp()]),
    ("RIGHT_CLICK(x=1, y=2)", [act.Click(1, 2, "right")]),
    ("right_click()", [act.Click(button="right")]),
    ("DOUBLE_CLICK(x=1, y=2)", [act.Click(1, 2, "left", 2)]),
    ("double_click()", [act.Click(num_clicks=2)]),
    ("DRAG_TO(x=30, y=40)", [act.Drag(30, 40)]),
    ("drag_to(x=30, y=40)", [act.Drag(30, 40)]),
    ("SCROLL(dx=0, dy=3)", [act.Scroll(0, -3)]),
    ("SCROLL(dx=-2, dy=-1)", [act.Scroll(-2, 1)]),
    ("scroll(dy=-4)", [act.Scroll(0, 4)]),
    ("TYPING(text='hi')", [act.TypeText("hi")]),
    ("typing(text='hi')", [act.TypeText("hi")]),
    ("PRESS(key='Return')", [act.Press("enter")]),
    ("press(key='tab')", [act.Press("tab")]),
    ("KEY_DOWN(key='shift')", [act.KeyDown("shift")]),
    ("key_down(key='ctrl')", [act.KeyDown("ctrl")]),
    ("KEY_UP(key='shift')", [act.KeyUp("shift")]),
    ("key_up(key='ctrl')", [act.KeyUp("ctrl")]),
    ("HOTKEY(keys=['ctrl', 'c'])", [act.Hotkey(("ctrl", "c"))]),
    ("WAIT", [act.Wait()]),
    ("WAIT()", [act.Wait()]),
    ("DONE", [act.Done()]),
    ("done()", [act.Done()]),
    ("FAIL", [act.Fail()]),
    ("fail()", [act.Fail()]),
]

PYAUTOGUI_CASES = [
    ("pyautogui.click(100, 200)", [act.Click(100, 200)]),
    ("pyautogui.click(x=100, y=200, clicks=2, button='right')", [act.Click(100, 200, "right", 2)]),
    ("pyautogui.click()", [act.Click()]),
    ("pyautogui.click(1, 2, button='primary', interval=0.2, duration=0.5)", [act.Click(1, 2)]),
    ("pyautogui.doubleClick(3, 4)", [act.Click(3, 4, "left", 2)]),
    ("pyautogui.rightClick(3, 4)", [act.Click(3, 4, "right")]),
    ("pyautogui.moveTo(7, 8, duration=1)", [act.MoveTo(7, 8)]),
    ("pyautogui.dragTo(9, 10, button='left')", [act.Drag(9, 10)]),
    ("pyautogui.mouseDown(1, 2)", [act.MouseDown(1, 2)]),
    ("pyautogui.mouseDown(button='right')", [act.MouseDown(button="right")]),
    ("pyautogui.mouseUp()", [act.MouseUp()]),
    ("pyautogui.scroll(5)", [act.Scroll(0, -5)]),
    ("pyautogui.scroll(-3, x=10, y=20)", [act.Scroll(0, 3, 10, 20)]),
    ("pyautogui.hscroll(2)", [act.Scroll(2, 0)]),
    ("pyautogui.write('hello world', interval=0.05)", [act.TypeText("hello world")]),
    ("pyautogui.typewrite('abc')", [act.TypeText("abc")]),
    ("pyautogui.typewrite(['a', 'left', 'enter'])", [act.Press("a"), act.Press("left"), act.Press("enter")]),
    ("pyautogui.press('enter')", [act.Press("enter")]),
    ("pyautogui.press('down', presses=3)", [act.Press("down", 3)]),
    ("pyautogui.press(['tab', 'tab'])", [act.Press("tab"), act.Press("tab")]),
    ("pyautogui.hotkey('ctrl', 'shift', 't')", [act.Hotkey(("ctrl", "shift", "t"))]),
    ("pyautogui.hotkey('ctrl', 'v', interval=0.1)", [act.Hotkey(("ctrl", "v"))]),
    ("pyautogui.keyDown('shift')", [act.KeyDown("shift")]),
    ("pyautogui.keyUp('shift')", [act.KeyUp("shift")]),
    ("time.sleep(0.5)", [act.Wait(0.5)]),
]


@pytest.mark.parametrize(("text", "expected"), COMPUTERRL_CASES + COMPUTER13_CASES + PYAUTOGUI_CASES)
def test_every_action_parses_in_the_all_style(text: str, expected: list) -> None:
    assert ALL.parse(text) == expected


@pytest.mark.parametrize(("text", "expected"), COMPUTERRL_CASES)
def test_computerrl_style_parses_its_own_actions(text: str, expected: list) -> None:
    assert ActionSet(style="computerrl").parse(text) == expected


@pytest.mark.parametrize(("text", "expected"), COMPUTER13_CASES)
def test_computer13_style_parses_its_own_actions(text: str, expected: list) -> None:
    assert ActionSet(style="computer_13").parse(text) == expected


@pytest.mark.parametrize(("text", "expected"), PYAUTOGUI_CASES)
def test_pyautogui_style_parses_its_own_actions(text: str, expected: list) -> None:
    assert ActionSet(style="pyautogui").parse(text) == expected


def test_computer13_style_reads_lower_case_click_as_click_with_x_y() -> None:
    assert ActionSet(style="computer_13").parse("click()") == [act.Click()]


@pytest.mark.parametrize(
    ("style", "text", "other"),
    [
        ("computerrl", "pyautogui.click(1, 2)", "pyautogui"),
        ("computerrl", "MOVE_TO(x=1, y=2)", "computer_13"),
        ("computer_13", "drag_and_drop([1, 2], [3, 4])", "computerrl"),
        ("pyautogui", "quote(content='x')", "computerrl"),
    ],
)
def test_actions_of_another_style_are_rejected_naming_the_style(style: str, text: str, other: str) -> None:
    with pytest.raises(ActionParseError, match=f"belongs to the {other} style, not to this '{style}'"):
        ActionSet(style=style).parse(text)


def test_all_style_picks_the_overload_from_keyword_names() -> None:
    assert ALL.parse("click(coordinates=[1, 2])") == [act.Click(1, 2)]
    assert ALL.parse("click(x=1, y=2, button='right')") == [act.Click(1, 2, "right")]
    assert ALL.parse("scroll(dx=2)") == [act.Scroll(2, 0)]
    assert ALL.parse("scroll([1, 2], 'down')") == [act.Scroll(0, 5, 1, 2)]


def test_normalized_coordinates_keep_their_values_and_flag() -> None:
    actions = ActionSet(coordinates="normalized")
    assert actions.parse("click(coordinates=[500, 1000])") == [act.Click(500, 1000, normalized=True)]
    assert actions.parse("MOVE_TO(x=0, y=0)") == [act.MoveTo(0, 0, normalized=True)]
    assert actions.parse("pyautogui.scroll(1, x=10, y=10)") == [act.Scroll(0, -1, 10, 10, normalized=True)]
    assert actions.parse("drag_and_drop([1, 2], [3, 4])") == [act.Drag(3, 4, 1, 2, normalized=True)]


def test_normalized_coordinates_above_1000_are_rejected() -> None:
    actions = ActionSet(coordinates="normalized")
    with pytest.raises(ActionParseError, match=r"click\(\): coordinates \[1200, 5\] is outside the normalized"):
        actions.parse("click(coordinates=[1200, 5])")
    with pytest.raises(ActionParseError, match=r"MOVE_TO\(\): x=1001 is outside the normalized 0-1000"):
        actions.parse("MOVE_TO(x=1001, y=3)")


def test_pixel_coordinates_may_exceed_1000_but_not_be_negative() -> None:
    assert ALL.parse("click(coordinates=[1900, 1000])") == [act.Click(1900, 1000)]
    with pytest.raises(ActionParseError, match=r"coordinates must not be negative, got \[-5, 3\]"):
        ALL.parse("click(coordinates=[-5, 3])")
    with pytest.raises(ActionParseError, match="x must not be negative"):
        ALL.parse("pyautogui.moveTo(-1, 3)")


@pytest.mark.parametrize(
    "text",
    [
        "héllo wörld",
        "中文输入",
        "emoji 🎉 ok",
        "line one\nline two\ttabbed",
        "quotes ' and \" and \\ backslash",
    ],
)
def test_unicode_text_survives_parsing(text: str) -> None:
    assert ALL.parse(f"type(text={text!r})") == [act.TypeText(text)]
    assert ALL.parse(f"TYPING(text={text!r})") == [act.TypeText(text)]
    assert ALL.parse(f"pyautogui.write({text!r})") == [act.TypeText(text)]


def test_several_lines_give_several_actions_in_order() -> None:
    text = "click(coordinates=[1, 2])\ntype(text='a')\n\nhotkey(keys=['ctrl', 's'])"
    assert ALL.parse(text) == [act.Click(1, 2), act.TypeText("a"), act.Hotkey(("ctrl", "s"))]


def test_a_call_may_span_lines_and_comments_are_ignored() -> None:
    text = "# open the cell\nclick(\n    coordinates=[1, 2],  # the cell\n    num_clicks=2,\n)"
    assert ALL.parse(text) == [act.Click(1, 2, num_clicks=2)]


def test_fenced_code_is_extracted_and_prose_ignored() -> None:
    text = "I will click the button.\n```python\nclick(coordinates=[3, 4])\n```\nThat should do it."
    assert ALL.parse(text) == [act.Click(3, 4)]
    assert ALL.parse("```\nDONE\n```") == [act.Done()]
    assert ALL.parse("```python\nclick([1, 1])\n```\n```python\nexit(success=True)\n```") == [
        act.Click(1, 1),
        act.Done(),
    ]


def test_action_prefix_drops_the_reasoning_before_it() -> None:
    text = "Thought: the save button is at the top.\nAction: hotkey(keys=['ctrl', 's'])"
    assert ALL.parse(text) == [act.Hotkey(("ctrl", "s"))]
    assert ALL.parse("action: DONE") == [act.Done()]
    assert ALL.parse("**Action:** click(coordinates=[1, 2])") == [act.Click(1, 2)]
    assert ALL.parse("Action: `click(coordinates=[1, 2])`") == [act.Click(1, 2)]


def test_negative_numbers_and_floats_are_literals() -> None:
    assert ALL.parse("SCROLL(dx=-3, dy=-2.0)") == [act.Scroll(-3, 2)]


def test_key_names_are_normalized() -> None:
    assert ALL.parse("hotkey(['CTRL', 'Page_Down'])") == [act.Hotkey(("ctrl", "pagedown"))]
    assert ALL.parse("PRESS(key='ArrowUp')") == [act.Press("up")]
    assert ALL.parse("PRESS(key='A')") == [act.Press("A")]
    assert ALL.parse("pyautogui.press(' ')") == [act.Press("space")]
    assert ALL.parse("pyautogui.hotkey('command', 'option', 'del')") == [act.Hotkey(("win", "alt", "delete"))]
