"""The Impress suite without a desktop: registration, same seed same bytes, oracle texts that fit the
real ImpressTools signatures, perturbations that change what the oracle does, and the a11y parser."""

from __future__ import annotations

import numpy as np
import pytest

from desktop_gym.actions import ActionSet, ApiCall
from desktop_gym.apps.impress.tools import ImpressTools
from desktop_gym.guest.a11y_text import A11yNodeNotFoundError, parse_tree
from desktop_gym.guest.a11y_text import require_node as find_node
from desktop_gym.guest.apps.registry import api_classes
from desktop_gym.guest.apps.tool_schema import find_method
from desktop_gym.tasks import get_task, list_tasks
from desktop_gym.tasks.artifacts import pptx_bytes
from desktop_gym.tasks.families.impress_deck import deck_slides
from desktop_gym.tasks.families.impress_drawing import png_bytes
from desktop_gym.tasks.families.impress_gui import drag_on_slide, menu_path
from desktop_gym.tasks.gui_script import GuiScript

IMPRESS = list_tasks("impress")
FEASIBLE = [t for t in IMPRESS if not get_task(t).infeasible]
PARSER = ActionSet(api_classes=api_classes(["impress"]))


def drain(policy, observation=None, limit: int = 80) -> list[str]:
    """Every action of a scripted policy (callable steps get ``observation``)."""
    actions = []
    for _ in range(limit):
        action = policy(observation or {})
        if action == "done()":
            break
        actions.append(action)
    return actions


def test_suite_has_fifteen_families_and_an_infeasible_task() -> None:
    assert len(FEASIBLE) >= 15
    assert [t for t in IMPRESS if get_task(t).infeasible] == ["impress.delete_missing_slide"]
    assert drain(get_task("impress.delete_missing_slide").oracle({})) == ["fail()"]
    with_gui = [t for t in FEASIBLE if get_task(t).gui_oracle(get_task(t).sample_params(np.random.default_rng(0)))]
    assert len(with_gui) >= 5, with_gui


@pytest.mark.parametrize("task_id", IMPRESS)
def test_same_seed_same_input_bytes(task_id: str) -> None:
    task = get_task(task_id)
    first, again, other = (task.sample_params(np.random.default_rng(seed)) for seed in (3, 3, 4))
    assert first == again
    assert pptx_bytes(deck_slides(first)) == pptx_bytes(deck_slides(again))
    assert first != other
    assert task.apps == ("impress",) and task.instruction(first).startswith("The presentation ~/Documents/")


def test_image_asset_is_deterministic_png() -> None:
    task = get_task("impress.insert_image")
    params = task.sample_params(np.random.default_rng(5))
    data = png_bytes([tuple(c) for c in params["colors"]])
    assert data.startswith(b"\x89PNG") and data == png_bytes([tuple(c) for c in params["colors"]])


@pytest.mark.parametrize("task_id", FEASIBLE)
def test_api_oracle_calls_fit_impress_tools_and_perturbation_changes_them(task_id: str) -> None:
    task = get_task(task_id)
    for seed in range(3):
        params = task.sample_params(np.random.default_rng(seed))
        actions = drain(task.api_oracle(params))
        assert actions[-1] == "exit(success=True)"
        calls = [typed for text in actions for typed in PARSER.parse(text) if isinstance(typed, ApiCall)]
        assert calls and calls[-1].method == "save"
        for call in calls:
            find_method(ImpressTools, call.method).validate(dict(call.kwargs))  # raises on a bad argument
        perturbed = drain(task.perturbed_oracle(params, np.random.default_rng(seed)))
        assert perturbed != actions, f"{task_id}: the perturbed oracle does the same thing"


TREE = """application "soffice"
  frame "deck.pptx - LibreOffice Impress" @(0,0,1280,720)
    menu bar "" @(0,19,1256,25)
      menu "Slide" [selected] @(243,19,48,25)
        menu item "Delete Slide" @(243,144,316,25)
        menu "Move" @(243,499,316,25)
      menu "View" @(80,19,48,25)
        radio menu item "Notes" @(80,44,200,25)
    document presentation "deck" [focused, editable] @(191,122,686,561)
      panel "PageShape: Budget" [editable] @(200,150,600,400)
    document frame "Slides View" @(3,159,174,534)
      panel "Budget" [selected] @(11,167,158,106)
      panel "Say \\"hi\\"" @(11,283,158,106)
    panel "Budget" @(900,10,10,10)
    list "Layouts" @(901,466,329,198) {12 children: list item "Blank Slide"}
"""


def test_a11y_parser_finds_nodes_by_role_name_and_ancestor() -> None:
    nodes = parse_tree(TREE)
    assert [n.role for n in nodes][:4] == ["application", "frame", "menu bar", "menu"]
    assert find_node(TREE, "menu item", "Delete Slide").center == (401, 156)
    assert find_node(TREE, "panel", 'Say "hi"').box == (11, 283, 158, 106)
    assert find_node(TREE, "panel", "Budget", within=("document frame", "Slides View")).center == (90, 220)
    with pytest.raises(A11yNodeNotFoundError, match="Slides View"):
        find_node(TREE, "menu", "Slide", within=("document frame", "Slides View"))
    with pytest.raises(A11yNodeNotFoundError, match="Hide Slide"):
        find_node(TREE, "menu item", "Hide Slide")


def test_gui_oracles_point_only_where_the_tree_says() -> None:
    task = get_task("impress.delete_slide")
    params = task.sample_params(np.random.default_rng(0))
    policy = task.gui_oracle(params)
    assert isinstance(policy, GuiScript)
    actions = drain(policy, {"a11y_tree": TREE})
    assert "click(coordinates=[267, 31])" in actions and "click(coordinates=[401, 156])" in actions
    blind = task.gui_oracle(params)  # no tree, no click: it waits for the menu, then gives up
    actions = drain(blind, {"a11y_tree": ""})
    assert actions[-1] == "fail()" and not any(action.startswith("click(") for action in actions)
    assert "menu 'Slide' inside menu bar ''" in blind.gave_up


def test_infeasible_task_names_a_title_the_deck_lacks() -> None:
    task = get_task("impress.delete_missing_slide")
    for seed in range(10):
        params = task.sample_params(np.random.default_rng(seed))
        assert params["missing"] not in params["titles"]
        assert task.perturb(params, np.random.default_rng(seed))["missing"] in params["titles"]


def test_menu_items_of_any_kind_and_drags_inside_the_shown_slide() -> None:
    observation = {"a11y_tree": TREE}
    assert [step.make(observation) for step in menu_path("View", "Notes")] == [
        "click(coordinates=[104, 31])",
        "click(coordinates=[180, 56])",
    ]
    drag = drag_on_slide((0.1, 0.9), (0.5, 1.0)).make(observation)
    assert drag == "drag_and_drop(drag_from_coordinates=[260, 510], drop_on_coordinates=[500, 550])"
    with pytest.raises(A11yNodeNotFoundError, match="PageShape"):
        drag_on_slide((0, 0), (1, 1)).make({"a11y_tree": ""})
