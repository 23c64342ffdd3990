"""Conformance checks for task and backend authors: one call per task in a benchmark's CI.

``check_task(task_id)`` proves a task on a real desktop (oracles pass, the null agent and the
perturbed oracle fail); see ``desktop_gym.task_check``. ``check_backend(backend)`` proves a
backend (start, screenshot, input, a11y, exec, files, reset, close); see ``desktop_gym.backend_check``.
``cpu_load()`` oversubscribes the CPU with bounded busy processes while a block runs, so a test
can prove its claim on a loaded node; see ``desktop_gym.cpu_load``. ``screens_match(a, b)``
compares two screenshots outside a caret-sized mask; see ``desktop_gym.screen_compare``.
"""

from .backend_check import BackendReport, check_backend
from .cpu_load import CpuLoad, cpu_load
from .screen_compare import screen_difference, screens_match
from .task_check import EpisodeCheck, TaskProof, check_task, check_tasks

__all__ = [
    "BackendReport",
    "check_backend",
    "CpuLoad",
    "cpu_load",
    "EpisodeCheck",
    "TaskProof",
    "check_task",
    "check_tasks",
    "screen_difference",
    "screens_match",
]
