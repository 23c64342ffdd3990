"""The one GUI-script policy: steps in order, gates on the typed a11y parser, bounded retries, give-up text."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from desktop_gym.guest.a11y_text import A11yNodeNotFoundError
from desktop_gym.task_check import _run_episode
from desktop_gym.tasks import ScriptedPolicy
from desktop_gym.tasks.gui_script import (
    Computed,
    GuiScript,
    WaitFor,
    click_node,
    saved_by_gui,
    when_absent,
    when_present,
)

TREE = "\n".join(
    [
        'application "soffice"',
        '  dialog "Find and Replace" @(100,100,400,300)',
        '    push button "Close" @(400,350,80,30)',
        '    push button "Replace All" [disabled] @(300,350,80,30)',
        '  push button "Replace All" @(10,10,20,20)',
    ]
)
DIALOG_OPEN = {"a11y_tree": TREE}
DIALOG_CLOSED = {"a11y_tree": 'application "soffice"'}


def test_plays_texts_then_done_forever_and_counts_only_acting_steps():
    script = GuiScript(["press(key='a')", WaitFor(lambda obs: True, "nothing"), "press(key='b')"])
    assert len(script) == 2
    assert [script(DIALOG_OPEN) for _ in range(4)] == ["press(key='a')", "press(key='b')", "done()", "done()"]
    assert script.gave_up is None


def test_click_node_reads_the_tree_and_skips_disabled_nodes_unless_told():
    assert click_node("push button", "Close", within=("dialog", "Find and Replace")).make(DIALOG_OPEN) == (
        "click(coordinates=[440, 365])"
    )
    assert click_node("push button", "Replace All").make(DIALOG_OPEN) == "click(coordinates=[20, 20])"
    disabled_too = click_node("push button", "Replace All", enabled_only=False, clicks=2)
    assert disabled_too.make(DIALOG_OPEN) == "click(coordinates=[340, 365], num_clicks=2)"
    assert click_node("push button", "Close").make(DIALOG_CLOSED) is None


def test_a_missing_node_waits_then_fails_naming_what_it_waited_for():
    script = GuiScript(["press(key='a')", click_node("push button", "OK", within=("dialog", "Save"))])
    assert script(DIALOG_OPEN) == "press(key='a')"
    actions = [script(DIALOG_OPEN) for _ in range(10)]
    assert actions == ["wait(seconds=0.5)"] * 8 + ["fail()", "done()"]
    assert (
        script.gave_up
        == "gave up waiting for an on-screen push button 'OK' inside dialog 'Save' after 8 waits of 0.5 s"
    )


def test_a_node_that_shows_up_in_time_is_clicked_and_the_retry_count_restarts():
    script = GuiScript([click_node("push button", "Close"), click_node("push button", "Close")])
    assert script(DIALOG_CLOSED) == "wait(seconds=0.5)"
    assert script(DIALOG_OPEN) == "click(coordinates=[440, 365])"
    assert [script(DIALOG_CLOSED) for _ in range(8)] == ["wait(seconds=0.5)"] * 8  # a fresh budget of 8
    assert script(DIALOG_OPEN) == "click(coordinates=[440, 365])"


def test_a_step_raising_node_not_found_is_retried_and_its_message_kept():
    def make(observation):
        raise A11yNodeNotFoundError("no on-screen panel 'PageShape'")

    script = GuiScript([Computed(make, "the slide", tries=1, seconds=0.2)])
    assert [script({"a11y_tree": ""}) for _ in range(2)] == ["wait(seconds=0.2)", "fail()"]
    assert script.gave_up == "gave up waiting for the slide after 1 waits of 0.2 s (no on-screen panel 'PageShape')"


def test_a_gate_holds_until_ready_and_an_observation_without_a_tree_opens_it():
    gate = WaitFor(lambda obs: "Find and Replace" in obs["a11y_tree"], "the dialog", tries=2)
    script = GuiScript([gate, "press(key='x')"])
    assert [script(DIALOG_CLOSED) for _ in range(2)] == ["wait(seconds=0.3)"] * 2
    assert script(DIALOG_OPEN) == "press(key='x')"
    assert GuiScript([gate, "press(key='y')"])({}) == "press(key='y')"
    shut = GuiScript([gate, "press(key='z')"])
    assert [shut(DIALOG_CLOSED) for _ in range(4)] == ["wait(seconds=0.3)"] * 2 + ["fail()", "done()"]
    assert "the dialog after 2 waits" in shut.gave_up


def test_when_present_and_when_absent_wait_for_a_dialog():
    opened = when_present("dialog", "Find and Replace", "press(key='tab')")
    closed = when_absent("dialog", "Find and Replace", "exit(success=True)")
    assert opened.make(DIALOG_CLOSED) is None and opened.make(DIALOG_OPEN) == "press(key='tab')"
    assert closed.make(DIALOG_OPEN) is None and closed.make(DIALOG_CLOSED) == "exit(success=True)"
    assert closed.what == "no on-screen dialog 'Find and Replace'"


def test_saved_by_gui_ends_with_ctrl_s_and_success_and_fixed_scripts_are_the_same_policy():
    script = saved_by_gui("press(key='a')")
    assert [script({}) for _ in range(3)] == ["press(key='a')", 'hotkey(keys=["ctrl", "s"])', "exit(success=True)"]
    assert ScriptedPolicy is GuiScript


def test_bad_steps_are_refused_naming_their_position():
    with pytest.raises(TypeError, match=r"steps\[1\]"):
        GuiScript(["done()", lambda obs: "done()"])


@given(st.lists(st.sampled_from(["text", "gate", "ready", "missing"]), max_size=12), st.integers(0, 3))
def test_every_script_ends_within_its_wait_budget(kinds, tries):
    """Whatever the steps, a script reaches ``done()`` within its actions plus every step's wait budget."""
    steps = {
        "text": "press(key='a')",
        "gate": WaitFor(lambda obs: False, "never", tries=tries),
        "ready": Computed(lambda obs: "press(key='b')", "b", tries=tries),
        "missing": Computed(lambda obs: None, "nothing", tries=tries),
    }
    script = GuiScript([steps[kind] for kind in kinds])
    budget = len(kinds) * (tries + 1) + 1
    actions = [script(DIALOG_OPEN) for _ in range(budget)]
    assert actions[-1] == "done()"
    assert ("fail()" in actions) == (script.gave_up is not None)
    assert actions.count("fail()") <= 1


class StandInEnv:
    """Only what ``task_check`` calls of an env: an episode that ends when the policy plays ``fail()``."""

    def reset(self, *, seed: int, options: dict) -> tuple[dict, dict]:
        return DIALOG_CLOSED, {"params": {}}

    def step(self, action: str) -> tuple[dict, float, bool, bool, dict]:
        return DIALOG_CLOSED, 0.0, action == "fail()", False, {"success": False, "verifier": {"reason": ""}}


def test_tasks_check_says_what_a_gui_oracle_gave_up_on():
    script = GuiScript([click_node("push button", "OK")])
    check = _run_episode(StandInEnv(), "probe.gui", 0, "gui", True, lambda params: script)
    assert check.success is False and check.steps == 9
    assert check.reason == "the script gave up waiting for an on-screen push button 'OK' after 8 waits of 0.5 s"
