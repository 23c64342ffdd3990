"""One registration convention: ``register_task(cls)`` reads ``cls.id``; a task class's metadata is
checked when the class is made; its oracle kinds are declared, and the declarations are true."""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from desktop_gym.task_check import _plan
from desktop_gym.tasks import ScriptedPolicy, Task, get_task, list_tasks, register_task, registry
from desktop_gym.tasks.catalogue import read_catalogue

PYTHON_TASKS = sorted(task_id for task_id, entry in read_catalogue().items() if not entry.startswith("json:"))


def _scripted(params: Mapping[str, Any]) -> ScriptedPolicy:
    return ScriptedPolicy(["done()"])


@pytest.mark.parametrize("task_id", PYTHON_TASKS)
def test_builtin_task_declares_exactly_the_oracles_it_has(task_id: str) -> None:
    task = get_task(task_id)
    assert "oracles" in type(task).__dict__ or task.infeasible, f"{task_id} does not declare its oracles"
    params = task.sample_params(np.random.default_rng(0))
    built = tuple(kind for kind in ("api", "gui") if not task.infeasible and task.oracle_of_kind(kind, params))
    assert task.oracles == built


def test_builtin_registration_reads_the_class_id() -> None:
    for task_id in PYTHON_TASKS:
        assert registry.task_class_of(task_id).id == task_id


def test_a_builtin_task_class_is_its_one_record() -> None:
    """Its id and metadata are set in its own class body (no side table), and the committed catalogue
    (generated from the classes and task files) is what the code says."""
    from desktop_gym.tasks.catalogue import build_catalogue

    for task_id in PYTHON_TASKS:
        cls = registry.task_class_of(task_id)
        assert cls.__dict__.get("id") == task_id, f"{task_id}: set by {cls.__qualname__} itself"
        assert (
            "instruction_template" in cls.__dict__
            or "goal" in cls.__dict__
            or cls.infeasible
            or any("goal" in base.__dict__ or "instruction_template" in base.__dict__ for base in cls.__mro__[1:-2])
        )
    assert build_catalogue() == read_catalogue(), "run python -m desktop_gym.tasks.catalogue --write"
    assert not (Path(registry.TASKS_DIR) / "metadata").exists()


def _make(**attributes: Any) -> type[Task]:
    namespace = {"instruction_template": "Do {thing}", "api_oracle": lambda self, params: _scripted(params)}
    return type("Probe", (Task,), {**namespace, **attributes})


@pytest.mark.parametrize(
    ("attributes", "message"),
    [
        ({"id": "nodot"}, "field 'id'"),
        ({"id": "probe.bad-name"}, "field 'id'"),
        ({"id": "probe.x", "instruction_template": None}, "field 'instruction_template'"),
        ({"id": "probe.x", "apps": "calc"}, "field 'apps'"),
        ({"id": "probe.x", "max_steps": 0}, "field 'max_steps'"),
        ({"id": "probe.x", "oracles": ("api", "mouse")}, "field 'oracles'"),
        ({"id": "probe.x", "oracles": "api"}, "field 'oracles'"),
        ({"id": "probe.x", "oracles": ("api", "api")}, "field 'oracles'"),
        ({"id": "probe.x", "oracles": ("gui",)}, "does not define gui_oracle()"),
        ({"id": "probe.x", "oracles": ("api",), "infeasible": True}, "infeasible task declares no oracles"),
    ],
)
def test_bad_metadata_fails_when_the_class_is_made(attributes: dict[str, Any], message: str) -> None:
    with pytest.raises(TypeError, match=message) as caught:
        _make(**attributes)
    assert "Probe" in str(caught.value)


def test_undeclared_oracles_are_the_overridden_hooks() -> None:
    assert _make(id="probe.api_only").oracles == ("api",)
    both = _make(id="probe.both", gui_oracle=lambda self, params: _scripted(params))
    assert both.oracles == ("api", "gui")
    assert _make(id="probe.infeasible", infeasible=True).oracles == ()
    no_oracle = type("Probe", (Task,), {"id": "probe.none", "instruction_template": "Do it"})
    assert no_oracle.oracles == ()  # allowed (an env-only task); `tasks check` reports it unproven
    assert _plan(no_oracle(), seed=0)[1][0] == "the task declares no oracle (its 'oracles' is empty)"
    assert _make().__dict__.get("oracles") is None  # no id: a family base, not checked


def test_register_task_takes_a_class_and_refuses_what_has_no_id() -> None:
    probe = _make(id="probetest.by_class", oracles=("api",))
    try:
        assert register_task(probe) == "desktop_gym/probetest.by_class-v0"
        assert isinstance(get_task("probetest.by_class"), probe) and "probetest.by_class" in list_tasks()
        with pytest.raises(ValueError, match="already registered"):
            register_task(probe)
    finally:
        registry._TASKS.pop("probetest.by_class", None)
    with pytest.raises(ValueError, match="needs a task class with an 'id'"):
        register_task("probetest.no_factory")
    with pytest.raises(ValueError, match="differs from"):
        register_task("probetest.other_id", probe)


def test_check_plans_the_declared_oracles_and_flags_one_that_builds_nothing() -> None:
    class DeclaresGuiButBuildsNone(Task):
        id = "probetest.gui_none"
        instruction_template = "Do it"
        oracles = ("api", "gui")

        def api_oracle(self, params: Mapping[str, Any]) -> ScriptedPolicy:
            return _scripted(params)

        def gui_oracle(self, params: Mapping[str, Any]) -> None:
            return None

        def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
            return dict(params)

    episodes, problems = _plan(DeclaresGuiButBuildsNone(), seed=0)
    assert [kind for kind, *_ in episodes] == ["api", "gui", "null", "perturbed"]
    assert problems == ["the task declares a 'gui' oracle, but gui_oracle() returned None"]


@pytest.mark.parametrize(
    ("module", "base", "expected"),
    [
        ("calc_base", "CalcFamily", "The spreadsheet {path} is open in LibreOffice Calc. Sort {cells}."),
        (
            "writer_base",
            "WriterDocumentTask",
            "The document {path} is open in LibreOffice Writer. Sort {cells}. "
            "Then save the document in its current docx format.",
        ),
        (
            "impress_deck",
            "DeckTask",
            "The presentation {path} is open in LibreOffice Impress. Sort {cells}, "
            "then save the file in its current pptx format.",
        ),
    ],
)
def test_a_family_goal_becomes_the_whole_instruction(module: str, base: str, expected: str) -> None:
    family = getattr(importlib.import_module(f"desktop_gym.tasks.families.{module}"), base)
    goal = "Sort {cells}." if base != "DeckTask" else "Sort {cells}"
    hooks = {"oracles": ("api",), "api_oracle": lambda self, params: _scripted(params)}
    task = type("Probe", (family,), {"id": "probetest.goal", "goal": goal, **hooks})
    assert task.instruction_template == expected
