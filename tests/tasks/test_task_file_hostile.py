"""Task files from strangers: every problem is a TaskFileError naming the file and field, and no path
leaves the session home (issue 9 repros)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from desktop_gym.errors import TaskFileError
from desktop_gym.tasks import list_tasks
from desktop_gym.tasks.base import TaskContext, TaskSetupError
from desktop_gym.tasks.json_task import evaluate_verifier
from desktop_gym.tasks.limits import home_path
from desktop_gym.tasks.loader import load_suite_dir, load_task_file
from desktop_gym.tasks.setup_steps import run_setup


def task(**changes: Any) -> dict[str, Any]:
    definition = {
        "id": "hostile.probe",
        "apps": ["editor"],
        "instruction": "Write {word} into ~/out.txt.",
        "params": {"word": {"choice": ["a", "b"]}},
        "setup": [{"type": "put_file", "path": "~/in.txt", "text": "{word}"}],
        "verifier": {"name": "file_exists", "file": "~/out.txt"},
    }
    definition.update(changes)
    return definition


def write(tmp_path: Path, data: Any, name: str = "probe.json") -> Path:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def load_error(path: Path) -> TaskFileError:
    started = time.perf_counter()
    with pytest.raises(TaskFileError) as error:
        load_task_file(path)
    assert time.perf_counter() - started < 2.0
    assert path.name in str(error.value)
    return error.value


def test_the_probe_itself_loads(tmp_path: Path) -> None:
    assert load_task_file(write(tmp_path, task())).id == "hostile.probe"


def test_non_utf8_bytes(tmp_path: Path) -> None:
    path = tmp_path / "probe.json"
    path.write_bytes(b'{"id": "\xff\xfe"}')
    assert "not UTF-8" in str(load_error(path))


def test_json_nested_100000_deep(tmp_path: Path) -> None:
    assert "nested" in str(load_error(write(tmp_path, "[" * 100_000 + "]" * 100_000)))


def test_verifier_nested_400_deep(tmp_path: Path) -> None:
    verifier: dict[str, Any] = {"name": "file_exists", "file": "~/out.txt"}
    for _ in range(400):
        verifier = {"not": verifier}
    error = load_error(write(tmp_path, task(verifier=verifier)))
    assert error.location.startswith("verifier.not.not") and "nest more than" in error.problem


@pytest.mark.parametrize("digits", [30, 5000])
def test_huge_integers(tmp_path: Path, digits: int) -> None:
    text = json.dumps(task(max_steps=1)).replace('"max_steps": 1', '"max_steps": ' + "9" * digits)
    assert "digits" in str(load_error(write(tmp_path, text)))


def test_an_id_colliding_with_a_built_in_names_the_file(tmp_path: Path) -> None:
    built_in = list_tasks()[0]
    write(tmp_path, task(id=built_in))
    with pytest.raises(TaskFileError) as error:
        load_suite_dir(tmp_path)
    assert "probe.json" in str(error.value) and error.value.location == "id"


def test_a_huge_format_width(tmp_path: Path) -> None:
    error = load_error(write(tmp_path, task(instruction="Write {word:>2000000000}.")))
    assert error.location == "instruction" and "format spec" in error.problem


def test_billion_laughs(tmp_path: Path) -> None:
    params = {
        "a": "x" * 100,
        "b": {"template": "{a}" * 100},
        "c": {"template": "{b}" * 100},
    }
    error = load_error(write(tmp_path, task(params=params, instruction="{c}")))
    assert error.location == "params.c" and "expand" in error.problem


@pytest.mark.parametrize("bound", ["1e30", "-1e30", "1000000000000000000000000000000"])
def test_integer_sampler_ranges_are_bounded(tmp_path: Path, bound: str) -> None:
    text = json.dumps(task(params={"word": {"integer": {"min": 0, "max": 7}}})).replace('"max": 7', f'"max": {bound}')
    load_error(write(tmp_path, text))


@pytest.mark.parametrize(
    ("step", "field"),
    [
        ({"type": "put_file", "path": "/tmp/outside.txt", "text": "x"}, "setup[0].path"),
        ({"type": "put_file", "path": "~/../../outside.txt", "text": "x"}, "setup[0].path"),
        ({"type": "put_file", "path": "~root/x", "text": "x"}, "setup[0].path"),
        ({"type": "copy_file", "src": "/etc/hostname", "dst": "~/hostname"}, "setup[0].src"),
        ({"type": "copy_file", "src": "~/a", "dst": "~/x/../../../b"}, "setup[0].dst"),
        ({"type": "put_file", "path": "~/x", "text": "x", "mode": 0o6777}, "setup[0].mode"),
    ],
)
def test_setup_paths_and_modes(tmp_path: Path, step: dict, field: str) -> None:
    assert load_error(write(tmp_path, task(setup=[step]))).location == field


@pytest.mark.parametrize("leaf", [{"file": "/etc/hostname"}, {"file": "~/../../etc/hostname"}])
def test_verifier_files_stay_in_the_home(tmp_path: Path, leaf: dict) -> None:
    verifier = {"all": [{"name": "file_exists", **leaf}]}
    assert load_error(write(tmp_path, task(verifier=verifier))).location == "verifier.all[0].file"


def test_home_path_normalizes() -> None:
    assert home_path("~/a/./b/../c") == "~/a/c"
    assert home_path("~/a/..") == "~"
    for bad in ("~/..", "~/a/../../b", "/etc", "rel/x", "~x", ""):
        with pytest.raises(ValueError):
            home_path(bad)


class StandInClient:
    """A guest client that must never be reached: every call fails the test."""

    def __getattr__(self, name: str) -> Any:
        def reached(*args: Any, **kwargs: Any) -> None:
            pytest.fail(f"the guest was asked to {name}{args} although the path leaves the home")

        return reached


def context(**params: Any) -> TaskContext:
    return TaskContext(client=StandInClient(), rng=np.random.default_rng(0), params=params)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "step",
    [
        {"type": "put_file", "path": "~/../../etc/x", "text": "x"},
        {"type": "copy_file", "src": "/etc/hostname", "dst": "~/h"},
        {"type": "open", "app": "editor", "path": "/etc/passwd"},
        {"type": "put_file", "path": "~/x", "text": "x", "mode": 0o4755},
    ],
)
def test_filled_setup_paths_are_checked_when_run(step: dict) -> None:
    # Templates fill after load-time checks, so the runners check again (a parameter "../.." ...).
    with pytest.raises(TaskSetupError, match=r"setup\[0\]"):
        run_setup([step], context(), Path("."))


def test_a_filled_verifier_path_outside_the_home_fails_without_reading() -> None:
    verdict = evaluate_verifier({"name": "file_exists", "file": "~/{p}"}, context(p="../../etc/hostname"))
    assert not verdict.success and "leaves the session home" in verdict.reason


def _suite_with_linked_assets(tmp_path: Path) -> tuple[Path, Path]:
    """A suite whose ``assets`` folder is a link to a folder of host files (``ln -s /etc assets``)."""
    host = tmp_path / "host-files"
    host.mkdir()
    (host / "shadow").write_text("root:$6$secret:19000:0:99999:7:::\n")
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "assets").symlink_to(host)
    step = {"type": "put_file", "path": "~/shadow.txt", "asset": "shadow"}
    write(suite, task(id="hostile.linked_assets", setup=[step]))
    return suite, host


def test_a_suite_whose_assets_folder_is_a_link_is_refused(tmp_path: Path) -> None:
    suite, host = _suite_with_linked_assets(tmp_path)
    with pytest.raises(TaskFileError, match=r"setup\[0\]\.asset: .*outside the suite folder"):
        load_suite_dir(suite, register=False)


def test_a_linked_assets_folder_is_not_read_when_the_setup_runs(tmp_path: Path) -> None:
    # The runner checks again: the folder may become a link after the suite was loaded.
    suite, host = _suite_with_linked_assets(tmp_path)
    (suite / "assets").unlink()
    (suite / "assets").mkdir()
    (suite / "assets" / "shadow").write_text("a harmless asset")
    [loaded] = load_suite_dir(suite, register=False)
    (suite / "assets" / "shadow").unlink()
    (suite / "assets").rmdir()
    (suite / "assets").symlink_to(host)
    with pytest.raises(TaskSetupError, match="outside the suite folder"):
        run_setup(loaded.definition["setup"], context(), loaded.assets_dir)


def test_an_asset_that_is_a_link_out_of_the_folder_is_refused(tmp_path: Path) -> None:
    suite, host = _suite_with_linked_assets(tmp_path)
    (suite / "assets").unlink()
    (suite / "assets").mkdir()
    (suite / "assets" / "shadow").symlink_to(host / "shadow")
    with pytest.raises(TaskFileError, match=r"setup\[0\]\.asset: .*outside"):
        load_suite_dir(suite, register=False)
