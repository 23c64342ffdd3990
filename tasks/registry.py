"""Task registry: task id -> task factory, and the matching Gymnasium ids.

Gymnasium ids are namespaced and versioned: ``desktop_gym/<suite>.<name>-v0``. A task may be
registered by entry point (``"package.module:Class"`` or ``"json:<file>"``, Gymnasium's way):
its id is known at once and its module is imported only by ``get_task``/``gymnasium.make``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import gymnasium
from gymnasium.envs.registration import registry as _gym_registry

from ..errors import TaskError, UnknownTaskError

if TYPE_CHECKING:
    from .base import Task

NAMESPACE = "desktop_gym"
ENV_ENTRY_POINT = "desktop_gym.env:DesktopEnv"
JSON_ENTRY_PREFIX = "json:"
TASKS_DIR = Path(__file__).resolve().parent

_TASKS: dict[str, Callable[[], Task]] = {}
_ENTRY_POINTS: dict[str, str] = {}  # task id -> entry point not imported yet


def gym_id(task_id: str, version: int = 0) -> str:
    """``calc.fill_totals`` -> ``desktop_gym/calc.fill_totals-v0``."""
    return f"{NAMESPACE}/{task_id}-v{version}"


def check_task_id(task_id: object) -> None:
    """Raise ``ValueError`` unless ``task_id`` looks like ``<suite>.<name>`` (letters, digits, underscores)."""
    suite, dot, name = str(task_id).partition(".")
    well_formed = isinstance(task_id, str) and dot and suite and name
    if not well_formed or not all(part.replace("_", "").isalnum() for part in (suite, name)):
        raise ValueError(f"task id {task_id!r} must look like '<suite>.<name>' (letters, digits, underscores)")


def _register_gym_id(task_id: str, default_env_kwargs: Mapping[str, Any] | None) -> str:
    env_id = gym_id(task_id)
    kwargs = {"task_id": task_id, **dict(default_env_kwargs or {})}
    spec = _gym_registry.get(env_id)
    if spec is not None and spec.entry_point == ENV_ENTRY_POINT and spec.kwargs == kwargs:
        return env_id  # registered by entry point first: the same spec
    _gym_registry.pop(env_id, None)
    gymnasium.register(id=env_id, entry_point=ENV_ENTRY_POINT, kwargs=kwargs)
    return env_id


def register_task(
    task_id: str | type[Task],
    task_class: type[Task] | Callable[..., Task] | None = None,
    task_kwargs: Mapping[str, Any] | None = None,
    default_env_kwargs: Mapping[str, Any] | None = None,
) -> str:
    """Register a task and its Gymnasium id; returns the Gymnasium id.

    The convention for a task class is ``register_task(MyTask)``: the id is ``MyTask.id``. A
    factory that needs arguments (a task file, say) is registered with an explicit id.

    Args:
        task_id: a ``Task`` subclass with an ``id``, or ``<suite>.<name>`` (e.g.
            ``starter.calc_fill_totals``) followed by ``task_class``.
        task_class: a ``Task`` subclass or any factory returning a ``Task`` (with an explicit id).
        task_kwargs: keyword arguments for the factory.
        default_env_kwargs: defaults for ``DesktopEnv`` when made through ``gymnasium.make``.

    Raises:
        ValueError: if the id is malformed, disagrees with the class's ``id``, or is already
            registered to another factory.
    """
    if task_class is None:
        if not isinstance(task_id, type) or not isinstance(task_id.__dict__.get("id"), str):
            raise ValueError(f"register_task({task_id!r}) needs a task class with an 'id', or an id and a factory")
        task_id, task_class = task_id.id, task_id
    elif isinstance(task_class, type) and task_class.__dict__.get("id", task_id) != task_id:
        raise ValueError(f"task id {task_id!r} differs from {task_class.__qualname__}.id {task_class.id!r}")
    check_task_id(task_id)
    kwargs = dict(task_kwargs or {})

    def factory() -> Task:
        return task_class(**kwargs)

    factory.task_class = task_class  # type: ignore[attr-defined] - read by the catalogue
    if task_id in _TASKS:
        raise ValueError(f"task {task_id!r} is already registered")
    _ENTRY_POINTS.pop(task_id, None)
    _TASKS[task_id] = factory
    return _register_gym_id(task_id, default_env_kwargs)


def register_entry_point(task_id: str, entry_point: str) -> str:
    """Register a task by where it lives, imported on first use; returns the Gymnasium id.

    Args:
        task_id: ``<suite>.<name>``.
        entry_point: ``"package.module:Class"`` (importing the module registers the task) or
            ``"json:<file>"`` (a task file, relative to the built-in tasks folder or absolute), or
            ``"jsonl:<shard>"`` (a line of a mined suite's shard, ``mined_suite``).

    Raises:
        ValueError: malformed id or entry point, or the id is already registered.
    """
    check_task_id(task_id)
    if not entry_point.startswith((JSON_ENTRY_PREFIX, "jsonl:")) and ":" not in entry_point:
        raise ValueError(f"entry point {entry_point!r} of {task_id!r} must be 'module:Class' or 'json:<file>'")
    if task_id in _TASKS or _ENTRY_POINTS.get(task_id, entry_point) != entry_point:
        raise ValueError(f"task {task_id!r} is already registered")
    _ENTRY_POINTS[task_id] = entry_point
    return _register_gym_id(task_id, None)


def _resolve(task_id: str) -> None:
    entry_point = _ENTRY_POINTS[task_id]
    if entry_point.startswith("jsonl:"):  # one line of a mined suite's shard
        from .json_task import JsonTask
        from .mined_suite import load_mined

        task = load_mined(task_id, entry_point[len("jsonl:") :])
        register_task(task_id, JsonTask, {"definition": task.definition, "source": task.source})
        return
    if entry_point.startswith(JSON_ENTRY_PREFIX):
        from .json_task import JsonTask
        from .loader import load_task_file

        task = load_task_file(TASKS_DIR / entry_point[len(JSON_ENTRY_PREFIX) :])
        if task.id != task_id:
            raise TaskError(f"{task.source} defines {task.id!r}, but the catalogue lists it as {task_id!r}")
        kwargs = {"definition": task.definition, "source": task.source, "assets_dir": task.assets_dir}
        register_task(task_id, JsonTask, kwargs)
        return
    importlib.import_module(entry_point.partition(":")[0])  # registers its tasks
    if task_id not in _TASKS:
        raise TaskError(
            f"importing {entry_point!r} did not register {task_id!r}: the task catalogue is stale "
            "(python -m desktop_gym.tasks.catalogue --write)"
        )


def get_task(task_id: str) -> Task:
    """A fresh instance of the task registered as ``task_id``.

    Raises:
        UnknownTaskError: naming the closest registered ids.
    """
    if task_id in _ENTRY_POINTS:
        _resolve(task_id)
    try:
        factory = _TASKS[task_id]
    except KeyError:
        import difflib

        known = list_tasks()
        close = difflib.get_close_matches(task_id, known, n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else f"; {len(known)} tasks are registered"
        raise UnknownTaskError(f"unknown task {task_id!r}{hint}") from None
    return factory()


def task_class_of(task_id: str) -> Any:
    """The class (or factory) registered for ``task_id``, importing it if needed."""
    if task_id in _ENTRY_POINTS:
        _resolve(task_id)
    factory = _TASKS[task_id]
    return getattr(factory, "task_class", factory)


def list_tasks(suite: str | None = None) -> list[str]:
    """Registered task ids, sorted; only those of ``suite`` when given."""
    return sorted(t for t in {*_TASKS, *_ENTRY_POINTS} if suite is None or t.split(".", 1)[0] == suite)


def expand_task_ids(patterns: Sequence[str]) -> tuple[str, ...]:
    """Task ids with shell-style patterns expanded (``mined.calc_*``: every mined Calc task), in order.

    Raises:
        UnknownTaskError: a pattern that matches no registered task.
    """
    import fnmatch

    expanded: list[str] = []
    for pattern in patterns:
        if not any(ch in pattern for ch in "*?["):
            expanded.append(pattern)
            continue
        matched = fnmatch.filter(list_tasks(), pattern)
        if not matched:
            raise UnknownTaskError(f"no registered task matches {pattern!r}")
        expanded.extend(matched)
    return tuple(dict.fromkeys(expanded))


__all__ = [
    "ENV_ENTRY_POINT",
    "NAMESPACE",
    "UnknownTaskError",
    "get_task",
    "check_task_id",
    "expand_task_ids",
    "gym_id",
    "list_tasks",
    "register_entry_point",
    "register_task",
    "task_class_of",
]
