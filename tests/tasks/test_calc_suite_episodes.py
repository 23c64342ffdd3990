"""Calc suite tasks on the real desktop with real LibreOffice beyond their proofs (those are in
``test_task_proofs.py``): GUI oracles on another seed, infeasible tasks refuse a claimed success."""

from __future__ import annotations

import pytest

from desktop_gym.tasks import get_task, list_tasks
from desktop_gym.testing import check_task

from ..support.shared_env import env_on_session_desktop

pytestmark = [pytest.mark.slow, pytest.mark.timeout(240)]


@pytest.fixture(scope="module")
def env(desktop, _session_guest):
    observation = ("a11y_tree", "focused_app", "last_action_error")
    yield from env_on_session_desktop(desktop, _session_guest, observation=observation)


@pytest.mark.parametrize("task_id", ["calc.fill_formula_column", "calc.rename_sheet", "calc.remove_duplicates"])
def test_gui_oracles_hold_on_another_seed(env, task_id):
    proof = check_task(task_id, seeds=(1,), env=env)
    assert proof.proven, "\n".join(proof.why_unproven())
    assert "gui" in proof.oracle_kinds


def test_infeasible_tasks_reject_an_agent_that_claims_success(env):
    infeasible = [task_id for task_id in list_tasks("calc") if get_task(task_id).infeasible]
    assert len(infeasible) == 2
    for task_id in infeasible:
        env.reset(seed=0, options={"task_id": task_id})
        *_, terminated, _, info = env.step("exit(success=True)")
        assert terminated and not info["success"]
        assert "infeasible" in info["verifier"]["reason"]
