"""JSON tool calls, OSWorld dicts, pyautogui scripts, API calls and ActionSet.coerce."""

from __future__ import annotations

import json

import pytest

from desktop_gym.actions import ActionParseError, ActionSet
from desktop_gym.actions import types as act

ALL = ActionSet()


def test_openai_tool_call_with_object_arguments() -> None:
    text = json.dumps({"name": "click", "arguments": {"coordinates": [10, 20], "num_clicks": 2}})
    assert ALL.parse(text) == [act.Click(10, 20, num_clicks=2)]


def test_openai_tool_call_with_json_string_arguments() -> None:
    call = {"type": "function", "function": {"name": "type", "arguments": json.dumps({"text": "héllo"})}}
    assert ALL.parse(json.dumps(call)) == [act.TypeText("héllo")]


def test_a_list_of_tool_calls_and_an_openai_message() -> None:
    calls = [
        {"name": "click", "arguments": {"coordinates": [1, 2]}},
        {"type": "function", "function": {"name": "hotkey", "arguments": '{"keys": ["ctrl", "s"]}'}},
    ]
    assert ALL.parse(json.dumps(calls)) == [act.Click(1, 2), act.Hotkey(("ctrl", "s"))]
    message = {"role": "assistant", "tool_calls": [{"id": "c1", "type": "function", "function": calls[0]}]}
    assert ALL.coerce(message) == [act.Click(1, 2)]


def test_tool_names_of_pyautogui_and_computer13_actions() -> None:
    assert ALL.parse('{"name": "pyautogui_click", "arguments": {"x": 1, "y": 2}}') == [act.Click(1, 2)]
    assert ALL.parse('{"name": "pyautogui.hotkey", "arguments": {"keys": ["ctrl", "a"]}}') == [
        act.Hotkey(("ctrl", "a"))
    ]
    assert ALL.parse('{"name": "MOVE_TO", "arguments": {"x": 1, "y": 2}}') == [act.MoveTo(1, 2)]
    assert ALL.parse('{"name": "exit", "arguments": {"success": false}}') == [act.Fail()]


def test_empty_or_null_arguments_mean_no_arguments() -> None:
    assert ALL.parse('{"name": "DONE", "arguments": ""}') == [act.Done()]
    assert ALL.parse('{"name": "wait", "arguments": null}') == [act.Wait()]
    assert ALL.parse('{"name": "wait"}') == [act.Wait()]


def test_fenced_json_is_read() -> None:
    text = 'Calling the tool:\n```json\n{"name": "click", "arguments": {"coordinates": [5, 6]}}\n```'
    assert ALL.parse(text) == [act.Click(5, 6)]


@pytest.mark.parametrize(
    ("action", "expected"),
    [
        ({"action_type": "MOVE_TO", "parameters": {"x": 1, "y": 2}}, [act.MoveTo(1, 2)]),
        (
            {"action_type": "CLICK", "parameters": {"button": "right", "x": 3, "y": 4, "num_clicks": 1}},
            [act.Click(3, 4, "right")],
        ),
        ({"action_type": "CLICK", "parameters": {}}, [act.Click()]),
        ({"action_type": "SCROLL", "parameters": {"dx": 0, "dy": -2}}, [act.Scroll(0, 2)]),
        ({"action_type": "TYPING", "parameters": {"text": "abc"}}, [act.TypeText("abc")]),
        ({"action_type": "HOTKEY", "parameters": {"keys": ["ctrl", "z"]}}, [act.Hotkey(("ctrl", "z"))]),
        ({"action_type": "PRESS", "parameters": {"key": "enter"}}, [act.Press("enter")]),
        ({"action_type": "DONE"}, [act.Done()]),
        ({"action_type": "FAIL", "parameters": None}, [act.Fail()]),
        ({"action_type": "WAIT"}, [act.Wait()]),
    ],
)
def test_osworld_dicts_as_json_text_and_as_dicts(action: dict, expected: list) -> None:
    assert ALL.parse(json.dumps(action)) == expected
    assert ALL.coerce(action) == expected
    assert ActionSet(style="computer_13").coerce(action) == expected


def test_python_literal_dicts_with_single_quotes_are_accepted() -> None:
    assert ALL.parse("{'action_type': 'CLICK', 'parameters': {'x': 1, 'y': 2}}") == [act.Click(1, 2)]


def test_osworld_bare_codes_in_a_json_list() -> None:
    assert ALL.parse('["WAIT", "DONE"]') == [act.Wait(), act.Done()]


def test_pyautogui_script_with_imports_and_sleeps() -> None:
    script = """```python
import pyautogui
import time
pyautogui.click(640, 360)
time.sleep(0.5)
pyautogui.write('Total')
pyautogui.press('enter')
```"""
    assert ActionSet(style="pyautogui").parse(script) == [
        act.Click(640, 360),
        act.Wait(0.5),
        act.TypeText("Total"),
        act.Press("enter"),
    ]


@pytest.mark.parametrize(
    ("script", "message"),
    [
        (
            "import pyautogui\nfor i in range(3):\n    pyautogui.press('down')",
            "line 2: only action calls are allowed, got a for loop",
        ),
        ("import os\npyautogui.click(1, 2)", "import of 'os' is not allowed"),
        (
            "import pyautogui\nx, y = 10, 20\npyautogui.click(x, y)",
            "line 2: only action calls are allowed, got an assignment",
        ),
        ("from pyautogui import click", "from-import"),
        ("pyautogui.locateOnScreen('button.png')", "unknown action 'pyautogui.locateOnScreen'"),
        ("pyautogui.clik(1, 2)", r"unknown action 'pyautogui.clik' \(did you mean 'pyautogui.click'\?\)"),
    ],
)
def test_pyautogui_script_rejects_other_statements_clearly(script: str, message: str) -> None:
    with pytest.raises(ActionParseError, match=message):
        ActionSet(style="pyautogui").parse(script)


def test_imports_are_refused_without_the_pyautogui_style() -> None:
    with pytest.raises(ActionParseError, match=r"import of 'pyautogui' is not allowed \(allowed imports: none\)"):
        ActionSet(style="computerrl").parse("import pyautogui\nclick([1, 2])")


def test_api_calls_of_known_classes() -> None:
    actions = ActionSet(api_classes={"CalcTools": None})
    assert actions.parse('CalcTools.set_cell_value(cell="B2", value=5)') == [
        act.ApiCall("CalcTools", "set_cell_value", {"cell": "B2", "value": 5})
    ]
    assert actions.parse('{"name": "CalcTools__set_cell_value", "arguments": {"cell": "A1", "value": -1.5}}') == [
        act.ApiCall("CalcTools", "set_cell_value", {"cell": "A1", "value": -1.5})
    ]
    assert actions.parse('{"name": "CalcTools.get_range", "arguments": {}}') == [act.ApiCall("CalcTools", "get_range")]


class CalcTools:
    """A stand-in API class: only its method names and signatures are read."""

    def set_cell_value(self, cell: str, value: object) -> None:
        """Set one cell."""

    def get_cell_value(self, cell: str) -> object:
        """Read one cell."""

    def _private(self) -> None:
        """Not part of the API."""


def test_api_calls_are_checked_against_the_class_when_given() -> None:
    actions = ActionSet(api_classes={"CalcTools": CalcTools, "WriterTools": None})
    assert actions.parse("CalcTools.set_cell_value('B2', value=[1, 2])") == [
        act.ApiCall("CalcTools", "set_cell_value", {"cell": "B2", "value": [1, 2]})
    ]


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            "CalcTools.set_cel_value(cell='B2', value=1)",
            r"CalcTools has no method 'set_cel_value' \(did you mean 'set_cell_value'",
        ),
        ("CalcTools._private()", "CalcTools has no method '_private'"),
        ("CalcTools.set_cell_value('B2', 1, 2)", "takes at most 2 positional arguments, got 3"),
        ("CalcTools.set_cell_value('B2', cell='B3', value=1)", "got multiple values for argument 'cell'"),
        ("WriterTools.find('x')", r"WriterTools.find\(\): pass arguments by name"),
    ],
)
def test_api_calls_that_do_not_fit_the_class_are_refused(call: str, message: str) -> None:
    with pytest.raises(ActionParseError, match=message):
        ActionSet(api_classes={"CalcTools": CalcTools, "WriterTools": None}).parse(call)


def test_unknown_api_class_lists_the_known_ones() -> None:
    actions = ActionSet(api_classes={"CalcTools": None, "WriterTools": None})
    with pytest.raises(
        ActionParseError,
        match=r"unknown API class 'CalcTool' \(did you mean 'CalcTools'\?\); "
        r"known API classes: CalcTools, WriterTools",
    ):
        actions.parse("CalcTool.set_cell_value(cell='B2', value=5)")
    with pytest.raises(ActionParseError, match="unknown API class 'CalcTools'; known API classes: none are available"):
        ALL.parse("CalcTools.set_cell_value(cell='B2', value=5)")


def test_coerce_accepts_typed_actions_dicts_text_and_lists() -> None:
    assert ALL.coerce(act.Click(1, 2)) == [act.Click(1, 2)]
    assert ALL.coerce(act.Exit(True)) == [act.Done()]
    assert ALL.coerce(act.Exit(False)) == [act.Fail()]
    assert ALL.coerce("DONE") == [act.Done()]
    assert ALL.coerce({"name": "click", "arguments": {"coordinates": [1, 2]}}) == [act.Click(1, 2)]
    assert ALL.coerce([act.Click(1, 2), "wait()", {"action_type": "DONE"}]) == [act.Click(1, 2), act.Wait(), act.Done()]
    with pytest.raises(ActionParseError, match="cannot use a int as an action"):
        ALL.coerce(5)
    with pytest.raises(ActionParseError, match="the list is empty"):
        ALL.coerce([])
