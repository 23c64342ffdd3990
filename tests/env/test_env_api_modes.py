"""Action modes and focus-aware API exposure on the real desktop: what is offered, refused and run."""

from __future__ import annotations

import io
import json
import re
from typing import Any

import numpy as np
import openpyxl
import pytest

from desktop_gym import DesktopEnv
from desktop_gym.backends.local import LocalBackend
from desktop_gym.tasks import ScriptedPolicy, Task, TaskContext, register_task
from desktop_gym.tasks.artifacts import xlsx_bytes
from desktop_gym.verifiers.result import VerifierResult

pytestmark = pytest.mark.slow


class CalcWriteOneCell(Task):
    """Write one number into one cell of the open sheet (the live sheet is what counts)."""

    id = "apimodes.calc_write_one_cell"
    instruction_template = "In the open spreadsheet, write {value} into cell {cell}."
    apps = ("calc",)
    max_steps = 8
    path = "~/Documents/cells.xlsx"

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        return {"cell": "C3", "value": int(rng.integers(1000, 9999))}

    def setup(self, ctx: TaskContext) -> None:
        table = [("Name", "Count", "Score"), ("alpha", 1, 10), ("beta", 2, 20)]
        ctx.client.put_file(self.path, xlsx_bytes(table, sheet_title="Data"))
        ctx.client.launch_app("calc", self.path)

    def verify(self, ctx: TaskContext) -> VerifierResult:
        # App state read through the guest, independently of the agent's API call.
        args = json.dumps({"cell": ctx.params["cell"]})
        value = json.loads(ctx.client.call_api("calc", "get_cell_value", args))
        if value == ctx.params["value"]:
            return VerifierResult.passed(f"{ctx.params['cell']} holds {value}")
        return VerifierResult.failed(f"{ctx.params['cell']} holds {value!r}, expected {ctx.params['value']}")

    def api_oracle(self, params: dict[str, Any]) -> ScriptedPolicy:
        return ScriptedPolicy(
            [f"CalcTools.set_cell_value(cell={params['cell']!r}, value={params['value']})", "exit(success=True)"]
        )

    # A complete task (GUI oracle, perturbation) in case a check over every registered task meets it.
    def gui_oracle(self, params: dict[str, Any]) -> ScriptedPolicy:
        keys = ['hotkey(keys=["ctrl", "home"])', 'press(key="right")', 'press(key="right")']
        keys += ['press(key="down")', 'press(key="down")']  # C3
        return ScriptedPolicy([*keys, f"type(text='{params['value']}\\n')", "exit(success=True)"])

    def perturb(self, params: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "value": params["value"] + 1}


register_task(CalcWriteOneCell.id, CalcWriteOneCell)


@pytest.fixture
def backend(desktop: LocalBackend) -> LocalBackend:
    """The session's desktop (``tests/conftest.py``), started."""
    desktop.start()
    return desktop


def make_env(backend: LocalBackend, **kwargs: Any) -> DesktopEnv:
    parts = ("screenshot", "a11y_tree", "focused_app", "app_info", "api", "last_action_result", "last_action_error")
    return DesktopEnv(CalcWriteOneCell.id, backend=backend, observation=parts, **kwargs)


def step_error(env: DesktopEnv, action: str) -> str:
    """The env's ``last_action_error`` after stepping ``action`` ("" when it went through)."""
    observation, *_ = env.step(action)
    return observation["last_action_error"]


def live_cell(env: DesktopEnv, cell: str) -> Any:
    return json.loads(env.client.call_api("calc", "get_cell_value", json.dumps({"cell": cell})))


def test_one_api_action_solves_a_calc_episode_visibly(backend):
    with make_env(backend) as env:
        observation, info = env.reset(seed=1)
        value = info["params"]["value"]
        assert "CalcTools.set_cell_value(cell: str, value: str | float | None)" in observation["api"]
        assert "Sheets: Data" in observation["app_info"] and str(value) not in observation["app_info"]
        before = observation["screenshot"]
        policy = CalcWriteOneCell().api_oracle(info["params"])

        observation, reward, terminated, truncated, _ = env.step(policy(observation))
        assert observation["last_action_error"] == ""
        assert observation["last_action_result"].startswith(f"set C3 to {value}")
        assert not terminated and not truncated and reward == 0.0
        # The GUI shows it: pixels changed on screen, and the accessibility tree and app_info read it.
        changed = np.argwhere((observation["screenshot"] != before).any(axis=2))
        assert len(changed) > 20, "the Calc window did not repaint the written cell"
        assert str(value) in observation["a11y_tree"]
        assert str(value) in observation["app_info"]

        observation, reward, terminated, truncated, info = env.step(policy(observation))
        assert terminated and info["success"], info["verifier"]
        assert reward == 1.0
        # ... and the document holds it: save through the guest and read the file with openpyxl.
        saved = json.loads(env.client.call_api("calc", "save", json.dumps({"path": "~/Documents/check.xlsx"})))
        sheet = openpyxl.load_workbook(io.BytesIO(env.client.get_file(saved)))["Data"]
        assert sheet["C3"].value == value


def test_focus_decides_which_api_is_offered_and_callable(backend):
    with make_env(backend) as env:
        observation, info = env.reset(seed=2)
        calc_window = env.client.app_info("calc", max_chars=0)["window_id"]
        assert "CalcTools." in observation["api"] and "OSTools.run_shell(" in observation["api"]
        names = {schema["function"]["name"] for schema in env.tool_schemas()}
        assert {"CalcTools__set_cell_value", "OSTools__write_text_file", "click", "exit"} <= names
        assert "## App APIs" in env.describe() and "CalcTools.save(" in env.describe()

        observation, *_ = env.step('open_app(app_name="terminal")')
        assert observation["last_action_error"] == ""
        assert "CalcTools." not in observation["api"] and "OSTools.read_text_file(" in observation["api"]
        assert observation["app_info"] == ""  # the terminal has no app API
        assert not any(s["function"]["name"].startswith("CalcTools") for s in env.tool_schemas())
        assert "CalcTools" not in env.describe()

        observation, _, terminated, truncated, _ = env.step('CalcTools.set_cell_value(cell="A1", value=5)')
        error = observation["last_action_error"]
        assert not terminated and not truncated
        assert "the focused app is terminal" in error
        assert f"switch_window(window_id={calc_window})" in error
        assert live_cell(env, "A1") == "Name"  # refused before it reached Calc

        # OSTools stays callable whatever has the focus.
        assert (
            step_error(env, 'OSTools.write_text_file(path="~/note.txt", text="hi")') == ""
            and env.client.get_file("~/note.txt") == b"hi"
        )

        observation, *_ = env.step(f"switch_window(window_id={calc_window})")
        assert "CalcTools." in observation["api"]
        assert step_error(env, 'CalcTools.set_cell_value(cell="A1", value=5)') == "" and live_cell(env, "A1") == 5


def test_api_scope_all_calls_an_unfocused_app(backend):
    with make_env(backend, api_scope="all") as env:
        env.reset(seed=3)
        observation, *_ = env.step('open_app(app_name="terminal")')
        assert "CalcTools." in observation["api"] and "WriterTools." in observation["api"]
        assert step_error(env, 'CalcTools.set_cell_value(cell="B2", value=77)') == ""
        assert live_cell(env, "B2") == 77
        observation, *_ = env.step('CalcTools.get_cell_value(cell="B2")')
        assert observation["last_action_result"] == "77"


def test_gui_mode_refuses_api_calls_and_hides_apis(backend):
    with make_env(backend, action_mode="gui") as env:
        observation, _ = env.reset(seed=4)
        assert observation["api"] == ""
        assert "Sheets: Data" in observation["app_info"]  # an observation, not an action: still there
        observation, _, terminated, truncated, _ = env.step('CalcTools.set_cell_value(cell="A1", value=5)')
        assert "action_mode='gui'" in observation["last_action_error"]
        assert not terminated and not truncated and live_cell(env, "A1") == "Name"
        assert "action_mode='gui'" in step_error(env, 'OSTools.write_text_file(path="~/x.txt", text="no")')
        assert env.client.exec("test -e ~/x.txt", shell=True).returncode == 1
        assert not any("__" in schema["function"]["name"] for schema in env.tool_schemas())
        assert "App APIs" not in env.describe() and "click(" in env.describe()
        assert step_error(env, 'hotkey(keys=["ctrl", "home"])') == ""


def test_api_mode_refuses_gui_actions_but_not_done(backend):
    with make_env(backend, action_mode="api") as env:
        observation, info = env.reset(seed=5)
        observation, _, terminated, _, _ = env.step('hotkey(keys=["ctrl", "home"])')
        assert "action_mode='api'" in observation["last_action_error"] and not terminated
        assert "GUI actions are disabled" in step_error(env, "click(coordinates=[100, 100])")
        assert step_error(env, "wait(seconds=0.01)") == ""
        names = {schema["function"]["name"] for schema in env.tool_schemas()}
        assert "click" not in names and "hotkey" not in names
        assert {"exit", "wait", "DONE", "FAIL", "CalcTools__set_cell_value"} <= names
        description = env.describe()
        assert "click(" not in description and re.search(r"^exit\(success: bool\)", description, re.M)
        value = info["params"]["value"]
        env.step(f'CalcTools.set_cell_value(cell="C3", value={value})')
        *_, terminated, _, info = env.step("DONE")
        assert terminated and info["success"], info["verifier"]


def test_unknown_modes_are_rejected_by_name(backend):
    with pytest.raises(ValueError, match="action_mode 'both'"):
        make_env(backend, action_mode="both")
    with pytest.raises(ValueError, match="api_scope 'some'"):
        make_env(backend, api_scope="some")


def play(env: DesktopEnv, policy_for: Any, seed: int) -> dict[str, Any]:
    observation, info = env.reset(seed=seed)
    policy = policy_for(info["params"])
    for _ in range(info["max_steps"]):
        observation, _, terminated, truncated, step_info = env.step(policy(observation))
        if terminated or truncated:
            return step_info
    raise AssertionError("the policy did not end the episode")


def test_gui_oracle_in_gui_mode_and_a_perturbed_api_oracle(backend):
    task = CalcWriteOneCell()
    with make_env(backend, action_mode="gui") as gui_only:
        info = play(gui_only, task.gui_oracle, seed=7)
        assert info["success"], info["verifier"]
    with make_env(backend) as hybrid:
        info = play(hybrid, lambda params: task.perturbed_oracle(params, np.random.default_rng(0)), seed=7)
        assert not info["success"] and "expected" in info["verifier"]["reason"]
