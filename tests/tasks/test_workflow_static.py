"""Workflow-tier families without a desktop: seeded inputs, several operations, attacks rejected.

Their proofs on a real desktop (oracle passes; null, perturbed and attacks fail) run in
``desktop-gym tasks check``.
"""

from __future__ import annotations

import numpy as np
import pytest

from desktop_gym.reward_attacks import run_file_attacks
from desktop_gym.task_tags import task_tags
from desktop_gym.tasks import get_task, list_tasks

WORKFLOW = [task_id for task_id in list_tasks() if task_id.startswith("workflow.")]


def test_the_workflow_tier_is_registered() -> None:
    assert {"workflow.sales_report", "workflow.memo_cleanup"} <= set(WORKFLOW)


@pytest.mark.parametrize("task_id", WORKFLOW)
def test_same_seed_same_task_and_several_operations(task_id: str) -> None:
    task = get_task(task_id)
    first, again = (task.sample_params(np.random.default_rng(5)) for _ in range(2))
    assert first == again and task.instruction(first) == task.instruction(again)
    assert task.sample_params(np.random.default_rng(6)) != first
    tags = task_tags(task)
    assert tags.steps is not None and tags.steps >= 4 and tags.difficulty in ("medium", "hard")
    assert task.perturb(first, np.random.default_rng(0)) != first


@pytest.mark.parametrize("task_id", WORKFLOW)
def test_file_attacks_fail(task_id: str) -> None:
    outcomes = run_file_attacks(get_task(task_id), seed=1)
    assert outcomes and all(o.applicable and not o.passed for o in outcomes), outcomes
