"""The generated EditorTools: its generated tests pass in a sandbox desktop, and an agent solves a task
with it through the registry (``env.step("EditorTools.set_config_value(...)")``)."""

from __future__ import annotations

import re

import pytest

from desktop_gym import DesktopEnv
from desktop_gym.api_generators.sandbox import Sandbox
from desktop_gym.api_generators.stages.register import CASES_DIR
from desktop_gym.api_generators.targets import get_target
from desktop_gym.guest.apps import registry

pytestmark = pytest.mark.stage_apigen

TARGET = get_target("editor")


def test_registered_and_offered_with_prompt_and_schema():
    assert registry.tool_class("editor").__name__ == "EditorTools"
    prompt = registry.api_prompt("editor")
    assert "EditorTools.set_config_value(key: str, value: str, separator: str = ' = ')" in prompt
    names = {schema["function"]["name"] for schema in registry.api_tool_schemas("editor")}
    assert {"EditorTools__save", "EditorTools__replace_text", "EditorTools__append_line"} <= names


def test_generated_cases_pass_against_the_registered_module():
    with Sandbox(TARGET) as sandbox:
        run = sandbox.run(TARGET.module_path.read_text(), (CASES_DIR / "editor_cases.py").read_text())
    assert run.verdict == "passed", run.feedback()
    assert len(run.outcomes) == 28


def test_a_task_is_solved_with_the_generated_api():
    env = DesktopEnv(
        task_id="os.editor_fix_config",
        observation=("instruction", "focused_app", "api", "app_info", "last_action_result", "last_action_error"),
    )
    try:
        observation, _ = env.reset(seed=3)
        assert "EditorTools.set_config_value" in observation["api"]
        assert "Unsaved changes: no" in observation["app_info"]
        port = re.search(r"port setting to (\d+)", observation["instruction"]).group(1)
        observation, *_ = env.step(f"EditorTools.set_config_value(key='port', value='{port}')")
        assert observation["last_action_result"] == "updated line 3", observation["last_action_error"]
        observation, *_ = env.step("EditorTools.save()")
        assert observation["last_action_error"] == ""
        _, reward, terminated, _, info = env.step("done()")
        assert terminated and reward == 1.0 and info["success"], info
    finally:
        env.close()
