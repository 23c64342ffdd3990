"""The family tables (tasks/metadata/<suite>.toml): every row names a registered class, bad rows fail clearly."""

from __future__ import annotations

import importlib
import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from desktop_gym.errors import TaskError
from desktop_gym.tasks import family_table, get_task, list_tasks
from desktop_gym.tasks.base import Task
from desktop_gym.tasks.family_table import CLASS_PACKAGE, family_rows, read_table

TOML_TEXT = st.text(st.characters(blacklist_characters="\x7f", blacklist_categories=("Cs",)), max_size=40)


def write_table(folder: Path, suite: str, rows: dict[str, dict[str, object]]) -> Path:
    """A table file from ``rows`` (values written as JSON, which TOML reads for these types)."""
    lines = []
    for name, row in rows.items():
        lines.append(f"[{name}]")
        lines += [f"{key} = {json.dumps(value, ensure_ascii=False)}" for key, value in row.items()]
    path = folder / f"{suite}.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_every_row_names_its_registered_class() -> None:
    rows = family_rows()
    assert len(rows) >= 89
    for where, (task_id, fields) in rows.items():
        module, _, qualname = where.partition(":")
        cls = getattr(importlib.import_module(module), qualname)
        assert cls.id == task_id and task_id in list_tasks()
        assert type(get_task(task_id)) is cls
        for key, value in fields.items():
            assert cls.__dict__[key] == value, (task_id, key)


def test_a_goal_row_fills_the_base_frame() -> None:
    task = get_task("calc.fix_wrong_values")
    assert task.instruction_template.startswith("The spreadsheet {path} is open in LibreOffice Calc. A stock count")
    assert get_task("impress.add_slide").instruction_template.endswith(
        "'{new_title}', then save the file in its current pptx format."
    )


@given(
    goal=TOML_TEXT,
    tags=st.lists(TOML_TEXT, max_size=4),
    max_steps=st.integers(1, 10**6),
    needs_save=st.booleans(),
)
def test_rows_read_back_as_written(goal: str, tags: list[str], max_steps: int, needs_save: bool) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        row = {"class": "families.x:Y", "goal": goal, "tags": tags, "max_steps": max_steps, "needs_save": needs_save}
        path = write_table(Path(folder), "mysuite", {"my_task": row})
        fields = read_table(path)["mysuite.my_task"]
    assert fields == {**row, "tags": tuple(tags)}


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ({"class": "families.x:Y", "goals": "typo"}, "[t]: unknown field 'goals'"),
        ({"class": "families.x:Y", "max_steps": "40"}, "[t]: field 'max_steps' must be a int"),
        ({"class": "families.x:Y", "max_steps": True}, "[t]: field 'max_steps' must be a int"),
        ({"class": "families.x:Y", "oracles": "api"}, "[t]: field 'oracles' must be a list"),
        ({"class": "families.x:Y", "tags": [1]}, "[t]: field 'tags' must list strings"),
        ({"goal": "no class"}, "[t]: field 'class' must be '<module>:<class>'"),
        ({"class": "families.x"}, "[t]: field 'class' must be '<module>:<class>'"),
    ],
)
def test_a_bad_row_names_file_row_and_field(tmp_path: Path, row: dict[str, object], message: str) -> None:
    path = write_table(tmp_path, "mysuite", {"t": row})
    with pytest.raises(TaskError) as raised:
        read_table(path)
    assert str(raised.value).startswith("mysuite.toml: ") and message in str(raised.value)


def test_two_rows_naming_one_class_are_refused(tmp_path: Path) -> None:
    write_table(tmp_path, "mysuite", {"a": {"class": "families.x:Y"}, "b": {"class": "families.x:Y"}})
    with pytest.raises(TaskError, match=r"\[b\] names desktop_gym.tasks.families.x:Y, as mysuite.a does"):
        family_rows(tmp_path)


def test_malformed_toml_names_the_file(tmp_path: Path) -> None:
    (tmp_path / "mysuite.toml").write_text("[a\n")
    with pytest.raises(TaskError, match=r"^mysuite.toml: "):
        read_table(tmp_path / "mysuite.toml")


def _make_class(monkeypatch: pytest.MonkeyPatch, fields: dict[str, object], body: dict[str, object]) -> type:
    where = f"{CLASS_PACKAGE}.families.fake:Fake"
    monkeypatch.setattr(family_table, "family_rows", lambda: {where: ("mysuite.fake", fields)})
    namespace = {"__module__": f"{CLASS_PACKAGE}.families.fake", "__qualname__": "Fake", **body}
    return type("Fake", (Task,), namespace)


def test_a_row_sets_the_id_and_metadata_and_registers(monkeypatch: pytest.MonkeyPatch) -> None:
    from gymnasium.envs.registration import registry as gym_registry

    from desktop_gym.tasks import registry

    try:
        cls = _make_class(monkeypatch, {"goal": "Do {x}.", "oracles": ("api",)}, {"api_oracle": lambda self, p: None})
        assert (cls.id, cls.instruction_template, cls.oracles) == ("mysuite.fake", "Do {x}.", ("api",))
        assert registry.task_class_of("mysuite.fake") is cls
    finally:
        registry._TASKS.pop("mysuite.fake", None)
        gym_registry.pop(registry.gym_id("mysuite.fake"), None)


def test_a_field_in_both_class_and_row_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(TypeError, match=r"Fake \(mysuite.fake\): field 'max_steps' is set both in the class and"):
        _make_class(monkeypatch, {"goal": "Do it.", "max_steps": 5}, {"max_steps": 9})
