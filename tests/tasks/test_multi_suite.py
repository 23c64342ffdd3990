"""Multi-app tasks on one real desktop: only the focused app's API is callable until ``open_app``
opens the target (the default ``api_scope="focused"``). Their proofs are in ``test_task_proofs.py``."""

from __future__ import annotations

import pytest

from desktop_gym import DesktopEnv
from desktop_gym.tasks import list_tasks

from ..support.shared_env import env_on_session_desktop

pytestmark = pytest.mark.slow

MULTI_TASKS = list_tasks("multi")
LEAN_OBSERVATION = ("instruction", "focused_app", "api", "last_action_result", "last_action_error")


@pytest.fixture(scope="module")
def env(desktop, _session_guest):
    options = {"task_id": MULTI_TASKS[0], "observation": LEAN_OBSERVATION, "api_scope": "focused"}
    yield from env_on_session_desktop(desktop, _session_guest, **options)


def test_target_api_is_refused_until_its_app_is_opened(env: DesktopEnv) -> None:
    observation, info = env.reset(seed=1, options={"task_id": "multi.calc_to_writer_table"})
    assert observation["focused_app"] == "calc" and "WriterTools." not in observation["api"]
    observation, *_ = env.step("WriterTools.get_text()")
    assert "open_app(app_name='writer')" in observation["last_action_error"]
    observation, *_ = env.step("open_app(app_name='writer')")
    assert "WriterTools." in observation["api"] and "CalcTools." not in observation["api"]
    *_, info = env.step("done()")
    assert not info["success"]


def test_new_presentation_opens_without_the_template_dialog(env: DesktopEnv) -> None:
    # The profile turns off Impress's start-up "Select a Template" dialog: the new slide deck has the focus.
    env.reset(seed=2, options={"task_id": "multi.headings_to_slides"})
    observation, *_ = env.step("open_app(app_name='impress')")
    assert observation["last_action_error"] == ""
    titles = [window.title for window in env.client.windows()]
    assert not any("Select a Template" in title for title in titles), titles
    focused = env.client.focused_window()
    assert focused is not None and "Impress" in focused.title
    *_, info = env.step("done()")
    assert not info["success"]
