"""The WriterTools API as the registry offers it: prompt text, schemas, argument checks (no LibreOffice)."""

from __future__ import annotations

import inspect
from typing import Any

import pytest

from desktop_gym.actions import ActionSet, ApiCall
from desktop_gym.apps.writer.tools import WriterTools
from desktop_gym.guest.apps import registry
from desktop_gym.guest.apps.tool_schema import ApiArgumentError, UnknownApiMethodError, find_method, tool_methods

REQUIRED_WRITER_METHODS = {
    "get_text", "list_paragraphs", "append_paragraph", "insert_paragraph", "insert_text", "set_paragraph_text",
    "delete_paragraph", "find_replace", "set_font_name", "set_font_size", "set_bold", "set_italic",
    "set_underline", "set_font_color", "set_alignment", "set_line_spacing", "set_paragraph_style", "set_heading",
    "set_list", "insert_table", "list_tables", "get_table", "set_table_cell", "set_header_text", "set_footer_text",
    "insert_page_numbers", "set_page_orientation", "set_page_margins", "set_paper_size", "insert_page_break", "save",
}  # fmt: skip


def test_writer_tools_offer_every_method_but_summary() -> None:
    methods = tool_methods(WriterTools)
    assert set(methods) == REQUIRED_WRITER_METHODS
    assert len(methods) >= 22
    assert "summary" not in methods and registry.tool_class("writer") is WriterTools


def test_every_method_documents_its_arguments_and_result() -> None:
    for name, method in tool_methods(WriterTools).items():
        doc = inspect.getdoc(getattr(WriterTools, name)) or ""
        assert "Returns:" in doc, name
        assert all(param.doc for param in method.params), f"{name}: an argument lacks its Args: line"
        assert method.returns is not Any, f"{name}: no return type"


def test_prompt_and_schemas() -> None:
    text = registry.api_prompt("WriterTools")
    assert (
        "WriterTools.set_bold(bold: bool = True, paragraph: int | None = None, match_text: str | None = None)" in text
    )
    assert (
        "WriterTools.set_alignment(alignment: 'left' | 'center' | 'right' | 'justify', paragraph: int | None = None)"
        in text
    )
    schemas = {schema["function"]["name"]: schema for schema in registry.api_tool_schemas("writer")}
    assert set(schemas) == {f"WriterTools__{name}" for name in REQUIRED_WRITER_METHODS}
    table = schemas["WriterTools__insert_table"]["function"]["parameters"]
    assert table["required"] == ["rows", "columns"]
    assert table["properties"]["data"]["items"]["type"] == "array"
    save = schemas["WriterTools__save"]["function"]["parameters"]["properties"]["file_format"]
    assert "pdf" in str(save)


def test_action_set_parses_writer_calls() -> None:
    actions = ActionSet(api_classes=registry.api_classes(["writer"]))
    assert actions.parse("WriterTools.set_heading(paragraph=0, level=2)") == [
        ApiCall("WriterTools", "set_heading", {"paragraph": 0, "level": 2})
    ]
    assert "WriterTools.summary" not in actions.describe()


@pytest.mark.parametrize(
    ("method", "arguments", "message"),
    [
        ("set_bold", {"paragraph": "2"}, "paragraph must be an integer"),
        ("set_list", {"first_paragraph": 1, "list_type": "bullets"}, r"did you mean 'bullet'"),
        ("insert_table", {"rows": 2, "columns": 2, "data": [[1, {}]]}, r"data\[0\]\[1\]"),
        ("find_replace", {"find": "a"}, "missing the required argument 'replace'"),
        ("set_page_orientation", {"orientation": "sideways"}, "orientation must be one of 'portrait', 'landscape'"),
    ],
)
def test_validation_names_the_argument(method: str, arguments: dict[str, Any], message: str) -> None:
    with pytest.raises(ApiArgumentError, match=message):
        find_method(WriterTools, method).validate(arguments)


def test_unknown_method_names_the_closest() -> None:
    with pytest.raises(UnknownApiMethodError, match=r"no method 'set_bolt' \(did you mean 'set_bold'"):
        find_method(WriterTools, "set_bolt")
