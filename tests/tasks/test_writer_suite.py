"""The Writer suite: its shape, determinism and GUI-script helpers (no desktop; the proofs on a real
desktop are in ``test_task_proofs.py``)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from desktop_gym.tasks import TaskContext, get_task
from desktop_gym.tasks.families.writer_base import click_node, find_node, tree_nodes
from desktop_gym.tasks.families.writer_edit import EDIT_TASKS
from desktop_gym.tasks.families.writer_layout import LAYOUT_TASKS
from desktop_gym.tasks.families.writer_saving import SAVING_TASKS
from desktop_gym.tasks.families.writer_styling import STYLING_TASKS
from desktop_gym.tasks.gui_script import GuiScript

WRITER_TASKS = sorted(task.id for task in (*EDIT_TASKS, *STYLING_TASKS, *LAYOUT_TASKS, *SAVING_TASKS))


def test_suite_shape() -> None:
    tasks = [get_task(task_id) for task_id in WRITER_TASKS]
    assert len(tasks) == 16 and all(task.id.startswith("writer.") for task in tasks)
    feasible = [task for task in tasks if not task.infeasible]
    assert len(feasible) == 15 and all(task.needs_save for task in feasible)
    params = {task.id: task.sample_params(np.random.default_rng(0)) for task in feasible}
    with_gui = [task.id for task in feasible if task.gui_oracle(params[task.id]) is not None]
    assert len(with_gui) >= 5, with_gui
    for task in feasible:  # every GUI script leaves room in the step budget for a few waits on slow dialogs
        script = task.gui_oracle(params[task.id])
        assert script is None or len(script) + 4 <= task.max_steps, (task.id, len(script))
    assert all(task.api_oracle(params[task.id]) is not None for task in feasible)


class FileRecordingClient:
    """Test double of GuestClient for ``setup``: records the files written and apps launched (no desktop)."""

    def __init__(self) -> None:
        self.files: dict[str, bytes] = {}
        self.launched: list[tuple[str, str]] = []

    def put_file(self, path: str, data: bytes) -> None:
        self.files[path] = data

    def launch_app(self, app: str, path: str) -> None:
        self.launched.append((app, path))


def setup_files(task_id: str, seed: int) -> tuple[dict, FileRecordingClient]:
    task = get_task(task_id)
    rng = np.random.default_rng(seed)
    params = task.sample_params(rng)
    client = FileRecordingClient()
    task.setup(TaskContext(client=client, rng=rng, params=params))  # type: ignore[arg-type]
    return params, client


@pytest.mark.parametrize("task_id", WRITER_TASKS)
def test_same_seed_same_task_and_bytes(task_id: str) -> None:
    first, first_files = setup_files(task_id, 5)
    second, second_files = setup_files(task_id, 5)
    assert first == second and first_files.files == second_files.files
    assert first_files.launched == [("writer", first["path"])] and list(first_files.files) == [first["path"]]
    assert any(setup_files(task_id, seed)[1].files != first_files.files for seed in range(6, 9))
    instruction = get_task(task_id).instruction(first)
    assert "{" not in instruction and first["path"] in instruction


@pytest.mark.parametrize("task_id", [t for t in WRITER_TASKS if not get_task(t).infeasible])
def test_perturb_changes_exactly_one_value(task_id: str) -> None:
    task = get_task(task_id)
    params = task.sample_params(np.random.default_rng(3))
    wrong = task.perturb(params, np.random.default_rng(3))
    changed = [key for key in params if params[key] != wrong[key]]
    assert len(changed) == 1 and set(wrong) == set(params), changed


TREE = """application "soffice"
  frame "notes.docx - LibreOffice Writer" @(0,0,1280,720)
    tool bar "Formatting" @(0,83,1280,39)
      panel "Font Name" @(267,85,207,34)
        text "" text="Calibri" [editable] @(267,85,171,34)
  dialog "Find and Replace" @(295,135,691,490)
    panel "Replace With" @(304,260,673,34)
      label "Replace:" @(316,262,65,17)
      text "" [editable] @(393,260,542,34)
    push button "Replace All" [disabled] @(846,315,121,34)
    push button "Close" @(892,582,85,34)"""


def test_tree_helpers_find_nodes_inside_their_parent() -> None:
    nodes = tree_nodes(TREE)
    assert nodes[0]["box"] is None and len(nodes) == 11
    assert nodes[3] == {
        "depth": 3,
        "role": "panel",
        "name": "Font Name",
        "rest": " @(267,85,207,34)",
        "box": (267, 85, 207, 34),
    }
    replace_field = find_node(TREE, "text", "", within=("panel", "Replace With"))
    assert replace_field is not None and replace_field["box"] == (393, 260, 542, 34)
    assert find_node(TREE, "push button", "Replace All") is None  # disabled
    assert find_node(TREE, "push button", "Replace All", enabled=False) is not None
    assert find_node(TREE, "push button", "Close", within=("panel", "Replace With")) is None
    assert click_node("push button", "Close").make({"a11y_tree": TREE}) == "click(coordinates=[934, 599])"


def test_gui_script_waits_for_missing_nodes_then_gives_up() -> None:
    nowhere = dataclasses.replace(click_node("push button", "Nowhere"), tries=2)
    script = GuiScript(["press(key='a')", nowhere])
    assert script({"a11y_tree": TREE}) == "press(key='a')"
    assert [script({"a11y_tree": TREE}) for _ in range(3)] == ["wait(seconds=0.5)"] * 2 + ["fail()"]
    ready = GuiScript([click_node("push button", "Close")])
    assert ready({"a11y_tree": TREE}).startswith("click(") and ready({"a11y_tree": TREE}) == "done()"
