"""Tasks: metadata as data plus small hooks, registered as ``desktop_gym/<suite>.<name>-v0``.

Imported as ``desktop_gym.tasks``. Importing it registers the ids of the built-in suites from
``catalogue.json`` (Gymnasium-style entry points) and the mined suite's ids (``mined_suite``); a
family module, JSON task file or mined definition is imported and validated on first use
(``get_task``, ``gymnasium.make``). The names below load on access.
"""

from __future__ import annotations

import importlib
from typing import Any

from .catalogue import register_builtin
from .mined_suite import register_mined
from .registry import UnknownTaskError, get_task, gym_id, list_tasks, register_entry_point, register_task

register_builtin()
register_mined()

_LAZY_EXPORTS = {
    "JsonTask": ".json_task",
    "ScriptedPolicy": ".base",
    "Task": ".base",
    "TaskContext": ".base",
    "TaskSetupError": ".base",
    "null_policy": ".base",
    "SUITES_DIR": ".loader",
    "TaskFileError": ".loader",
    "load_suite_dir": ".loader",
    "load_task_file": ".loader",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY_EXPORTS:
        value = getattr(importlib.import_module(_LAZY_EXPORTS[name], __name__), name)
    else:
        try:
            value = importlib.import_module(f"{__name__}.{name}")  # a submodule: tasks.families, ...
        except ModuleNotFoundError:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY_EXPORTS})


__all__ = [
    "JsonTask",
    "ScriptedPolicy",
    "Task",
    "TaskContext",
    "TaskFileError",
    "TaskSetupError",
    "UnknownTaskError",
    "get_task",
    "gym_id",
    "list_tasks",
    "load_suite_dir",
    "load_task_file",
    "null_policy",
    "register_entry_point",
    "register_task",
]
