"""The app API registry: prompt text, tool schemas and argument checks, without LibreOffice."""

from __future__ import annotations

import json
from typing import Any

import pytest

from desktop_gym.actions import ActionSet, ApiCall
from desktop_gym.apps.calc.tools import CalcTools
from desktop_gym.guest.apps import registry
from desktop_gym.guest.apps.tool_schema import (
    ApiArgumentError,
    ApiCallError,
    UnknownApiMethodError,
    find_method,
    tool_methods,
)

REQUIRED_CALC_METHODS = {
    "get_cell_value", "set_cell_value", "get_cell_formula", "set_cell_formula", "get_range_values",
    "set_range_values", "insert_rows", "delete_rows", "insert_columns", "delete_columns", "sort_range",
    "set_autofilter", "freeze_panes", "set_number_format", "set_bold", "set_font_name", "set_font_size",
    "set_font_color", "set_background_color", "merge_cells", "set_column_width", "set_row_height",
    "find_replace", "add_sheet", "rename_sheet", "delete_sheet", "switch_sheet", "list_sheets",
    "get_used_range", "insert_chart", "create_pivot_table", "add_conditional_format", "save",
}  # fmt: skip


def test_calc_tools_offer_every_method_but_summary() -> None:
    methods = tool_methods(CalcTools)
    assert set(methods) == REQUIRED_CALC_METHODS
    assert len(methods) >= 27
    assert "summary" not in methods and not any(name.startswith("_") for name in methods)


def test_prompt_text_lists_signature_and_summary() -> None:
    text = registry.api_prompt("calc")
    lines = text.splitlines()
    index = lines.index("CalcTools.set_cell_value(cell: str, value: str | float | None)")
    assert lines[index + 1].strip().startswith("Write a number or text into one cell")
    assert "CalcTools.insert_chart(data_range: str, chart_type: 'bar' | 'line' | 'pie' = 'bar'," in text
    assert registry.api_prompt("CalcTools") == text


def test_tool_schemas_are_openai_function_shaped() -> None:
    schemas = {schema["function"]["name"]: schema for schema in registry.api_tool_schemas("calc")}
    assert set(schemas) == {f"CalcTools__{name}" for name in REQUIRED_CALC_METHODS}
    schema = schemas["CalcTools__sort_range"]
    assert schema["type"] == "function"
    parameters = schema["function"]["parameters"]
    assert parameters["required"] == ["cell_range", "column"]
    assert parameters["additionalProperties"] is False
    assert parameters["properties"]["ascending"] == {
        "type": "boolean",
        "description": "True for A-Z / smallest first, False for Z-A / largest first.",
        "default": True,
    }
    values = schemas["CalcTools__set_range_values"]["function"]["parameters"]["properties"]["values"]
    assert values["type"] == "array" and values["items"]["type"] == "array"
    json.dumps(list(schemas.values()))  # serialisable as is


def test_action_set_parses_calls_and_tool_calls_of_the_api() -> None:
    actions = ActionSet(api_classes=registry.api_classes(["calc"]))
    assert actions.parse('CalcTools.set_cell_value(cell="B2", value=5)') == [
        ApiCall("CalcTools", "set_cell_value", {"cell": "B2", "value": 5})
    ]
    tool_call = {"name": "CalcTools__freeze_panes", "arguments": '{"cell": "B2"}'}
    assert actions.parse(json.dumps(tool_call)) == [ApiCall("CalcTools", "freeze_panes", {"cell": "B2"})]
    prompt = actions.describe()
    assert "CalcTools.set_cell_value(cell: str, value: str | float | None)" in prompt
    assert "CalcTools.summary" not in prompt


@pytest.mark.parametrize(
    ("method", "arguments", "message"),
    [
        ("set_cell_value", {"cel": "A1", "value": 1}, r"unknown argument 'cel' \(did you mean 'cell'\?\)"),
        ("set_cell_value", {"cell": "A1"}, r"set_cell_value\(\) is missing the required argument 'value'"),
        ("set_cell_value", {"cell": 3, "value": 1}, "cell must be a string, got 3"),
        ("set_bold", {"cell_range": "A1", "bold": "yes"}, "bold must be True or False"),
        ("insert_rows", {"row": 2.5}, "row must be an integer, got 2.5"),
        ("insert_chart", {"data_range": "A1:B3", "chart_type": "pi"}, r"did you mean 'pie'"),
        ("set_range_values", {"start_cell": "A1", "values": [[1, {}]]}, r"values\[0\]\[1\]"),
    ],
)
def test_validation_names_the_argument(method: str, arguments: dict[str, Any], message: str) -> None:
    with pytest.raises(ApiArgumentError, match=message):
        find_method(CalcTools, method).validate(arguments)


def test_validation_converts_and_fills_defaults() -> None:
    checked = find_method(CalcTools, "sort_range").validate({"cell_range": "A1:C9", "column": "B"})
    assert checked == {"cell_range": "A1:C9", "column": "B", "ascending": True, "has_header": True}
    assert find_method(CalcTools, "insert_rows").validate({"row": 3.0})["row"] == 3
    assert (
        find_method(CalcTools, "insert_chart").validate({"data_range": "A1", "chart_type": "PIE"})["chart_type"]
        == "pie"
    )


def test_unknown_method_names_the_closest() -> None:
    with pytest.raises(UnknownApiMethodError, match=r"no method 'set_cel_value' \(did you mean 'set_cell_value'"):
        find_method(CalcTools, "set_cel_value")
    with pytest.raises(UnknownApiMethodError, match="no method 'summary'"):
        find_method(CalcTools, "summary")


def test_unknown_app_names_the_known_ones() -> None:
    assert registry.resolve_app("CalcTools") == registry.resolve_app("calc") == "calc"
    with pytest.raises(registry.UnknownAppApiError, match=r"'CalcTool' \(did you mean 'CalcTools'\?\).*calc"):
        registry.resolve_app("CalcTool")


def test_call_api_checks_before_reaching_the_app() -> None:
    class NotLaunched:
        app = "calc"
        uno = None

    with pytest.raises(ApiArgumentError, match="not valid JSON"):
        registry.call_api(NotLaunched, "set_cell_value", "{cell:")
    with pytest.raises(ApiArgumentError, match="missing the required argument 'value'"):
        registry.call_api(NotLaunched, "set_cell_value", '{"cell": "A1"}')
    with pytest.raises(ApiCallError, match="calc has no UNO connection"):
        registry.call_api(NotLaunched, "set_cell_value", '{"cell": "A1", "value": 1}')


def test_every_call_limit_outlasts_the_methods_own_waits_and_fits_the_hosts_deadline() -> None:
    from desktop_gym.apps.chrome.tools import DOWNLOAD_TIMEOUT_S, ChromeTools
    from desktop_gym.apps.gimp.tools import CALL_TIMEOUT_S as GIMP_WAIT_S
    from desktop_gym.apps.gimp.tools import GimpTools
    from desktop_gym.apps.os.tools import MAX_SHELL_TIMEOUT_S, OSTools
    from desktop_gym.apps.vscode.tools import MAX_COMMAND_TIMEOUT_S, VSCodeTools
    from desktop_gym.guest.apps.tool_schema import DEFAULT_CALL_TIMEOUT_S, call_limit
    from desktop_gym.guest.client import API_DEADLINE

    assert call_limit(VSCodeTools, "run_in_terminal") > MAX_COMMAND_TIMEOUT_S
    assert call_limit(OSTools, "run_shell") > MAX_SHELL_TIMEOUT_S
    assert call_limit(ChromeTools, "download") > DOWNLOAD_TIMEOUT_S
    assert all(call_limit(GimpTools, name) > GIMP_WAIT_S for name in tool_methods(GimpTools))
    assert call_limit(CalcTools, "save") > call_limit(CalcTools, "set_cell_value") == DEFAULT_CALL_TIMEOUT_S
    for app in registry.TOOL_CLASSES:  # the host waits for the guest's own verdict, never less
        tools = registry.TOOL_CLASSES[app]
        assert all(call_limit(tools, name) < API_DEADLINE for name in tool_methods(tools)), app
