"""Custom actions per ActionSet instance: one parser and one description for built-in and custom."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from desktop_gym.actions import ActionParseError, ActionSet, Click, Hotkey, TypeText
from desktop_gym.api_exposure import ApiExposure


def copy_all() -> list[Hotkey]:
    """Select everything in the focused window and copy it."""
    return [Hotkey(["ctrl", "a"]), Hotkey(["ctrl", "c"])]


def fill_field(x: float, y: float, text: str, clear: bool = True) -> list:
    """Click a text field and type into it.

    Args:
        x: The field's x coordinate.
        y: The field's y coordinate.
        text: What to type.
        clear: Select the old text first, so typing replaces it.
    """
    actions: list = [Click(x=x, y=y)]
    if clear:
        actions.append(Hotkey(["ctrl", "a"]))
    return [*actions, TypeText(text)]


def test_custom_actions_parse_next_to_built_in_ones() -> None:
    actions = ActionSet(style="computerrl", custom_actions=[copy_all, fill_field])
    parsed = actions.parse("fill_field(10, 20, text='hi', clear=False)\ncopy_all()\nhotkey(keys=['enter'])")
    assert [type(a).__name__ for a in parsed] == ["Click", "TypeText", "Hotkey", "Hotkey", "Hotkey"]
    assert parsed[0] == Click(x=10.0, y=20.0)
    assert actions.coerce({"name": "copy_all", "arguments": {}}) == copy_all()


@pytest.mark.parametrize(
    ("call", "message"),
    [
        ("fill_field(1, 2)", "fill_field\\(\\) missing required argument 'text'"),
        ("fill_field(1, 2, text='a', colour='red')", "unexpected argument 'colour'"),
        ("fill_field(1, 2, text=[1])", "text"),
    ],
)
def test_custom_action_arguments_are_checked_like_built_in_ones(call: str, message: str) -> None:
    with pytest.raises(ActionParseError, match=message):
        ActionSet(custom_actions=[fill_field]).parse(call)


def test_custom_actions_are_described_and_have_schemas() -> None:
    actions = ActionSet(style="computerrl", custom_actions=[fill_field])
    text = actions.describe()
    assert "## Custom actions" in text
    assert "fill_field(x: float, y: float, text: str, clear: bool = True)" in text
    assert "    Click a text field and type into it." in text
    schema = {s["function"]["name"]: s for s in actions.tool_schemas()}["fill_field"]
    assert schema["function"]["parameters"]["required"] == ["x", "y", "text"]
    assert "What to type." in json.dumps(schema)


def test_custom_actions_belong_to_their_instance() -> None:
    ActionSet(custom_actions=[copy_all])
    with pytest.raises(ActionParseError, match="unknown action 'copy_all'"):
        ActionSet().parse("copy_all()")


def test_a_custom_name_may_not_shadow_an_action() -> None:
    def click(x: float, y: float) -> Click:
        """Click twice."""
        return Click(x=x, y=y, num_clicks=2)

    with pytest.raises(ValueError, match="custom_actions: 'click' is already an action"):
        ActionSet(custom_actions=[click])
    with pytest.raises(ValueError, match="'copy_all' is already"):
        ActionSet(custom_actions=[copy_all, copy_all])


def test_a_custom_function_without_docstring_or_hints_is_refused() -> None:
    def bare(x):  # noqa: ANN001, ANN202 - the point of the test
        return Click(x=x, y=0)

    with pytest.raises(ValueError, match="needs a docstring"):
        ActionSet(custom_actions=[bare])
    bare.__doc__ = "Click on the top edge."
    with pytest.raises(ValueError, match="parameter 'x' has no type hint"):
        ActionSet(custom_actions=[bare])


def test_a_custom_action_that_returns_no_actions_is_a_parse_error() -> None:
    def broken() -> str:
        """Return text instead of actions."""
        return "click"

    with pytest.raises(ActionParseError, match="custom action 'broken' must return actions, got str"):
        ActionSet(custom_actions=[broken]).parse("broken()")


def test_the_exposure_keeps_the_callers_set_and_its_index() -> None:
    actions = ActionSet(coordinates="normalized", custom_actions=[copy_all])
    exposure = ApiExposure(actions, "hybrid", "focused")
    assert exposure.gui_actions is actions
    assert exposure.parser._by_name is actions._by_name, "the index is built once"
    assert exposure.parser.parse("copy_all()") == copy_all()
    assert "CalcTools.set_cell_value" not in exposure.describe([])
    assert "copy_all()" in exposure.describe([])


@given(st.text(max_size=40))
def test_any_text_for_a_custom_action_parses_or_raises_a_parse_error(text: str) -> None:
    actions = ActionSet(custom_actions=[fill_field])
    try:
        result = actions.parse(f"fill_field(1, 2, text={text!r})")
    except ActionParseError:
        return
    assert result[-1] == TypeText(text)
