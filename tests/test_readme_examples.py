"""The task examples of the docs' Tasks page (moved there from the README) are real: the JSON file
validates and both tasks are proven."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from desktop_gym.tasks import list_tasks, load_suite_dir
from desktop_gym.testing import check_task

TASKS_PAGE = Path(__file__).resolve().parents[1] / "docs" / "tasks.md"


def _block(language: str, containing: str) -> str:
    blocks = re.findall(rf"```{language}\n(.*?)```", TASKS_PAGE.read_text(encoding="utf-8"), flags=re.S)
    return next(block for block in blocks if containing in block)


@pytest.fixture(scope="module")
def readme_task_ids(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    ids = []
    if "mysuite.move_report" not in list_tasks("mysuite"):
        folder = tmp_path_factory.mktemp("docs-suite")
        (folder / "move_report.json").write_text(_block("json", '"mysuite.move_report"'))
        load_suite_dir(folder)
    if "mysuite.write_token" not in list_tasks("mysuite"):
        exec(compile(_block("python", "class WriteToken"), str(TASKS_PAGE), "exec"), {})  # our own docs, not agent text
    ids += ["mysuite.move_report", "mysuite.write_token"]
    return ids


def test_readme_tasks_register(readme_task_ids: list[str]) -> None:
    assert set(readme_task_ids) <= set(list_tasks("mysuite"))


@pytest.mark.slow
@pytest.mark.parametrize("task_id", ["mysuite.move_report", "mysuite.write_token"])
def test_readme_tasks_are_proven(readme_task_ids: list[str], task_id: str) -> None:
    proof = check_task(task_id, seeds=(0,))
    assert proof.proven, proof.why_unproven()
