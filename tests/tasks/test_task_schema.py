"""The task file schema and loader: good files load, bad ones fail naming the file, the field and the problem."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import jsonschema
import pytest

from desktop_gym.apps.spec import launchable_apps
from desktop_gym.guest.apps.launcher import APPS
from desktop_gym.tasks import TaskFileError, load_suite_dir, load_task_file
from desktop_gym.tasks.loader import SUITES_DIR, task_schema

GOOD = {
    "id": "mysuite.write_token",
    "instruction": "In the open terminal, write {token} into ~/{name}.txt",
    "params": {"token": {"words": {"count": 2, "sep": "-"}}, "name": {"choice": ["a", "b"]}, "n": 3},
    "apps": ["terminal"],
    "setup": [{"type": "launch", "app": "terminal"}],
    "verifier": {"all": [{"name": "text_file", "file": "~/{name}.txt", "args": {"expected": "{token}"}}]},
    "oracles": {"gui": ["type(text='echo {token} > ~/{name}.txt\\n')"]},
    "perturb": {"param": "token", "value": "{token}x"},
}


def write(tmp_path: Path, data: object, name: str = "task.json") -> Path:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def load_error(tmp_path: Path, data: object) -> str:
    path = write(tmp_path, data)
    with pytest.raises(TaskFileError) as caught:
        load_task_file(path)
    message = str(caught.value)
    assert message.startswith(f"{path}: ") or message.startswith("task.json: "), message
    return message.split(": ", 1)[1]


def broken(**changes: object) -> dict:
    data = copy.deepcopy(GOOD)
    for key, value in changes.items():
        if value is None:
            data.pop(key)
        else:
            data[key] = value
    return data


def test_published_schema_is_valid_and_matches_the_apps():
    jsonschema.Draft202012Validator.check_schema(task_schema())
    assert task_schema()["$defs"]["app"]["enum"] == list(APPS)


def test_a_good_file_loads(tmp_path):
    task = load_task_file(write(tmp_path, GOOD))
    assert task.id == "mysuite.write_token" and task.apps == ("terminal",) and task.max_steps == 15


def test_every_builtin_suite_file_is_valid():
    files = sorted(SUITES_DIR.rglob("*.json"))
    assert len(files) >= 7
    for file in files:
        load_task_file(file)


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (
            broken(setup=[{"type": "launch", "app": "terminal"}, {"type": "open", "app": "calcc", "path": "~/a.xlsx"}]),
            f"setup[1].app: 'calcc' is not one of {sorted(launchable_apps())}",
        ),
        (broken(id=None), "top level: 'id' is a required property"),
        (broken(id="no_dot"), "id: 'no_dot' does not match"),
        (broken(instructions="x"), "top level: Additional properties are not allowed ('instructions' was unexpected)"),
        (broken(setup=[{"type": "lanch", "app": "terminal"}]), "setup[0].type: 'lanch' is not one of"),
        (broken(setup=[{"type": "launch"}]), "setup[0]: 'app' is a required property"),
        (
            broken(setup=[{"type": "put_file", "path": "~/a", "text": "x", "asset": "y"}]),
            "setup[0]: put_file needs exactly one of text, asset, rows, paragraphs",
        ),
        (
            broken(setup=[{"type": "run", "command": "true", "timeout": -1}]),
            "setup[0].timeout: -1 is less than or equal",
        ),
        (broken(params={"token": {"integer": {"min": 5}}, "name": "a"}), "params.token.integer: 'max' is a required"),
        (broken(params={"token": {"choice": []}, "name": "a"}), "params.token.choice: [] should be non-empty"),
        (broken(params={"token": {"sample": [1]}, "name": "a"}), "params.token: a parameter is a string, number"),
        (broken(verifier={"name": "text_file"}), "verifier: a verifier reads exactly one of file, command, dir"),
        (broken(verifier={"al": []}), 'verifier: a verifier is {"name": ..., "args": ...}'),
        (broken(verifier=None), "top level: 'verifier' is a required property"),
        (broken(max_steps=0), "max_steps: 0 is less than the minimum of 1"),
    ],
)
def test_schema_mistakes_name_the_field(tmp_path, data, expected):
    assert load_error(tmp_path, data).startswith(expected)


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (
            broken(verifier={"all": [{"name": "file_exists", "file": "~/a"}, {"name": "txt_file", "file": "~/a"}]}),
            "verifier.all[1].name: no verifier named 'txt_file'; did you mean 'text_file'?",
        ),
        (
            broken(verifier={"name": "text_file", "file": "~/a", "args": {"expect": "x"}}),
            "verifier.args.expect: verifier 'text_file' has no argument 'expect' (arguments: expected, strip)",
        ),
        (
            broken(verifier={"name": "text_file", "file": "~/a", "args": {}}),
            "verifier.args: verifier 'text_file' needs argument(s) expected",
        ),
        (
            broken(verifier={"not": {"name": "text_file", "command": "cat ~/a", "args": {"expected": "x"}}}),
            "verifier.not: verifier 'text_file' reads a saved file: give 'file'",
        ),
        (
            broken(verifier={"name": "command_output", "file": "~/a", "args": {"equals": "x"}}),
            "verifier: verifier 'command_output' reads live output: give 'command'",
        ),
        (
            broken(oracles={"gui": ["type(text='{tokn}')"]}),
            "oracles.gui[0]: unknown parameter 'tokn' (defined: token, name, n)",
        ),
        (
            broken(instruction="Write {token.upper}"),
            "instruction: template field {token.upper} must be a plain parameter name",
        ),
        (broken(instruction="Write {token"), "instruction: malformed template"),
        (
            broken(verifier={"name": "xlsx_cells", "file": "~/a", "args": {"expected": {"{cel}": 1}}}),
            "verifier.args.expected.{cel}: unknown parameter 'cel'",
        ),
        (
            broken(params={"a": {"template": "{b}"}, "b": 1, "token": "t", "name": "n"}),
            "params.a.template: unknown parameter 'b'",
        ),
        (
            broken(params={"token": {"integer": {"min": 5, "max": 1}}, "name": "a"}),
            "params.token: integer sampler has min 5 > max 1",
        ),
        (broken(perturb={"param": "nme", "value": "x"}), "perturb.param: unknown parameter 'nme'"),
        (broken(perturb={"param": "n", "value": 4}), "perturb.param: no oracle uses 'n'"),
        (
            broken(setup=[{"type": "put_file", "path": "~/a", "asset": "no/such.txt"}]),
            "setup[0].asset: asset 'no/such.txt' not found",
        ),
        (
            broken(setup=[{"type": "put_file", "path": "~/a", "asset": "../loader.py"}]),
            "setup[0].asset: asset '../loader.py' resolves to",
        ),
        (
            broken(setup=[{"type": "launch", "app": "calc"}]),
            "setup[0].app: 'calc' is started here but not listed in apps",
        ),
        (broken(setup=[{"type": "wait_window", "title": "a(b"}]), "setup[0].title: not a regular expression"),
        (broken(infeasible=True), "top level: an infeasible task has no oracles or perturb"),
    ],
)
def test_semantic_mistakes_name_the_field(tmp_path, data, expected):
    assert load_error(tmp_path, data).startswith(expected)


def test_invalid_json_names_line_and_column(tmp_path):
    assert load_error(tmp_path, '{"id": "a.b",\n  "apps": [}').startswith("line 2 column 12: not valid JSON")


def test_suite_dir_registers_tasks_and_refuses_duplicate_ids(tmp_path):
    import gymnasium

    suite = tmp_path / "suite"
    suite.mkdir()
    write(suite, {**GOOD, "id": "schematest.one"}, "one.json")
    (suite / "nested").mkdir()
    write(suite / "nested", {**GOOD, "id": "schematest.two"}, "two.json")
    tasks = load_suite_dir(suite)
    assert [t.id for t in tasks] == ["schematest.two", "schematest.one"] or sorted(t.id for t in tasks) == [
        "schematest.one",
        "schematest.two",
    ]
    assert "desktop_gym/schematest.one-v0" in gymnasium.registry
    write(suite, {**GOOD, "id": "schematest.one"}, "three.json")
    with pytest.raises(TaskFileError, match="task id 'schematest.one' is also defined in"):
        load_suite_dir(suite, register=False)
