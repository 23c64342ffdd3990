"""The Calc suite without a desktop: registration, seeded determinism, oracles' action texts, perturbations."""

from __future__ import annotations

import io

import numpy as np
import openpyxl
import pytest

from desktop_gym.actions import ActionSet
from desktop_gym.guest.apps.registry import api_classes
from desktop_gym.tasks import get_task, list_tasks
from desktop_gym.tasks.artifacts import FIXED_TIME
from desktop_gym.tasks.catalogue import read_catalogue
from desktop_gym.tasks.families.calc_base import (
    GRID_READY,
    NAME_BOX_READY,
    field_ready,
    find_box,
    focused_nodes,
    workbook_bytes,
)
from desktop_gym.tasks.gui_script import GuiScript, click_node

CALC_TASK_IDS = tuple(  # the Python families (the suite also has task files)
    task_id
    for task_id, entry in read_catalogue().items()
    if task_id.startswith("calc.") and not entry.startswith("json:")
)
INFEASIBLE = [task_id for task_id in CALC_TASK_IDS if get_task(task_id).infeasible]
FEASIBLE = [task_id for task_id in CALC_TASK_IDS if task_id not in INFEASIBLE]
PARSER = ActionSet(api_classes=api_classes(["calc"]))

TREE = """application "soffice"
  frame "book.xlsx - LibreOffice Calc" @(0,0,1280,720)
    tool bar "Formula Tool Bar" @(0,122,1221,42)
      text "" text="A1" [focused, editable] @(4,124,126,34)
    document spreadsheet "book.xlsx" [editable] @(41,182,1166,479)
      table "Sheet Sales" [focused, editable] @(41,182,1166,479) {1048576x16384 visible A1:P24 cells: A1="x"}
    page tab list "" @(138,675,1069,23)
      page tab "Sales" [selected] @(138,675,61,23)
      page tab "Q\\"4\\" plan" @(198,675,76,23)
      page tab "Hidden"
  dialog "Rename Sheet" [modal] @(500,300,300,150)
    text "" text="Sales" [focused, editable] @(512,361,258,34)
"""
UNFOCUSED = TREE.replace("focused, ", "")


def test_suite_size_and_ids():
    assert len(FEASIBLE) >= 25 and len(INFEASIBLE) == 2
    assert len(set(CALC_TASK_IDS)) == len(CALC_TASK_IDS)
    assert all(task_id.startswith("calc.") for task_id in CALC_TASK_IDS)
    assert set(CALC_TASK_IDS) <= set(list_tasks("calc"))


def test_at_least_a_third_have_gui_oracles():
    with_gui = [
        task_id for task_id in FEASIBLE if get_task(task_id).gui_oracle(get_task(task_id).sample_params(_rng(0)))
    ]
    assert len(with_gui) >= 9, with_gui


def _rng(seed: int) -> np.random.Generator:
    return np.random.default_rng(seed)


@pytest.mark.parametrize("task_id", CALC_TASK_IDS)
def test_same_seed_same_bytes_other_seed_other_task(task_id):
    task = get_task(task_id)
    first, again, other = (task.sample_params(_rng(seed)) for seed in (5, 5, 6))
    assert first == again
    assert task.input_bytes(first) == task.input_bytes(again)
    assert task.instruction(first) == task.instruction(again)
    assert task.input_bytes(first) != task.input_bytes(other) or task.instruction(first) != task.instruction(other)
    assert "{" not in task.instruction(first) and task.path in task.instruction(first)
    openpyxl.load_workbook(io.BytesIO(task.input_bytes(first)))  # a readable workbook


@pytest.mark.parametrize("task_id", FEASIBLE)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_oracle_actions_parse_and_perturbation_changes_them(task_id, seed):
    task = get_task(task_id)
    params = task.sample_params(_rng(seed))
    assert task.needs_save and not task.infeasible
    api_actions = _play(task.api_oracle(params))
    assert api_actions[-1] == "exit(success=True)"
    assert any(action.startswith("CalcTools.save(") for action in api_actions)
    for action in api_actions:
        PARSER.parse(action)  # raises on an unknown method or a malformed call
    perturbed = task.perturb(params, _rng(seed + 100))
    assert perturbed != params
    assert sum(perturbed[key] != params.get(key) for key in perturbed) == 1, "perturb one value only"
    assert _play(task.api_oracle(perturbed)) != api_actions


@pytest.mark.parametrize("task_id", [t for t in FEASIBLE if get_task(t).gui_oracle(get_task(t).sample_params(_rng(0)))])
def test_gui_oracles_use_no_api_and_no_fixed_coordinates(task_id):
    task = get_task(task_id)
    observation = {"a11y_tree": TREE.replace("Sales", task.sample_params(_rng(0)).get("old", "Sales"))}
    actions = _play(task.gui_oracle(task.sample_params(_rng(0))), observation)
    assert actions[-1] == "exit(success=True)"
    assert not any(action.startswith("CalcTools.") for action in actions)
    for action in actions:
        PARSER.parse(action)


@pytest.mark.parametrize("task_id", INFEASIBLE)
def test_infeasible_tasks_declare_fail(task_id):
    task = get_task(task_id)
    assert task.infeasible
    params = task.sample_params(_rng(0))
    assert _play(task.oracle(params)) == ["fail()"]
    assert not task.check(task.input_bytes(params), params, None).success


def test_find_box_reads_the_linearized_tree():
    assert find_box(TREE, "page tab", "Sales") == (138, 675, 61, 23)
    assert find_box(TREE, "page tab", 'Q"4" plan') == (198, 675, 76, 23)
    assert find_box(TREE, "page tab", "Hidden") is None  # off screen: no box
    assert find_box(TREE, "page tab", "Missing") is None
    assert find_box(TREE, "page tab list", "") == (138, 675, 1069, 23)


def test_gui_script_resolves_pointer_steps_from_the_observation():
    policy = GuiScript(["press(key='f2')", click_node("page tab", 'Q"4" plan', clicks=2)])
    assert policy({"a11y_tree": TREE}) == "press(key='f2')"
    assert policy({"a11y_tree": TREE}) == "click(coordinates=[236, 686], num_clicks=2)"
    assert policy({"a11y_tree": TREE}) == "done()"
    missing = GuiScript([click_node("page tab", "Nope")])
    assert [missing({"a11y_tree": TREE}) for _ in range(9)][-2:] == ["wait(seconds=0.5)", "fail()"]


def test_workbook_bytes_keeps_sheet_order_and_active_sheet():
    data = workbook_bytes({"One": [("a", 1)], "Two": [], "Three": [("b", 2)]}, active="Three")
    book = openpyxl.load_workbook(io.BytesIO(data))
    assert book.sheetnames == ["One", "Two", "Three"]
    assert book.active.title == "Three"
    assert book["One"]["B1"].value == 1
    assert data == workbook_bytes({"One": [("a", 1)], "Two": [], "Three": [("b", 2)]}, active="Three")
    # openpyxl's Workbook.save() would stamp the wall-clock time here; the bytes must not depend on it.
    assert book.properties.modified == FIXED_TIME and book.properties.created == FIXED_TIME


def _play(policy, observation=None, limit: int = 200) -> list[str]:
    actions = []
    for _ in range(limit):
        action = policy(observation or {"a11y_tree": TREE})
        if action == "done()":
            return actions
        actions.append(action)
    raise AssertionError("the policy never ended")


def test_focused_nodes_reports_roles_texts_and_ancestors():
    nodes = focused_nodes(TREE)
    assert (
        "text",
        "",
        "A1",
        ('application "soffice"', 'frame "book.xlsx - LibreOffice Calc"', 'tool bar "Formula Tool Bar"'),
    ) == nodes[0]
    assert [(role, name) for role, name, _, _ in nodes[1:]] == [("table", "Sheet Sales"), ("text", "")]
    assert focused_nodes(UNFOCUSED) == []


def test_gates_hold_the_next_step_until_the_focus_is_there():
    policy = GuiScript([GRID_READY, "type(text='x')", NAME_BOX_READY, field_ready("Sales"), "done()"])
    assert policy({"a11y_tree": UNFOCUSED}) == "wait(seconds=0.3)"
    assert policy({"a11y_tree": TREE}) == "type(text='x')"
    assert policy({"a11y_tree": UNFOCUSED}) == "wait(seconds=0.3)"
    assert policy({"a11y_tree": TREE}) == "done()"  # both gates open at once


def test_a_gate_that_never_opens_fails_the_episode():
    policy = GuiScript([GRID_READY, "press(key='enter')"])
    actions = [policy({"a11y_tree": UNFOCUSED}) for _ in range(GRID_READY.tries + 1)]
    assert actions == ["wait(seconds=0.3)"] * GRID_READY.tries + ["fail()"]
    assert policy({"a11y_tree": TREE}) == "done()"
