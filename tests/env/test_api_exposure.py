"""ApiExposure without a desktop: what each mode and scope offers, and the refusal messages."""

from __future__ import annotations

import json

import pytest

from desktop_gym.actions import ActionSet, ApiCall, Click, Done, Wait
from desktop_gym.api_exposure import ApiExposure
from desktop_gym.guest.types import AppInfo


def exposure(mode: str = "hybrid", scope: str = "focused") -> ApiExposure:
    return ApiExposure(ActionSet(), mode, scope)


def test_focused_scope_offers_the_focused_app_and_os_tools():
    hybrid = exposure()
    assert hybrid.offered_apps("calc") == ["calc", "os"]
    assert hybrid.offered_apps("terminal") == ["os"]
    assert hybrid.offered_apps("") == ["os"]
    assert set(exposure(scope="all").offered_apps("terminal")) >= {"calc", "writer", "impress", "os"}
    assert exposure("gui").offered_apps("calc") == []


def test_prompt_and_schemas_follow_mode_and_apps():
    hybrid = exposure()
    text = hybrid.describe(["calc", "os"])
    assert "click(coordinates: [x, y]" in text and "CalcTools.set_cell_value(" in text and "OSTools.run_shell(" in text
    assert "WriterTools" not in text
    api_only = exposure("api")
    text = api_only.describe(["writer", "os"])
    assert "click(" not in text and "WriterTools.append_paragraph(" in text and "exit(success: bool)" in text
    names = [schema["function"]["name"] for schema in api_only.tool_schemas(["writer", "os"])]
    assert set(names) >= {"exit", "wait", "DONE", "FAIL", "WriterTools__append_paragraph", "OSTools__get_clipboard"}
    assert "click" not in names and "hotkey" not in names
    assert '"name": "OSTools__get_clipboard"' in api_only.describe(["os"], fmt="json")


def test_mode_refusals_name_the_mode():
    call = ApiCall("CalcTools", "set_cell_value", {"cell": "A1", "value": 1})
    assert "action_mode='gui'" in exposure("gui").mode_refusal(call)
    assert exposure("gui").mode_refusal(Click(x=1, y=2)) is None
    assert "click: GUI actions are disabled in action_mode='api'" in exposure("api").mode_refusal(Click(x=1, y=2))
    assert exposure("api").mode_refusal(Done()) is None and exposure("api").mode_refusal(Wait(1.0)) is None
    assert exposure("api").mode_refusal(call) is None and exposure().mode_refusal(Click(x=1, y=2)) is None


def test_focus_refusal_says_how_to_switch():
    hybrid = exposure()
    call = ApiCall("WriterTools", "get_text", {})
    assert hybrid.needs_focus_check(call) and not hybrid.needs_focus_check(ApiCall("OSTools", "get_clipboard", {}))
    assert not exposure(scope="all").needs_focus_check(call)
    focused = {"app": "calc", "tool_class": "CalcTools"}
    running = [AppInfo("calc", 10, True, 7, None), AppInfo("writer", 11, True, 99, None)]
    message = hybrid.focus_refusal(call, focused, lambda: running)
    assert "the focused app is calc (CalcTools)" in message and "switch_window(window_id=99)" in message
    message = hybrid.focus_refusal(call, focused, lambda: running[:1])
    assert "writer is not running; start it with open_app(app_name='writer')" in message
    assert "api_scope='all'" in exposure("api").focus_refusal(call, focused, lambda: running)
    assert hybrid.focus_refusal(call, {"app": "writer", "tool_class": "WriterTools"}, list) is None


def test_bad_mode_and_scope_are_named():
    with pytest.raises(ValueError, match="unknown action_mode 'mixed'"):
        exposure("mixed")
    with pytest.raises(ValueError, match="unknown api_scope 'visible'"):
        exposure(scope="visible")


def test_every_offered_api_schema_parses_back_as_a_json_tool_call():
    hybrid = exposure()
    names = [schema["function"]["name"] for schema in hybrid.tool_schemas(["calc", "os"])]
    api_names = [name for name in names if "__" in name]
    assert len(api_names) > 40
    for name in api_names:  # the parser resolves names; the guest checks the arguments
        tools, method = name.split("__")
        assert hybrid.parser.parse(json.dumps({"name": name, "arguments": {}})) == [ApiCall(tools, method, {})]
    call = hybrid.parser.parse(json.dumps({"name": "OSTools__path_exists", "arguments": {"path": "~"}}))
    assert call == [ApiCall("OSTools", "path_exists", {"path": "~"})]


def test_brief_description_keeps_every_signature_and_drops_the_docs():
    exposure = ApiExposure(ActionSet(style="computerrl"), "hybrid", "focused")
    full, brief = exposure.describe(["calc"]), exposure.describe(["calc"], "brief")
    signatures = [line for line in full.splitlines() if not line.startswith("    ")]
    assert brief.splitlines() == signatures
    assert "CalcTools.rename_sheet(old_name: str, new_name: str)" in brief
    assert "Rename a sheet." in full and "Rename a sheet." not in brief
    assert len(brief) < 0.75 * len(full)
    with pytest.raises(ValueError, match="'python', 'brief' or 'json'"):
        exposure.describe(["calc"], "short")
