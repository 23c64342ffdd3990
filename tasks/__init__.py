"""Tasks: metadata as data plus small hooks, registered as ``desktop_gym/<suite>.<name>-v0``.

Imported as ``desktop_gym.tasks``; importing it registers the built-in suites.
"""

from . import starter  # noqa: F401  (registers the starter suite)
from .base import ScriptedPolicy, Task, TaskContext, TaskSetupError, null_policy
from .registry import UnknownTaskError, get_task, gym_id, list_tasks, register_task

__all__ = [
    "ScriptedPolicy",
    "Task",
    "TaskContext",
    "TaskSetupError",
    "UnknownTaskError",
    "get_task",
    "gym_id",
    "list_tasks",
    "null_policy",
    "register_task",
]
