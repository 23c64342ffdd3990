"""Mapping typed actions onto guest calls, checked with RecordingGuestClient (a test double)."""

from __future__ import annotations

import pytest

from desktop_gym.actions import ActionOutcome, ActionSet, execute, resolve_app_name, resolve_point
from desktop_gym.actions import types as act
from desktop_gym.guest.types import GuestError, GuestUnavailableError

from .recording_client import RecordingGuestClient

SCREEN = (1280, 720)


def run(action, client: RecordingGuestClient | None = None, **kwargs) -> tuple[ActionOutcome, list]:
    client = client or RecordingGuestClient(SCREEN)
    sleeps: list[float] = []
    outcome = execute(action, client, SCREEN, sleep=sleeps.append, **kwargs)
    return outcome, client.calls + [("sleep", {"seconds": s}) for s in sleeps]


@pytest.mark.parametrize(
    ("action", "calls"),
    [
        (act.MoveTo(10.4, 20.6), [("move", {"x": 10, "y": 21})]),
        (act.Click(5, 6), [("click", {"x": 5, "y": 6, "button": "left", "count": 1})]),
        (
            act.Click(button="right", num_clicks=2),
            [("click", {"x": None, "y": None, "button": "right", "count": 2})],
        ),
        (act.MouseDown(1, 2, "middle"), [("mouse_down", {"x": 1, "y": 2, "button": "middle"})]),
        (act.MouseUp(), [("mouse_up", {"x": None, "y": None, "button": "left"})]),
        (act.Drag(30, 40, 10, 20), [("drag", {"x1": 10, "y1": 20, "x2": 30, "y2": 40, "button": "left"})]),
        (
            act.Drag(30, 40),
            [
                ("mouse_down", {"x": None, "y": None, "button": "left"}),
                ("move", {"x": 30, "y": 40}),
                ("mouse_up", {"x": 30, "y": 40, "button": "left"}),
            ],
        ),
        (act.Scroll(0, 5, 100, 200), [("scroll", {"x": 100, "y": 200, "dx": 0, "dy": 5})]),
        (act.Scroll(-2, 0), [("scroll", {"x": None, "y": None, "dx": -2, "dy": 0})]),
        (act.TypeText("héllo\n"), [("type_text", {"text": "héllo\n"})]),
        (
            act.TypeText("x", 10, 20, overwrite=True, enter=True),
            [
                ("click", {"x": 10, "y": 20, "button": "left", "count": 1}),
                ("hotkey", {"keys": ["ctrl", "a"]}),
                ("type_text", {"text": "x"}),
                ("press", {"key": "enter", "presses": 1}),
            ],
        ),
        (act.TypeText("", enter=True), [("press", {"key": "enter", "presses": 1})]),
        (act.KeyDown("shift"), [("key_down", {"key": "shift"})]),
        (act.KeyUp("shift"), [("key_up", {"key": "shift"})]),
        (act.Press("down", 3), [("press", {"key": "down", "presses": 3})]),
        (act.Hotkey(("ctrl", "s")), [("hotkey", {"keys": ["ctrl", "s"]})]),
        (act.SwitchWindow(0x3A00007), [("activate_window", {"window_id": 0x3A00007})]),
        (act.Wait(1.5), [("sleep", {"seconds": 1.5})]),
        (act.Wait(60), [("sleep", {"seconds": 5.0})]),
    ],
)
def test_gui_actions_map_to_guest_calls(action, calls: list) -> None:
    outcome, recorded = run(action)
    assert outcome == ActionOutcome()
    assert recorded == calls


def test_normalized_coordinates_are_scaled_to_the_screen() -> None:
    _, calls = run(act.Click(500, 500, normalized=True))
    assert calls == [("click", {"x": 640, "y": 360, "button": "left", "count": 1})]
    _, calls = run(act.MoveTo(1000, 1000, normalized=True))
    assert calls == [("move", {"x": 1279, "y": 719})]
    _, calls = run(act.MoveTo(0, 0, normalized=True))
    assert calls == [("move", {"x": 0, "y": 0})]
    assert resolve_point(250, 250, True, SCREEN) == (320, 180)
    assert resolve_point(None, None, True, SCREEN) == (None, None)


def test_the_screen_edge_is_clamped_but_beyond_it_is_an_error() -> None:
    _, calls = run(act.MoveTo(1280, 720))
    assert calls == [("move", {"x": 1279, "y": 719})]
    outcome, calls = run(act.Click(1500, 10))
    assert outcome.error == "click: x=1500 is outside the screen (1280x720 pixels)"
    assert calls == []
    outcome, _ = run(act.MoveTo(10, 721))
    assert outcome.error == "move_to: y=721 is outside the screen (1280x720 pixels)"
    outcome, _ = run(act.Drag(10, 10, -5, 3))
    assert outcome.error == "drag: x=-5 is outside the screen (1280x720 pixels)"
    outcome, _ = run(act.Click(1001, 5, normalized=True))
    assert outcome.error == "click: x=1001 is outside the normalized 0-1000 range (1280x720 pixels)"
    outcome, calls = run(act.TypeText("a", 10, 9999))
    assert outcome.error == "type_text: y=9999 is outside the screen (1280x720 pixels)"
    assert calls == []


@pytest.mark.parametrize(
    ("name", "app"),
    [
        ("LibreOffice Calc", "calc"),
        ("calc", "calc"),
        ("Spreadsheet", "calc"),
        ("terminal", "terminal"),
        ("xterm", "terminal"),
        ("Text Editor", "editor"),
        ("gedit", "editor"),
        ("mousepad", "editor"),
        ("libreoffice writer", "writer"),
        ("Impress", "impress"),
        ("  Writer  ", "writer"),
    ],
)
def test_open_app_resolves_aliases(name: str, app: str) -> None:
    assert resolve_app_name(name) == app
    outcome, calls = run(act.OpenApp(name))
    assert calls == [("launch_app", {"app": app})]
    assert outcome.error is None
    assert outcome.result == f"opened {app} (window {0x3A00007})"


def test_open_app_of_an_unknown_app_reports_the_guest_error() -> None:
    outcome, calls = run(act.OpenApp("CorelDRAW"))
    assert calls == [("launch_app", {"app": "coreldraw"})]
    assert outcome == ActionOutcome(error="open_app: unknown app 'coreldraw'")


def test_quote_returns_its_content_without_touching_the_desktop() -> None:
    outcome, calls = run(act.Quote("B2 = 17"))
    assert outcome == ActionOutcome(result="B2 = 17")
    assert calls == []


@pytest.mark.parametrize(
    ("action", "success"), [(act.Done(), True), (act.Fail(), False), (act.Exit(True), True), (act.Exit(False), False)]
)
def test_terminal_actions(action, success: bool) -> None:
    outcome, calls = run(action)
    assert outcome == ActionOutcome(terminal=True, success=success)
    assert calls == []


def test_guest_errors_become_outcome_errors_prefixed_by_the_action() -> None:
    client = RecordingGuestClient(SCREEN, failures={"press": GuestError("unknown key 'hyper'")})
    outcome, _ = run(act.Press("hyper"), client)
    assert outcome == ActionOutcome(error="press: unknown key 'hyper'")
    client = RecordingGuestClient(SCREEN, failures={"type_text": GuestUnavailableError("guest gone")})
    outcome, calls = run(act.TypeText("a", 1, 2), client)
    assert outcome.error == "type_text: guest gone"
    assert [name for name, _ in calls] == ["click", "type_text"]


def test_api_calls_go_to_the_guest_and_return_its_result() -> None:
    client = RecordingGuestClient(SCREEN)
    client.api_results["get_range_values"] = '[[1, "a"]]'
    outcome, calls = run(act.ApiCall("CalcTools", "get_range_values", {"cell_range": "A1:B1"}), client)
    assert outcome == ActionOutcome(result='[[1, "a"]]')
    assert calls == [
        ("call_api", {"app": "CalcTools", "api_method": "get_range_values", "args_json": '{"cell_range": "A1:B1"}'})
    ]
    client.api_results["set_cell_value"] = '"set B2 to 5"'
    outcome, _ = run(act.ApiCall("CalcTools", "set_cell_value", {"cell": "B2", "value": 5}), client)
    assert outcome == ActionOutcome(result="set B2 to 5")
    failing = RecordingGuestClient(SCREEN, failures={"call_api": GuestError("CallApi: unknown argument 'cel'")})
    outcome, _ = run(act.ApiCall("CalcTools", "set_cell_value", {"cel": "B2"}), failing)
    assert outcome.error == "CalcTools.set_cell_value: CallApi: unknown argument 'cel'"


def test_non_actions_are_a_programming_error() -> None:
    with pytest.raises(TypeError, match="not a typed action"):
        execute("click(coordinates=[1, 2])", RecordingGuestClient(), SCREEN)  # type: ignore[arg-type]


def test_parse_then_execute_a_pyautogui_script() -> None:
    actions = ActionSet(style="pyautogui", coordinates="normalized").parse(
        "import pyautogui\npyautogui.click(500, 500)\npyautogui.write('=SUM(A1:A3)')\npyautogui.press('enter')"
    )
    client = RecordingGuestClient(SCREEN)
    outcomes = [execute(a, client, SCREEN) for a in actions]
    assert all(o == ActionOutcome() for o in outcomes)
    assert client.calls == [
        ("click", {"x": 640, "y": 360, "button": "left", "count": 1}),
        ("type_text", {"text": "=SUM(A1:A3)"}),
        ("press", {"key": "enter", "presses": 1}),
    ]
