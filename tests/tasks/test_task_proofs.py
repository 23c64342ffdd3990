"""Every built-in task proven on a real desktop, by one parametrized test: each oracle the task
declares passes, the null agent and the perturbed oracle fail; an infeasible task passes only by
declaring FAIL. The same proofs ``desktop-gym tasks check`` runs in CI; run these with ``-m proofs``.

One desktop serves all the tasks of a suite (ids sort by suite), opened with that suite's settings.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from desktop_gym import DesktopEnv
from desktop_gym.tasks import get_task
from desktop_gym.tasks.catalogue import read_catalogue
from desktop_gym.testing import check_task

pytestmark = [pytest.mark.slow, pytest.mark.proofs, pytest.mark.timeout(600)]

BUILTIN_TASKS = sorted(read_catalogue())
# Scripted oracles read no screen: a lean observation keeps each step cheap. GUI oracles that point
# at nodes need the accessibility tree; multi-app oracles show that ``open_app`` unlocks the target
# app's API under the default focused scope.
LEAN = ("instruction", "focused_app", "last_action_result", "last_action_error")
SUITE_ENV_KWARGS: dict[str, dict[str, Any]] = {
    "os": {"observation": LEAN},
    "starter": {"observation": LEAN},
    "calc": {"observation": ("a11y_tree", "focused_app", "last_action_error")},
    "multi": {"observation": (*LEAN, "api"), "api_scope": "focused"},
}


@pytest.fixture(scope="module")
def suite_env() -> Iterator[Callable[[str], DesktopEnv]]:
    """``suite_env(task_id)``: the desktop of that task's suite (the previous suite's one is closed)."""
    opened: dict[str, DesktopEnv] = {}

    def env_for(task_id: str) -> DesktopEnv:
        suite = task_id.split(".", 1)[0]
        if suite not in opened:
            while opened:
                opened.popitem()[1].close()
            opened[suite] = DesktopEnv(task_id=task_id, **SUITE_ENV_KWARGS.get(suite, {}))
        return opened[suite]

    yield env_for
    while opened:
        opened.popitem()[1].close()


@pytest.mark.parametrize("task_id", BUILTIN_TASKS)
def test_task_is_proven(suite_env: Callable[[str], DesktopEnv], task_id: str) -> None:
    proof = check_task(task_id, seeds=(0,), env=suite_env(task_id))
    assert proof.proven, "\n".join(proof.why_unproven())
    task = get_task(task_id)
    kinds = {episode.kind for episode in proof.episodes}
    if task.infeasible:
        assert kinds == {"oracle", "null"}
    else:
        assert proof.oracle_kinds == sorted(task.oracles)
        assert {"null", "perturbed"} <= kinds
