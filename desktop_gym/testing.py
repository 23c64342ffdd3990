"""Conformance checks for task and backend authors: one call per task in a benchmark's CI.

``check_task(task_id)`` proves a task on a real desktop (oracles pass, the null agent and the
perturbed oracle fail); see ``desktop_gym.task_check``. ``check_backend(backend)`` proves a
backend (start, screenshot, input, a11y, exec, files, reset, close); see ``desktop_gym.backend_check``.
"""

from .backend_check import BackendReport, check_backend
from .task_check import EpisodeCheck, TaskProof, check_task, check_tasks

__all__ = ["BackendReport", "check_backend", "EpisodeCheck", "TaskProof", "check_task", "check_tasks"]
