"""Every OS task proven on one real desktop (xterm, mousepad, the X clipboard): its API and GUI
oracles pass, the null agent and the perturbed oracle fail; the infeasible task passes only by
declaring FAIL."""

from __future__ import annotations

import pytest

from desktop_gym import DesktopEnv
from desktop_gym.tasks import get_task, list_tasks
from desktop_gym.testing import check_task

pytestmark = pytest.mark.slow

OS_TASKS = list_tasks("os")
# Scripted oracles read no screen: a lean observation keeps each step cheap.
LEAN_OBSERVATION = ("instruction", "focused_app", "last_action_result", "last_action_error")


@pytest.fixture(scope="module")
def env():
    environment = DesktopEnv(task_id=OS_TASKS[0], observation=LEAN_OBSERVATION)
    yield environment
    environment.close()


@pytest.mark.proofs  # the same proofs `desktop-gym tasks check` runs in CI; run with -m proofs
@pytest.mark.parametrize("task_id", OS_TASKS)
def test_os_task_is_proven(env: DesktopEnv, task_id: str) -> None:
    proof = check_task(task_id, seeds=(0,), env=env)
    assert proof.proven, "\n".join(proof.why_unproven())
    kinds = {episode.kind for episode in proof.episodes}
    if get_task(task_id).infeasible:
        assert kinds == {"oracle", "null"}
    else:
        assert {"api", "gui", "null", "perturbed"} <= kinds


def test_clipboard_task_reads_the_real_x_clipboard(env: DesktopEnv) -> None:
    # The verifier reads what the desktop's clipboard holds, not a file: copy the wrong line by hand.
    observation, info = env.reset(seed=5, options={"task_id": "os.clipboard_copy"})
    code = info["params"]["code"]
    observation, *_ = env.step("OSTools.set_clipboard(text='Do not share it.')")
    assert observation["last_action_error"] == ""
    *_, info = env.step("done()")
    assert not info["success"] and code in info["verifier"]["reason"]
    assert env.client.exec(["xclip", "-selection", "clipboard", "-o"]).stdout == "Do not share it."
