"""The prompt text and tool schemas come from the same specs the parser uses."""

from __future__ import annotations

import json
from typing import Any

import pytest

from desktop_gym.actions import STYLES, ActionParseError, ActionSet
from desktop_gym.actions.spec import COMMON_ARG_DOCS

STYLE_NAMES = [*STYLES, "all"]


def example_value(schema: dict[str, Any], name: str) -> Any:
    """A valid value for a parameter schema (coordinates small enough for either mode)."""
    if "enum" in schema:
        return schema["enum"][0]
    if "anyOf" in schema:
        return example_value(schema["anyOf"][0], name)
    kind = schema["type"]
    if kind == "array":
        if schema["items"].get("type") == "number":
            return [10, 20]
        return ["ctrl", "s"] if "key" in name else ["a"]
    return {
        "integer": 1,
        "number": 1.0,
        "boolean": True,
        "string": {"window_id": "0x10", "key": "enter", "keys": "enter"}.get(name, "text"),
        "object": {},
    }[kind]


@pytest.mark.parametrize("style", STYLE_NAMES)
def test_every_action_appears_in_the_description_and_the_schemas(style: str) -> None:
    actions = ActionSet(style=style)
    text = actions.describe()
    schemas = {s["function"]["name"]: s for s in actions.tool_schemas()}
    assert len(schemas) == len(actions.specs), "tool names must be unique"
    for spec in actions.specs:
        assert f"\n{spec.signature()}\n    {spec.summary}" in text
        schema = schemas[spec.tool_name]["function"]
        assert schema["description"] == spec.summary
        assert list(schema["parameters"]["properties"]) == [p.name for p in spec.params]
        assert schema["parameters"]["required"] == [p.name for p in spec.params if p.required]


def test_every_built_in_argument_is_described_and_common_ones_come_from_one_glossary() -> None:
    specs = ActionSet(style="all").specs
    undocumented = [f"{spec.name}({p.name})" for spec in specs for p in spec.params if not p.doc]
    assert undocumented == []
    click = next(spec for spec in specs if spec.name == "pyautogui.click")
    assert {p.name: p.doc for p in click.params}["duration"] == COMMON_ARG_DOCS["duration"] == "Ignored."
    drop = next(spec for spec in specs if spec.name == "DRAG_TO")
    assert {p.name: p.doc for p in drop.params}["x"] == "Horizontal position of the drop."  # its own Args win
    custom = next(spec for spec in ActionSet(custom_actions=[_custom_with_x]).specs if spec.name == "_custom_with_x")
    assert [p.doc for p in custom.params] == [""], "a custom action is described by its own docstring only"


def _custom_with_x(x: int) -> list:
    """A custom action whose argument its docstring leaves undescribed."""
    return []


@pytest.mark.parametrize("style", STYLE_NAMES)
@pytest.mark.parametrize("coordinates", ["pixel", "normalized"])
def test_schema_arguments_parse_as_tool_calls_and_as_python(style: str, coordinates: str) -> None:
    actions = ActionSet(style=style, coordinates=coordinates)
    for schema in actions.tool_schemas():
        function = schema["function"]
        properties = function["parameters"]["properties"]
        required = {n: example_value(properties[n], n) for n in function["parameters"]["required"]}
        full = {n: example_value(s, n) for n, s in properties.items()}
        if function["name"] in ("CLICK", "RIGHT_CLICK", "DOUBLE_CLICK", "pyautogui_click"):
            full["x"], full["y"] = 10, 20
        for arguments in (required, full):
            if function["name"] in ("type", "type_into_element") and not arguments:
                continue  # type() with nothing to type is refused on purpose
            call = {
                "type": "function",
                "function": {"name": function["name"], "arguments": json.dumps(arguments)},
            }
            parsed = actions.parse(json.dumps(call))
            assert parsed, function["name"]
            spec = next(s for s in actions.specs if s.tool_name == function["name"])
            variadic = [p.name for p in spec.params if p.variadic]
            positional = [repr(arguments[v]) for v in variadic if v in arguments][:1]
            if positional:
                positional = [", ".join(repr(k) for k in arguments[variadic[0]])]
            keywords = [f"{k}={v!r}" for k, v in arguments.items() if k not in variadic]
            line = f"{spec.name}({', '.join(positional + keywords)})"
            assert actions.parse(line) == parsed, line


def test_describe_json_is_the_tool_schemas() -> None:
    actions = ActionSet(style="computerrl")
    assert json.loads(actions.describe(fmt="json")) == actions.tool_schemas()


def test_schema_shapes() -> None:
    schemas = {s["function"]["name"]: s["function"] for s in ActionSet().tool_schemas()}
    click = schemas["click"]["parameters"]
    assert click["properties"]["coordinates"]["type"] == "array"
    assert click["properties"]["coordinates"]["minItems"] == 2
    assert click["properties"]["button_type"]["enum"] == ["left", "right", "middle"]
    assert click["properties"]["num_clicks"]["default"] == 1
    assert click["properties"]["coordinates"]["description"]
    assert click["additionalProperties"] is False
    assert schemas["switch_window"]["parameters"]["properties"]["window_id"] == {
        "anyOf": [{"type": "integer"}, {"type": "string"}],
        "description": schemas["switch_window"]["parameters"]["properties"]["window_id"]["description"],
    }
    assert schemas["pyautogui_hotkey"]["parameters"]["properties"]["keys"]["items"] == {"type": "string"}
    for name in schemas:
        assert name.replace("_", "").isalnum(), f"{name} is not a valid OpenAI function name"


def test_description_states_the_coordinate_mode() -> None:
    assert "screen pixels" in ActionSet().describe()
    assert "0-1000" in ActionSet(coordinates="normalized").describe()


def test_description_lists_only_the_chosen_style() -> None:
    text = ActionSet(style="computerrl").describe()
    assert "drag_and_drop(" in text and "MOVE_TO(" not in text and "pyautogui." not in text
    text = ActionSet(style="pyautogui").describe()
    assert "pyautogui.click(" in text and "DONE()" in text and "drag_and_drop(" not in text


class WriterTools:
    def find_and_replace(self, pattern: str, replacement: str) -> int:
        """Replace every match of pattern; returns the count."""
        return 0


def test_description_lists_api_methods_when_classes_are_given() -> None:
    text = ActionSet(style="computerrl", api_classes={"WriterTools": WriterTools, "CalcTools": None}).describe()
    assert "WriterTools.find_and_replace(pattern: str, replacement: str)" in text
    assert "Replace every match of pattern; returns the count." in text
    assert "CalcTools.<method>(...)" in text


@pytest.mark.parametrize("style", STYLE_NAMES)
def test_every_name_in_the_description_parses(style: str) -> None:
    actions = ActionSet(style=style)
    for spec in actions.specs:
        try:
            actions.parse(f"{spec.name}()")
        except ActionParseError as error:
            message = str(error)
            assert "unknown action" not in message and "belongs to" not in message, message
