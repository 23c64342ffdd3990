"""Difficulty and domain of a task, as data: what ``desktop-gym tasks list`` and ``tasks check`` summarise.

Difficulty is the number of actions of the task's shortest oracle (API or GUI), the closing
``done()`` / ``exit(...)`` not counted, bucketed as ``easy`` (1-3), ``medium`` (4-7) and ``hard``
(8 or more); ``infeasible`` tasks have their own bucket. The domain follows the apps a task uses:
``calc``, ``writer``, ``impress``, ``os`` (terminal, editor, files), ``multi_app`` (two or more of
those), or the task's own ``domain:<name>`` tag when it declares one.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from .tasks.base import ORACLE_KINDS

OS_APPS = frozenset({"terminal", "editor", "files"})
DIFFICULTY_ORDER = ("easy", "medium", "hard", "infeasible", "unknown")
_CLOSING = ("done(", "exit(", "fail(")


@dataclass(frozen=True)
class TaskTags:
    """A task's difficulty and domain.

    Attributes:
        steps: actions of the shortest oracle (None when it has no scripted oracle).
        difficulty: ``easy`` / ``medium`` / ``hard`` / ``infeasible`` / ``unknown``.
        domain: ``calc``, ``writer``, ``impress``, ``os``, ``multi_app``, or a declared domain.
    """

    steps: int | None
    difficulty: str
    domain: str


def oracle_steps(policy: Any) -> int | None:
    """The scripted actions of an oracle policy (waits and the closing action not counted), if readable."""
    steps = getattr(policy, "_actions", None)
    if steps is None:
        steps = getattr(policy, "_steps", None)
    if steps is None:
        return None
    counted = [s for s in steps if not (isinstance(s, str) and s.replace(" ", "").startswith(_CLOSING))]
    return sum(1 for step in counted if type(step).__name__ != "WaitFor")


def bucket(steps: int | None) -> str:
    """The difficulty bucket of an oracle of ``steps`` actions."""
    if steps is None:
        return "unknown"
    return "easy" if steps <= 3 else ("medium" if steps <= 7 else "hard")


def task_domain(apps: Iterable[str], tags: Iterable[str] = ()) -> str:
    """The domain of a task using ``apps`` (``domain:<name>`` in ``tags`` wins)."""
    declared = next((tag.split(":", 1)[1] for tag in tags if tag.startswith("domain:")), None)
    if declared:
        return declared
    groups = {"os" if app in OS_APPS else app for app in apps}
    if len(groups) > 1:
        return "multi_app"
    return next(iter(groups), "os")


def task_tags(task: Any, seed: int = 0) -> TaskTags:
    """Difficulty and domain of ``task`` with the parameters of ``seed``."""
    domain = task_domain(task.apps, task.tags)
    if task.infeasible:
        return TaskTags(None, "infeasible", domain)
    params = task.sample_params(np.random.default_rng(seed))
    counts = []
    for kind in getattr(task, "oracles", ORACLE_KINDS):
        try:
            policy = task.oracle_of_kind(kind, params)
        except Exception:  # noqa: BLE001 - an oracle that cannot be built has no step count
            policy = None
        steps = oracle_steps(policy) if policy is not None else None
        if steps is not None:
            counts.append(steps)
    steps = min(counts) if counts else None
    return TaskTags(steps, bucket(steps), domain)


def distribution(tags: Mapping[str, TaskTags]) -> str:
    """A two-line summary: tasks per difficulty and tasks per domain."""
    by_difficulty = Counter(tag.difficulty for tag in tags.values())
    by_domain = Counter(tag.domain for tag in tags.values())
    difficulty = ", ".join(f"{name} {by_difficulty[name]}" for name in DIFFICULTY_ORDER if by_difficulty[name])
    domain = ", ".join(f"{name} {count}" for name, count in sorted(by_domain.items()))
    return f"tasks per difficulty: {difficulty}\ntasks per domain: {domain}"
