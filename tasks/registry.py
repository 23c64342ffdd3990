"""Task registry: task id -> task factory, and the matching Gymnasium ids.

Gymnasium ids are namespaced and versioned: ``desktop_gym/<suite>.<name>-v0``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import gymnasium

from ..errors import UnknownTaskError  # noqa: F401 - re-exported from its old home
from .base import Task

NAMESPACE = "desktop_gym"
ENV_ENTRY_POINT = "desktop_gym.env:DesktopEnv"

_TASKS: dict[str, Callable[[], Task]] = {}


def gym_id(task_id: str, version: int = 0) -> str:
    """``calc.fill_totals`` -> ``desktop_gym/calc.fill_totals-v0``."""
    return f"{NAMESPACE}/{task_id}-v{version}"


def register_task(
    task_id: str,
    task_class: type[Task] | Callable[..., Task],
    task_kwargs: Mapping[str, Any] | None = None,
    default_env_kwargs: Mapping[str, Any] | None = None,
) -> str:
    """Register a task and its Gymnasium id; returns the Gymnasium id.

    Args:
        task_id: ``<suite>.<name>``, e.g. ``starter.calc_fill_totals``.
        task_class: a ``Task`` subclass or any factory returning a ``Task``.
        task_kwargs: keyword arguments for the factory.
        default_env_kwargs: defaults for ``DesktopEnv`` when made through ``gymnasium.make``.

    Raises:
        ValueError: if the id is malformed or already registered to another factory.
    """
    suite, dot, name = task_id.partition(".")
    if not dot or not suite or not name or not all(part.replace("_", "").isalnum() for part in (suite, name)):
        raise ValueError(f"task id {task_id!r} must look like '<suite>.<name>' (letters, digits, underscores)")
    kwargs = dict(task_kwargs or {})

    def factory() -> Task:
        return task_class(**kwargs)

    if task_id in _TASKS:
        raise ValueError(f"task {task_id!r} is already registered")
    _TASKS[task_id] = factory
    env_id = gym_id(task_id)
    gymnasium.register(
        id=env_id,
        entry_point=ENV_ENTRY_POINT,
        kwargs={"task_id": task_id, **dict(default_env_kwargs or {})},
    )
    return env_id


def get_task(task_id: str) -> Task:
    """A fresh instance of the task registered as ``task_id``.

    Raises:
        UnknownTaskError: naming the closest registered ids.
    """
    try:
        return _TASKS[task_id]()
    except KeyError:
        import difflib

        close = difflib.get_close_matches(task_id, _TASKS, n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else f"; {len(_TASKS)} tasks are registered"
        raise UnknownTaskError(f"unknown task {task_id!r}{hint}") from None


def list_tasks(suite: str | None = None) -> list[str]:
    """Registered task ids, sorted; only those of ``suite`` when given."""
    return sorted(t for t in _TASKS if suite is None or t.split(".", 1)[0] == suite)
