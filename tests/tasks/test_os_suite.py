"""OS tasks on one real desktop (xterm, mousepad, the X clipboard) beyond their proofs (those are in
``test_task_proofs.py``)."""

from __future__ import annotations

import pytest

from desktop_gym import DesktopEnv
from desktop_gym.tasks import list_tasks

from ..support.shared_env import env_on_session_desktop

pytestmark = pytest.mark.slow

OS_TASKS = list_tasks("os")
# Scripted oracles read no screen: a lean observation keeps each step cheap.
LEAN_OBSERVATION = ("instruction", "focused_app", "last_action_result", "last_action_error")


@pytest.fixture(scope="module")
def env(desktop, _session_guest):
    yield from env_on_session_desktop(desktop, _session_guest, task_id=OS_TASKS[0], observation=LEAN_OBSERVATION)


def test_clipboard_task_reads_the_real_x_clipboard(env: DesktopEnv) -> None:
    # The verifier reads what the desktop's clipboard holds, not a file: copy the wrong line by hand.
    observation, info = env.reset(seed=5, options={"task_id": "os.clipboard_copy"})
    code = info["params"]["code"]
    observation, *_ = env.step("OSTools.set_clipboard(text='Do not share it.')")
    assert observation["last_action_error"] == ""
    *_, info = env.step("done()")
    assert not info["success"] and code in info["verifier"]["reason"]
    assert env.client.exec(["xclip", "-selection", "clipboard", "-o"]).stdout == "Do not share it."
