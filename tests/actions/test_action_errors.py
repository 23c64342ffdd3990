"""Malformed and hostile inputs: precise messages, and nothing is ever run."""

from __future__ import annotations

import builtins

import pytest

from desktop_gym.actions import ActionParseError, ActionSet, normalize_key

ALL = ActionSet()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("clik(coordinates=[1, 2])", "unknown action 'clik' (did you mean 'click'?)"),
        ("click()", "click() missing required argument 'coordinates'"),
        ("click(coordinates='abc')", "click(): coordinates must be [x, y] numbers, got 'abc'"),
        ("click(coordinates=[1, 2, 3])", "click(): coordinates must be [x, y] numbers, got [1, 2, 3]"),
        ("click(coordinates=[True, 2])", "click(): coordinates must be [x, y] numbers"),
        ("click(coordinates=[1, 2], num_clicks='two')", "click(): num_clicks must be an integer, got 'two'"),
        ("click(coordinates=[1, 2], num_clicks=5)", "click(): num_clicks must be 1, 2 or 3, got 5"),
        (
            "click(coordinates=[1, 2], button_type='lefft')",
            "click(): button_type must be one of 'left', 'right', 'middle', got 'lefft' (did you mean 'left'?)",
        ),
        (
            "click(coordinates=[1, 2], coordinates=[3, 4])",
            "click() got multiple values for argument 'coordinates'",
        ),
        ("click([1, 2], coordinates=[3, 4])", "click() got multiple values for argument 'coordinates'"),
        ("click([1, 2], 1, 'left', 4)", "click() takes at most 3 positional arguments, got 4"),
        ("drag_and_drop([1, 2])", "drag_and_drop() missing required argument 'drop_on_coordinates'"),
        (
            "scroll([1, 2], direction='sideways')",
            "scroll(): direction must be one of 'up', 'down', 'left', 'right'",
        ),
        ("scroll([1, 2], 'down', amount=0)", "scroll(): amount must be a positive number of notches, got 0"),
        ("type(text=5)", "type(): text must be a string, got 5"),
        ("type()", "type(): nothing to do: give text, enter=True or overwrite=True"),
        ("type(text='a', enter='yes')", "type(): enter must be True or False, got 'yes'"),
        ("open_app(app_name='  ')", "open_app(): app_name must not be empty"),
        (
            "switch_window(window_id='zz')",
            "switch_window(): window_id must be an integer or a hex string, got 'zz'",
        ),
        ("switch_window(window_id=1.5)", "switch_window(): window_id must be int | str, got 1.5"),
        ("hotkey(keys='ctrl')", "hotkey(): keys must be a list of str, got 'ctrl'"),
        ("hotkey(keys=[])", "hotkey(): at least one key is required"),
        ("hotkey(keys=['ctrll', 's'])", "hotkey(): unknown key 'ctrll' (did you mean 'ctrl'"),
        (
            "hotkey(keys=['ctrl+s'])",
            "hotkey(): unknown key 'ctrl+s' (write each key separately, e.g. ['ctrl', 's'])",
        ),
        ("exit()", "exit() missing required argument 'success'"),
        ("exit(success='yes')", "exit(): success must be True or False, got 'yes'"),
        ("wait(seconds=-1)", "wait(): seconds must not be negative, got -1"),
        ("quote(contents='x')", "quote() got an unexpected argument 'contents' (did you mean 'content'?)"),
        ("DONE(now=True)", "DONE() got an unexpected argument 'now'; its arguments are: none"),
        ("MOVE_TO(x=1)", "MOVE_TO() missing required argument 'y'"),
        ("CLICK(x=1)", "CLICK(): give both x and y, or neither"),
        ("PRESS(key='entr')", "PRESS(): unknown key 'entr' (did you mean 'enter'"),
        ("pyautogui.click(1, 2, clicks=0)", "pyautogui.click(): clicks must be 1, 2 or 3, got 0"),
        ("pyautogui.press('enter', presses=0)", "pyautogui.press(): presses must be at least 1, got 0"),
        ("pyautogui.hotkey()", "pyautogui.hotkey() missing required argument 'keys'"),
        ("time.sleep(-2)", "time.sleep(): secs must not be negative, got -2"),
        ("click(coordinates=[1, 2]", "line 1: syntax error at column"),
        ("click(coordinates=[1, 2])\nclick(coordinates=[1, 2)", "line 2: syntax error at column 24"),
        ("click(coordinates=[1, 2])\nclik([1, 2])", "line 2: unknown action 'clik'"),
        ("click(coordinates=[1, 2])\n\nclick()", "line 3: click() missing required argument 'coordinates'"),
        ("'just a string'", "only action calls are allowed, got a Constant expression"),
        ("1 + 1", "only action calls are allowed, got an expression"),
        ("", "no action found in an empty answer"),
        ("```python\n```", "no action found"),
        ("# only a comment", "no action found"),
        ('{"name": "click", "arguments": "{bad json"}', "click(): arguments are not valid JSON"),
        ('{"name": "click", "arguments": [1, 2]}', "click(): arguments must be an object, got [1, 2]"),
        ('{"foo": 1}', "cannot read an action from an object with keys ['foo']"),
        ('{"name": "", "arguments": {}}', "the action name must be a non-empty string"),
        (
            '{"name": "click", "arguments": {"coordinates": "abc"}}',
            "click(): coordinates must be [x, y] numbers",
        ),
        ('{"action_type": "CLIK", "parameters": {}}', "unknown action 'CLIK' (did you mean 'CLICK'?)"),
        ('[{"action_type": "DONE"}, {"action_type": "NOPE"}]', "tool call 2: unknown action 'NOPE'"),
        ('{"name": "click", ', "invalid JSON at line 1 column"),
        ("[]", "no action found: the list of tool calls is empty"),
        ("[1, 2]", "an action must be an object, got 1"),
    ],
)
def test_malformed_input_gives_a_precise_message(text: str, message: str) -> None:
    with pytest.raises(ActionParseError) as caught:
        ALL.parse(text)
    assert message in str(caught.value)


HOSTILE = [
    ("__import__('os').system('touch /tmp/pwned')", "cannot call \"__import__('os').system\""),
    ("__import__('os')", "unknown action '__import__'"),
    ("os.system('touch /tmp/pwned')", "unknown API class 'os'"),
    ("subprocess.run(['rm', '-rf', '/'])", "unknown API class 'subprocess'"),
    ("eval('1')", "unknown action 'eval'"),
    ("exec('import os')", "unknown action 'exec'"),
    ("open('/etc/passwd').read()", "cannot call \"open('/etc/passwd').read\""),
    ("pyautogui.os.system('x')", "cannot call 'pyautogui.os.system'"),
    ("click(coordinates=__import__('os').getcwd())", "argument 'coordinates' must be a literal"),
    ("click(coordinates=(lambda: [1, 2])())", "got a function call"),
    ("click(coordinates=lambda: 1)", "got a lambda"),
    ("click(coordinates=[i for i in range(2)])", "got a comprehension"),
    ("click(coordinates=list(x for x in (1, 2)))", "got a function call"),
    ("type(text=f'{open(\"/etc/passwd\").read()}')", "got an f-string"),
    ("type(text=os.environ)", "got an attribute access"),
    ("type(text=secret)", "got a variable 'secret'"),
    ("type(text='a' * 10**9)", "got an expression"),
    ("click(*[[1, 2]])", "*-unpacking of arguments is not allowed"),
    ("click(**{'coordinates': [1, 2]})", "**-unpacking of arguments is not allowed"),
    ("click(coordinates=[1, 2]) if True else None", "got an expression"),
    ("(x := click(coordinates=[1, 2]))", "got an assignment expression"),
    ("import os", "import of 'os' is not allowed"),
    ("import pyautogui as os", "import of 'os' is not allowed"),
    ("def f():\n    pass", "got a function definition"),
    ("class A: pass", "got a class definition"),
    ("with open('x') as f: pass", "got a with statement"),
    ("CalcTools.set_cell_value(cell=open('x'))", "argument 'cell' must be a literal"),
    ("globals()['click']", "got a subscript"),
]


@pytest.mark.parametrize(("text", "message"), HOSTILE)
def test_code_is_rejected_with_a_message(text: str, message: str) -> None:
    with pytest.raises(ActionParseError) as caught:
        ActionSet(api_classes={"CalcTools": None}).parse(text)
    assert message in str(caught.value)


PROBES = [
    "agent_probe()",
    "click(coordinates=agent_probe())",
    "type(text=agent_probe())",
    "__import__('builtins').agent_probe()",
    "builtins.agent_probe()",
    "click(coordinates=[agent_probe() for _ in range(1)])",
    "click(coordinates=(lambda: agent_probe())())",
    "type(text=f'{agent_probe()}')",
    "CalcTools.set_cell_value(cell=agent_probe())",
    "import pyautogui\npyautogui.click(agent_probe(), 1)",
    '{"name": "type", "arguments": {"text": "agent_probe()"}}',
]


@pytest.mark.parametrize("text", PROBES)
def test_nothing_in_agent_text_is_ever_called(text: str, monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    calls: list[str] = []
    monkeypatch.setattr(builtins, "agent_probe", lambda: calls.append(text) or "[1, 2]", raising=False)
    try:
        ActionSet(api_classes={"CalcTools": None}).parse(text)
    except ActionParseError:
        pass
    assert calls == []


def test_shell_commands_in_agent_text_do_not_run(tmp_path) -> None:
    target = tmp_path / "pwned"
    for text in (
        f"__import__('os').system('touch {target}')",
        f"os.system('touch {target}')",
        f"open('{target}', 'w')",
        f"type(text=open('{target}', 'w').name)",
    ):
        with pytest.raises(ActionParseError):
            ALL.parse(text)
    assert not target.exists()


def test_huge_nesting_is_an_error_not_a_crash() -> None:
    with pytest.raises(ActionParseError):
        ALL.parse("click(coordinates=" + "[" * 5000 + "]" * 5000 + ")")


def test_parse_wants_text() -> None:
    with pytest.raises(ActionParseError, match="expected agent text"):
        ALL.parse(None)  # type: ignore[arg-type]


def test_action_set_arguments_are_checked() -> None:
    with pytest.raises(ValueError, match="unknown action style 'gui'"):
        ActionSet(style="gui")
    with pytest.raises(ValueError, match="unknown coordinate mode 'percent'"):
        ActionSet(coordinates="percent")
    with pytest.raises(ValueError, match="unknown description format 'yaml'"):
        ALL.describe(fmt="yaml")


@pytest.mark.parametrize(
    ("key", "expected"),
    [
        ("Control", "ctrl"),
        ("RETURN", "enter"),
        ("page down", "pagedown"),
        ("\n", "enter"),
        ("F5", "f5"),
        ("é", "é"),
    ],
)
def test_normalize_key(key: str, expected: str) -> None:
    assert normalize_key(key) == expected


@pytest.mark.parametrize(
    ("key", "message"), [("", "non-empty"), ("\x07", "unknown key"), ("hyperdrive", "unknown key")]
)
def test_normalize_key_rejects(key: str, message: str) -> None:
    with pytest.raises(ActionParseError, match=message):
        normalize_key(key)
