"""The ``Agent`` protocol: what ``desktop-gym eval`` (and ``run``) plays an episode with."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable


@dataclass
class EpisodeContext:
    """What an agent may know about the episode besides its observations.

    Attributes:
        task: the task object (oracles read it; LLM agents must not).
        params: the episode's task parameters (oracles only).
        action_mode: ``"gui"``, ``"api"`` or ``"hybrid"``.
        describe: the prompt text of the actions and APIs offered now (``env.describe()``); call it
            each step, as the offer follows the focused app.
        tool_schemas: the OpenAI schemas of what is offered now (``env.tool_schemas()``).
        seed: the episode's seed.
    """

    task: Any = None
    params: Mapping[str, Any] = field(default_factory=dict)
    action_mode: str = "hybrid"
    describe: Callable[[], str] = lambda: ""
    tool_schemas: Callable[[], list[dict[str, Any]]] = lambda: []
    seed: int | None = None


@dataclass
class AgentUsage:
    """Token counts of an episode (0 for agents without a model)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    generation_seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "generation_seconds": round(self.generation_seconds, 3),
        }


@runtime_checkable
class Agent(Protocol):
    """Plays episodes: ``reset`` once per episode, then ``act`` once per step.

    ``act`` returns action text for ``DesktopEnv.step``; a malformed answer is the env's action
    error, never an exception here.
    """

    name: str
    usage: AgentUsage

    def reset(self, instruction: str, context: EpisodeContext) -> None:
        """Start an episode."""
        ...

    def act(self, observation: Mapping[str, Any], info: Mapping[str, Any]) -> str:
        """The next action text."""
        ...
