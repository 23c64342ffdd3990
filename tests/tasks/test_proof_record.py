"""The proof record: fingerprints follow a task's defining files, and ``tasks check --changed --sample``
proves what changed plus a rotating sample (the rest of the catalogue is not played)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from desktop_gym.errors import TaskError
from desktop_gym.tasks import list_tasks
from desktop_gym.tasks import registry as task_registry
from desktop_gym.tasks.loader import load_suite_dir
from desktop_gym.tasks.proof_record import changed_tasks, read_record, task_fingerprint, write_record
from desktop_gym.tasks.registry import TASKS_DIR

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def scratch_suite(tmp_path: Path):
    """A copy of the built-in ``calc.enter_value`` file, registered as ``scratchproof.enter_value``."""
    folder = tmp_path / "suite"
    folder.mkdir()
    definition = json.loads((TASKS_DIR / "suites" / "calc" / "enter_value.json").read_text())
    definition["id"] = "scratchproof.enter_value"
    path = folder / "enter_value.json"
    path.write_text(json.dumps(definition, indent=1))
    load_suite_dir(folder)
    yield path
    task_registry._TASKS.pop("scratchproof.enter_value", None)  # other tests count the built-in tasks
    task_registry._ENTRY_POINTS.pop("scratchproof.enter_value", None)


def test_every_task_has_its_own_fingerprint_and_it_is_stable():
    tasks = list_tasks()
    first = {task: task_fingerprint(task) for task in tasks}
    assert len(set(first.values())) == len(tasks)  # the id is part of it: two tasks of one class differ
    assert first == {task: task_fingerprint(task) for task in tasks}


def test_a_fingerprint_follows_the_task_file(scratch_suite: Path, tmp_path: Path):
    before = task_fingerprint("scratchproof.enter_value")
    record = tmp_path / "proven.json"
    write_record(["scratchproof.enter_value"], record)
    assert changed_tasks(["scratchproof.enter_value"], read_record(record)) == []
    definition = json.loads(scratch_suite.read_text())
    definition["instruction"] = definition["instruction"] + " Please."
    scratch_suite.write_text(json.dumps(definition))
    load_task = task_registry._TASKS.pop("scratchproof.enter_value")
    assert load_task is not None
    load_suite_dir(scratch_suite.parent)
    assert task_fingerprint("scratchproof.enter_value") != before
    assert changed_tasks(["scratchproof.enter_value"], read_record(record)) == ["scratchproof.enter_value"]


def test_a_class_fingerprint_does_not_depend_on_where_the_clone_lives(tmp_path: Path):
    clone = tmp_path / "clone"
    shutil.copytree(ROOT / "tasks", clone / "tasks", symlinks=True)
    shutil.copytree(ROOT / "desktop_gym", clone / "desktop_gym", symlinks=True, ignore=shutil.ignore_patterns("tasks"))
    (clone / "desktop_gym" / "tasks").symlink_to("../tasks")
    code = (
        "from desktop_gym.tasks.proof_record import task_fingerprint;"
        "print(task_fingerprint('calc.add_sheet'), task_fingerprint('calc.enter_value'))"
    )
    moved = subprocess.run([sys.executable, "-c", code], cwd=clone, capture_output=True, text=True, timeout=120)
    assert moved.returncode == 0, moved.stderr
    assert moved.stdout.split() == [task_fingerprint("calc.add_sheet"), task_fingerprint("calc.enter_value")]


def test_a_malformed_record_is_an_error_naming_the_file(tmp_path: Path):
    record = tmp_path / "proven.json"
    record.write_text('{"calc.add_sheet": 3}')
    with pytest.raises(TaskError, match="proven.json"):
        read_record(record)
    record.write_text("[not json")
    with pytest.raises(TaskError, match="proven.json: not a proof record"):
        read_record(record)
    assert read_record(tmp_path / "absent.json") == {}


def test_write_record_drops_tasks_no_longer_registered(tmp_path: Path):
    record = tmp_path / "proven.json"
    record.write_text(json.dumps({"gone.task": "0" * 16}))
    assert write_record(["calc.add_sheet"], record) == {"calc.add_sheet": task_fingerprint("calc.add_sheet")}


def test_check_changed_with_a_current_record_and_no_sample_proves_nothing(tmp_path: Path):
    import os

    record = tmp_path / "proven.json"
    write_record(list_tasks("calc"), record)
    result = subprocess.run(
        [sys.executable, "-m", "desktop_gym.cli", "tasks", "check", "--suite", "calc", "--changed"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        env={**os.environ, "DESKTOP_GYM_PROOF_RECORD": str(record)},
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "proving 0 task(s) new or changed" in result.stdout and "nothing to prove" in result.stdout


def test_the_sample_rotates_with_its_seed_and_keeps_changed_tasks():
    import argparse

    from desktop_gym.cli_tasks import _changed_and_sample

    tasks = list_tasks()
    pick = [
        _changed_and_sample(argparse.Namespace(changed=False, sample=10, sample_seed=seed), tasks) for seed in (1, 2)
    ]
    assert all(len(p) == 10 for p in pick) and pick[0] != pick[1]
    args = argparse.Namespace(changed=True, sample=3, sample_seed=1)
    picked = _changed_and_sample(args, tasks)
    assert set(changed_tasks(tasks, read_record())) <= set(picked)
