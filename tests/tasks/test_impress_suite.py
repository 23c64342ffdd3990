"""Every Impress task proven on one real desktop: its API (and GUI) oracle passes, the null agent and
the perturbed oracle fail; the infeasible task passes only by declaring FAIL."""

from __future__ import annotations

import pytest

from desktop_gym import DesktopEnv
from desktop_gym.tasks import get_task, list_tasks
from desktop_gym.testing import check_task

pytestmark = pytest.mark.slow

IMPRESS = list_tasks("impress")


@pytest.fixture(scope="module")
def env():
    environment = DesktopEnv(task_id=IMPRESS[0])
    yield environment
    environment.close()


@pytest.mark.proofs  # the same proofs `desktop-gym tasks check` runs in CI; run with -m proofs
@pytest.mark.parametrize("task_id", IMPRESS)
def test_task_is_proven(env: DesktopEnv, task_id: str) -> None:
    proof = check_task(task_id, seeds=(0,), env=env)
    assert proof.proven, "\n".join(proof.why_unproven())
    kinds = {episode.kind for episode in proof.episodes}
    if get_task(task_id).infeasible:
        assert kinds == {"oracle", "null"}
    else:
        assert {"api", "null", "perturbed"} <= kinds
