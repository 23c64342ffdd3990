"""Tasks: metadata as data plus small hooks, registered as ``desktop_gym/<suite>.<name>-v0``.

Imported as ``desktop_gym.tasks``; importing it registers the built-in suites.
"""

from . import families, starter  # noqa: F401  (registers the built-in suites)
from .base import ScriptedPolicy, Task, TaskContext, TaskSetupError, null_policy
from .json_task import JsonTask
from .loader import SUITES_DIR, TaskFileError, load_suite_dir, load_task_file
from .registry import UnknownTaskError, get_task, gym_id, list_tasks, register_task

load_suite_dir(SUITES_DIR)  # the built-in JSON suites: tasks/suites/**/*.json

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
    "register_task",
]
