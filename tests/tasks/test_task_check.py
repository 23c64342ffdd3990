"""check_task on a real desktop: broken tasks are caught; the CLI reports proofs (every built-in task's
proof is in ``test_task_proofs.py``)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import pytest

from desktop_gym import DesktopEnv
from desktop_gym.cli import main
from desktop_gym.tasks import ScriptedPolicy, Task, load_suite_dir, register_task
from desktop_gym.testing import check_task, check_tasks
from desktop_gym.verifiers import verify_text_file

pytestmark = pytest.mark.slow

UNTOUCHED_PASSES = {
    "id": "checktest.untouched_passes",
    "instruction": "Replace the text of ~/note.txt with {word}",
    "params": {"word": {"words": {"count": 1}}},
    "apps": ["terminal"],
    "setup": [
        {"type": "put_file", "path": "~/note.txt", "text": "draft {word}\n"},
        {"type": "launch", "app": "terminal"},
    ],
    # The bug: "contains" is already true of the untouched file, so doing nothing passes.
    "verifier": {"name": "file_contains", "file": "~/note.txt", "args": {"text": "{word}"}},
    "oracles": {"gui": ["type(text='echo {word} > ~/note.txt\\n')", "wait(seconds=0.2)"]},
    "perturb": {"param": "word", "value": "{word}s"},
}


class NoPerturb(Task):
    """A sound task that lacks perturb(): it cannot be fully proven."""

    id = "checktest.no_perturb"
    instruction_template = "Write {token} into ~/t.txt"
    apps = ("terminal",)
    max_steps = 4

    def sample_params(self, rng):
        return {"token": f"t{int(rng.integers(100, 999))}"}

    def setup(self, ctx):
        ctx.client.launch_app("terminal")

    def verify(self, ctx):
        return verify_text_file(ctx.read_file("~/t.txt"), ctx.params["token"])

    def gui_oracle(self, params: Mapping[str, Any]):
        return ScriptedPolicy([f"type(text='echo {params['token']} > ~/t.txt\\n')", "wait(seconds=0.2)"])


@pytest.fixture(scope="module")
def env(desktop):
    environment = DesktopEnv(backend=desktop)
    yield environment
    environment.close()


@pytest.fixture(scope="module")
def broken_tasks(tmp_path_factory):
    folder = tmp_path_factory.mktemp("broken_suite")
    (folder / "untouched.json").write_text(json.dumps(UNTOUCHED_PASSES))
    load_suite_dir(folder)
    register_task(NoPerturb)


def test_a_verifier_that_passes_untouched_files_is_unproven(env, broken_tasks):
    proof = check_task("checktest.untouched_passes", env=env)
    assert not proof.proven
    assert proof.verdict("gui") == "ok" and proof.verdict("null") == "FAIL"
    assert any(line.startswith("null (seed 0) should fail") for line in proof.why_unproven())
    # The file-level attack catches it without a desktop episode, too.
    assert proof.attack_verdict() == "FAIL"
    assert any(line.startswith("attack: untouched input saved as the answer") for line in proof.why_unproven())


def test_a_task_without_perturb_is_unproven(env, broken_tasks):
    proof = check_task("checktest.no_perturb", env=env)
    assert proof.verdict("gui") == "ok" and proof.verdict("null") == "ok" and proof.verdict("perturbed") == "-"
    assert not proof.proven and "does not define perturb()" in proof.why_unproven()[0]


def test_cli_check_prints_a_table_and_writes_json(tmp_path, capsys):
    out = tmp_path / "proofs.json"
    argv = ["tasks", "check", "--task", "files.project_tree", "--seeds", "2", "--json", str(out), "--attacks", "files"]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    header, rule, row = printed.splitlines()[:3]
    assert header.split() == ["task", "oracles", "null", "perturbed", "attacks", "time", "verdict"]
    assert row.split()[:4] == ["files.project_tree", "api,gui", "ok", "ok"] and row.split()[-1] == "proven"
    assert "1/1 tasks proven with 2 seed(s)" in printed
    assert "tasks per difficulty: easy 1" in printed and "tasks per domain: os 1" in printed
    proofs = json.loads(out.read_text())
    assert proofs[0]["proven"] and len(proofs[0]["episodes"]) == 8  # 2 seeds x (api, gui, null, perturbed)


def test_cli_check_exits_1_on_an_unproven_task(broken_tasks, capsys):
    assert main(["tasks", "check", "--task", "checktest.untouched_passes"]) == 1
    printed = capsys.readouterr().out
    assert "UNPROVEN" in printed and "null (seed 0) should fail" in printed


def test_cli_check_rejects_unknown_task(capsys):
    assert main(["tasks", "check", "--task", "files.no_such_task"]) == 2
    assert "unknown task 'files.no_such_task'" in capsys.readouterr().err


def test_check_tasks_in_parallel_keeps_the_order():
    seen = []
    ids = ["files.restore_from_backup", "files.project_tree", "files.no_such_task"]
    proofs = check_tasks(ids, jobs=2, on_result=lambda proof: seen.append(proof.task_id))
    assert [p.task_id for p in proofs] == ids and sorted(seen) == sorted(ids)
    assert proofs[0].proven and proofs[1].proven
    assert not proofs[2].proven and "unknown task 'files.no_such_task'" in proofs[2].problems[0]
