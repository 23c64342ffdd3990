"""ImpressTools as the prompt and the schemas see it: methods, docstrings, argument checks (no LibreOffice)."""

from __future__ import annotations

import inspect

import pytest

from desktop_gym.apps.impress.tools import ImpressTools
from desktop_gym.guest.apps import registry
from desktop_gym.guest.apps.tool_schema import ApiArgumentError, UnknownApiMethodError, find_method, tool_methods

REQUIRED_IMPRESS_METHODS = {
    "list_slides", "add_slide", "delete_slide", "duplicate_slide", "move_slide", "set_slide_layout", "set_title",
    "go_to_slide", "set_slide_background", "set_placeholder_text", "add_text_box", "set_shape_text",
    "set_font_name", "set_font_size", "set_bold", "set_italic", "set_font_color", "set_bullet_list",
    "set_text_alignment", "get_shapes", "insert_image", "add_shape", "set_shape_position", "set_shape_fill_color",
    "delete_shape", "set_transition", "set_speaker_notes", "get_speaker_notes", "save",
}  # fmt: skip


def test_impress_tools_offer_every_method_but_summary() -> None:
    methods = tool_methods(ImpressTools)
    assert set(methods) == REQUIRED_IMPRESS_METHODS and len(methods) >= 25
    assert "summary" not in methods
    assert registry.tool_class("impress") is ImpressTools and registry.resolve_app("ImpressTools") == "impress"


@pytest.mark.parametrize("name", sorted(REQUIRED_IMPRESS_METHODS))
def test_every_argument_is_documented(name: str) -> None:
    method = tool_methods(ImpressTools)[name]
    doc = inspect.getdoc(getattr(ImpressTools, name)) or ""
    assert "Returns:" in doc and method.summary
    for param in method.params:
        assert param.doc, f"{name}: argument {param.name} has no Args: entry"
    if any(param.name.endswith("_cm") for param in method.params):
        assert "centimetres" in doc


def test_prompt_and_schema_shapes() -> None:
    text = registry.api_prompt("impress")
    assert "ImpressTools.add_text_box(slide: int, text: str, x_cm: float = 2.0, y_cm: float = 5.0," in text
    schemas = {schema["function"]["name"]: schema["function"] for schema in registry.api_tool_schemas("impress")}
    parameters = schemas["ImpressTools__add_shape"]["parameters"]
    assert parameters["required"] == ["slide", "kind", "x_cm", "y_cm", "width_cm", "height_cm"]
    assert parameters["properties"]["kind"]["enum"] == ["rectangle", "ellipse"]


def test_arguments_are_checked_before_the_app() -> None:
    method = find_method(ImpressTools, "set_transition")
    assert method.validate({"slide": None, "effect": "FADE"}) == {"slide": None, "effect": "fade", "duration_s": 1.0}
    with pytest.raises(ApiArgumentError, match=r"effect must be one of .* got 'fad' \(did you mean 'fade'\?\)"):
        method.validate({"slide": 1, "effect": "fad"})
    with pytest.raises(ApiArgumentError, match="missing the required argument 'effect'"):
        method.validate({"slide": 1})
    with pytest.raises(UnknownApiMethodError, match=r"did you mean 'set_speaker_notes'"):
        find_method(ImpressTools, "set_speaker_note")


def test_a_non_presentation_document_is_refused() -> None:
    with pytest.raises(ApiArgumentError, match="not a presentation"):
        ImpressTools(object())
