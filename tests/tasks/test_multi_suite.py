"""Every multi-app task proven on one real desktop: the API oracle opens the target app with
``open_app`` (under the default ``api_scope="focused"``, so only the focused app's API is callable),
builds the document from the source app's data and saves it; the null agent and the perturbed
oracle fail."""

from __future__ import annotations

import pytest

from desktop_gym import DesktopEnv
from desktop_gym.tasks import list_tasks
from desktop_gym.testing import check_task

pytestmark = pytest.mark.slow

MULTI_TASKS = list_tasks("multi")
LEAN_OBSERVATION = ("instruction", "focused_app", "api", "last_action_result", "last_action_error")


@pytest.fixture(scope="module")
def env():
    environment = DesktopEnv(task_id=MULTI_TASKS[0], observation=LEAN_OBSERVATION, api_scope="focused")
    yield environment
    environment.close()


@pytest.mark.proofs  # the same proofs `desktop-gym tasks check` runs in CI; run with -m proofs
@pytest.mark.parametrize("task_id", MULTI_TASKS)
def test_multi_task_is_proven(env: DesktopEnv, task_id: str) -> None:
    proof = check_task(task_id, seeds=(0,), env=env)
    assert proof.proven, "\n".join(proof.why_unproven())
    assert {episode.kind for episode in proof.episodes} == {"api", "null", "perturbed"}


def test_target_api_is_refused_until_its_app_is_opened(env: DesktopEnv) -> None:
    observation, info = env.reset(seed=1, options={"task_id": "multi.calc_to_writer_table"})
    assert observation["focused_app"].startswith("libreoffice") and "WriterTools." not in observation["api"]
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
