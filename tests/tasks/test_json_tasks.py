"""JSON tasks: seeded parameters, templates, and setup steps / verifiers run on a real desktop."""

from __future__ import annotations

import io
import re

import docx
import numpy as np
import openpyxl
import pytest

from desktop_gym.tasks import JsonTask, TaskContext, TaskSetupError, get_task
from desktop_gym.tasks.json_params import TemplateError, fill, perturbed_value, sample_params
from desktop_gym.tasks.json_task import evaluate_verifier

SPECS = {
    "word": {"words": {"count": 2, "sep": "-"}},
    "n": {"integer": {"min": 1, "max": 1000}},
    "pick": {"choice": ["x", 2, True]},
    "fixed": 7,
    "listed": {"value": [1, 2]},
    "path": {"template": "~/{word}/{n:04d}.txt"},
}


def test_same_seed_same_params_and_seeds_differ():
    first = sample_params(SPECS, np.random.default_rng(5))
    assert first == sample_params(SPECS, np.random.default_rng(5))
    assert len({str(sample_params(SPECS, np.random.default_rng(seed))) for seed in range(8)}) > 4
    assert first["fixed"] == 7 and first["listed"] == [1, 2] and 1 <= first["n"] <= 1000
    assert first["path"] == f"~/{first['word']}/{first['n']:04d}.txt"
    assert type(first["n"]) is int and len(set(first["word"].split("-"))) == 2


def test_fill_keeps_types_of_whole_fields_and_refuses_attribute_access():
    params = {"cell": "B2", "total": 12, "name": "a'b"}
    assert fill({"{cell}": "{total}", "x": ["t={total}", "{name!r}"]}, params) == {"B2": 12, "x": ["t=12", '"a\'b"']}
    with pytest.raises(TemplateError, match="plain parameter name"):
        fill("{cell.__class__}", params)
    with pytest.raises(TemplateError, match="plain parameter name"):
        fill("{cell[0]}", params)


def test_perturbed_value_differs_or_says_why():
    rng = np.random.default_rng(0)
    assert perturbed_value({"choice": ["a", "b"]}, "a", rng, {}) == "b"
    assert perturbed_value("{v}x", "a", rng, {"v": "a"}) == "ax"
    with pytest.raises(ValueError, match="true value"):
        perturbed_value({"choice": ["a"]}, "a", rng, {})


def test_builtin_json_task_instruction_and_oracles_are_filled():
    task = get_task("calc.enter_value")
    params = task.sample_params(np.random.default_rng(1))
    assert f"cell {params['cell']}" in task.instruction(params)
    api = task.api_oracle(params)
    assert api({}) == f'CalcTools.set_cell_value(cell="{params["cell"]}", value={params["count"]})'
    wrong = task.perturb(params, np.random.default_rng(2))
    assert wrong["cell"] != params["cell"] and {k: v for k, v in wrong.items() if k != "cell"} == {
        k: v for k, v in params.items() if k != "cell"
    }


SETUP_TASK = {
    "id": "jsontest.setup_steps",
    "instruction": "look",
    "params": {"word": {"words": {"count": 1}}, "n": {"integer": {"min": 10, "max": 99}}},
    "apps": ["terminal"],
    "setup": [
        {"type": "put_file", "path": "~/in/{word}.txt", "text": "n={n}\n"},
        {"type": "put_file", "path": "~/in/asset.txt", "asset": "files/stale_notes.txt"},
        {"type": "put_file", "path": "~/in/t.xlsx", "sheet": "S", "rows": [["k", "v"], ["{word}", "{n}"]]},
        {"type": "put_file", "path": "~/in/d.docx", "heading": "H {word}", "paragraphs": ["p {n}"]},
        {"type": "copy_file", "src": "~/in/{word}.txt", "dst": "~/copy/{word}.txt"},
        {"type": "run", "command": "mkdir -p ~/made && echo ok > ~/made/flag", "timeout": 10},
        {"type": "launch", "app": "terminal"},
        {"type": "wait_window", "title": "xterm|[Tt]erminal|bash", "timeout": 10, "activate": True},
    ],
    "verifier": {
        "all": [
            {"name": "text_file", "file": "~/copy/{word}.txt", "args": {"expected": "n={n}"}},
            {"name": "directory_tree", "dir": "~/made", "args": {"expected": ["flag"]}},
            {"name": "command_output", "command": "cat ~/made/flag", "args": {"equals": "ok"}},
            {"not": {"name": "file_exists", "file": "~/nothing_here"}},
        ]
    },
}


@pytest.mark.slow
def test_setup_steps_really_run_on_the_desktop(guest):
    guest.exec('find "$HOME" -mindepth 1 -maxdepth 1 -exec rm -rf -- {} +', shell=True)
    task = JsonTask(SETUP_TASK)
    ctx = TaskContext(client=guest, rng=np.random.default_rng(3))
    ctx.params = task.sample_params(ctx.rng)
    word, n = ctx.params["word"], ctx.params["n"]
    task.setup(ctx)
    assert guest.get_file(f"~/in/{word}.txt") == f"n={n}\n".encode()
    assert guest.get_file("~/in/asset.txt").startswith(b"build cache")
    sheet = openpyxl.load_workbook(io.BytesIO(guest.get_file("~/in/t.xlsx")))["S"]
    assert [sheet["A2"].value, sheet["B2"].value] == [word, n]
    paragraphs = [p.text for p in docx.Document(io.BytesIO(guest.get_file("~/in/d.docx"))).paragraphs]
    assert paragraphs == [f"H {word}", f"p {n}"]
    assert any(app.app == "terminal" and app.alive for app in guest.apps())
    focused = guest.focused_window()
    assert focused is not None and re.search("xterm|[Tt]erminal|bash", focused.title), focused
    verdict = task.verify(ctx)
    assert verdict.success, verdict.reason
    guest.exec("rm -rf ~/made", shell=True)
    verdict = task.verify(ctx)
    assert not verdict.success and "the folder does not exist" in verdict.reason


@pytest.mark.slow
def test_failing_setup_steps_name_the_step(guest):
    ctx = TaskContext(client=guest, rng=np.random.default_rng(0), params={})
    failing = {**SETUP_TASK, "params": {}, "setup": [{"type": "run", "command": "echo boom >&2; exit 3"}]}
    with pytest.raises(TaskSetupError, match=r"setup\[0\] \(run echo boom >&2; exit 3\): the command exited 3: boom"):
        JsonTask(failing).setup(ctx)
    waiting = {**failing, "setup": [{"type": "wait_window", "title": "^no such window$", "timeout": 0.3}]}
    expected = r"setup\[0\] \(wait_window /\^no such window\$/\): no window title matched"
    with pytest.raises(TaskSetupError, match=expected):
        JsonTask(waiting).setup(ctx)
    copying = {**failing, "setup": [{"type": "copy_file", "src": "~/absent.txt", "dst": "~/b.txt"}]}
    with pytest.raises(TaskSetupError, match=r"the file to copy, ~/absent.txt, does not exist"):
        JsonTask(copying).setup(ctx)


@pytest.mark.slow
def test_any_and_not_compose_on_live_results(guest):
    guest.put_file("~/v.txt", b"alpha\n")
    ctx = TaskContext(client=guest, rng=np.random.default_rng(0), params={"w": "alpha"})
    spec = {
        "any": [
            {"name": "text_file", "file": "~/v.txt", "args": {"expected": "beta"}},
            {"name": "file_contains", "file": "~/v.txt", "args": {"text": "{w}"}, "label": "has w"},
        ]
    }
    assert evaluate_verifier(spec, ctx).success
    negated = evaluate_verifier({"not": spec}, ctx)
    assert not negated.success and "passed but must not" in negated.reason
