"""The OS and multi-app suites without a desktop: registration, seeded determinism, oracle shapes."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from desktop_gym.tasks import JsonTask, get_task, list_tasks
from desktop_gym.tasks.loader import SUITES_DIR

OS_TASKS = list_tasks("os")
MULTI_TASKS = list_tasks("multi")
FEASIBLE = [t for t in OS_TASKS + MULTI_TASKS if not get_task(t).infeasible]


def oracle_actions(policy, limit: int = 50) -> list[str]:
    actions = []
    for _ in range(limit):
        action = policy({})
        actions.append(action)
        if action == "done()" or action.startswith("exit("):
            break
    return actions


def test_suites_have_their_tasks_half_of_os_as_json_files():
    assert len(OS_TASKS) == 10 and len(MULTI_TASKS) == 5
    json_ids = {json.loads(path.read_text())["id"] for path in (SUITES_DIR / "os").glob("*.json")}
    assert json_ids <= set(OS_TASKS) and len(json_ids) == 5
    assert all(isinstance(get_task(t), JsonTask) == (t in json_ids) for t in OS_TASKS)
    infeasible = [t for t in OS_TASKS if get_task(t).infeasible]
    assert infeasible == ["os.install_offline"]
    assert get_task("os.install_offline").oracle({})({}) == "fail()"


@pytest.mark.parametrize("task_id", FEASIBLE)
def test_same_seed_same_task_and_files(task_id: str):
    task = get_task(task_id)
    first, again = task.sample_params(np.random.default_rng(3)), task.sample_params(np.random.default_rng(3))
    assert first == again and task.instruction(first) == task.instruction(again)
    others = {json.dumps(task.sample_params(np.random.default_rng(seed)), sort_keys=True) for seed in range(6)}
    assert len(others) > 1, "the family must vary with the seed"
    if hasattr(task, "input_files"):  # Python families write their inputs from the parameters alone
        assert task.input_files(first) == task.input_files(again)


@pytest.mark.parametrize("task_id", FEASIBLE)
def test_api_oracle_uses_apis_and_perturbation_changes_it(task_id: str):
    task = get_task(task_id)
    params = task.sample_params(np.random.default_rng(0))
    actions = oracle_actions(task.api_oracle(params))
    assert any(re.match(r"(OSTools|CalcTools|WriterTools|ImpressTools)\.", a) for a in actions)
    assert not any("coordinates" in a for a in actions)
    wrong = oracle_actions(task.api_oracle(task.perturb(params, np.random.default_rng(1))))
    assert wrong != actions, "the perturbed oracle must act differently"


def test_gui_oracles_only_type_and_press_keys():
    with_gui = []
    for task_id in OS_TASKS:
        task = get_task(task_id)
        if task.infeasible:
            continue
        policy = task.gui_oracle(task.sample_params(np.random.default_rng(0)))
        if policy is None:
            continue
        with_gui.append(task_id)
        for action in oracle_actions(policy):
            assert re.match(r"(type|press|hotkey|wait|exit|done)\(", action), f"{task_id}: {action}"
    assert len(with_gui) >= 4


def test_multi_oracles_switch_apps_with_open_app():
    for task_id in MULTI_TASKS:
        task = get_task(task_id)
        actions = oracle_actions(task.api_oracle(task.sample_params(np.random.default_rng(0))))
        assert actions[0].startswith("open_app(") and task.needs_save
        assert any(".save(" in a for a in actions)
        target_app = actions[0].split("'")[1]
        assert target_app in task.apps and len(task.apps) == 2
