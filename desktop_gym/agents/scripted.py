"""Agents without a model: the task's oracle, the null agent and a random agent."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ..tasks import null_policy
from .base import AgentUsage, EpisodeContext

ORACLE_KINDS = ("oracle", "oracle-api", "oracle-gui")


class OracleAgent:
    """The task's own solution.

    Args:
        kind: ``"oracle"`` (the API oracle where the action mode allows it, else the GUI one),
            ``"oracle-api"`` or ``"oracle-gui"``.
    """

    def __init__(self, kind: str = "oracle") -> None:
        if kind not in ORACLE_KINDS:
            raise ValueError(f"oracle kind must be one of {ORACLE_KINDS}, got {kind!r}")
        self.name = kind
        self.usage = AgentUsage()
        self._policy: Any = None

    def reset(self, instruction: str, context: EpisodeContext) -> None:
        task, params = context.task, context.params
        if task is None:
            raise ValueError("the oracle agent needs the task in its EpisodeContext")
        kind = self.name
        if kind == "oracle" and context.action_mode == "gui":
            kind = "oracle-gui"
        if task.infeasible or kind == "oracle":
            self._policy = task.oracle(params)
            return
        policy = task.api_oracle(params) if kind == "oracle-api" else task.gui_oracle(params)
        if policy is None:
            raise NotImplementedError(f"task {task.id!r} has no {kind.removeprefix('oracle-')} oracle")
        self._policy = policy

    def act(self, observation: Mapping[str, Any], info: Mapping[str, Any]) -> str:
        return self._policy(observation)


class NullAgent:
    """Declares it is done without touching anything (every task's proof that doing nothing fails)."""

    name = "null"

    def __init__(self) -> None:
        self.usage = AgentUsage()

    def reset(self, instruction: str, context: EpisodeContext) -> None:
        pass

    def act(self, observation: Mapping[str, Any], info: Mapping[str, Any]) -> str:
        return null_policy(observation)


_KEYS = ("enter", "tab", "escape", "down", "up", "left", "right", "backspace")
_HOTKEYS = (["ctrl", "a"], ["ctrl", "z"], ["ctrl", "c"], ["ctrl", "v"], ["shift", "tab"])
_WORDS = ("total", "42", "hello", "=SUM(A1:A3)", "report", "7")


class RandomAgent:
    """Random well-formed GUI actions (click, type, press, hotkey, scroll), ``done()`` after ``max_actions``.

    Each episode's actions come from a generator seeded by the episode's seed, so a rerun repeats them.

    Args:
        max_actions: actions before it declares ``done()``.
        seed: the generator's seed when the episode has none.
    """

    name = "random"

    def __init__(self, max_actions: int = 10, seed: int = 0) -> None:
        self.usage = AgentUsage()
        self.max_actions = max_actions
        self._seed = seed
        self._rng = np.random.default_rng(seed)
        self._taken = 0
        self._size = (1280, 720)

    def reset(self, instruction: str, context: EpisodeContext) -> None:
        self._rng = np.random.default_rng(self._seed if context.seed is None else context.seed)
        self._taken = 0

    def act(self, observation: Mapping[str, Any], info: Mapping[str, Any]) -> str:
        screenshot = observation.get("screenshot")
        if screenshot is not None and getattr(screenshot, "ndim", 0) == 3:
            self._size = (int(screenshot.shape[1]), int(screenshot.shape[0]))
        self._taken += 1
        if self._taken > self.max_actions:
            return "done()"
        rng = self._rng
        x, y = int(rng.integers(0, self._size[0])), int(rng.integers(0, self._size[1]))
        kind = int(rng.integers(0, 5))
        if kind == 0:
            return f"click(coordinates=[{x}, {y}])"
        if kind == 1:
            return f"type(text={str(rng.choice(_WORDS))!r})"
        if kind == 2:
            return f"hotkey(keys=[{str(rng.choice(_KEYS))!r}])"
        if kind == 3:
            keys = _HOTKEYS[int(rng.integers(0, len(_HOTKEYS)))]
            return f"hotkey(keys={keys!r})"
        direction = str(rng.choice(["up", "down"]))
        return f"scroll(coordinates=[{x}, {y}], direction={direction!r}, amount=3)"
