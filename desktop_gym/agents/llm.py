"""LLM agents: any ``Policy`` (a local model, an OpenAI-compatible endpoint) behind the shared prompt builder.

The prompt comes from ``desktop_gym.episode.prompts`` (the same builder the trainer uses): a
ComputerRL-style system prompt from ``env.describe()``, the observation as text (or with the
screenshot), a window of past turns. The answer goes to the env as it is; the env's action
parser turns a malformed answer into ``last_action_error``.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from desktop_gym.episode.prompts import Policy, PromptConfig, Turn, build_messages, system_prompt

from .base import AgentUsage, EpisodeContext


class LlmAgent:
    """An agent that asks a ``Policy`` for each action.

    Args:
        policy: answers a batch of chats (``LocalModelPolicy``, ``OpenAIPolicy``, ...).
        name: the agent string it was made from (for records and reports).
        prompt: what the prompt shows (history window, vision, prefill).
        max_answer_chars: longer answers are cut (the env would refuse them anyway).
        use_tools: offer the env's tool schemas each step (policies with a ``tools`` attribute,
            i.e. ``OpenAIPolicy``); the answer is then a tool call.
    """

    def __init__(
        self,
        policy: Policy,
        name: str,
        prompt: PromptConfig | None = None,
        max_answer_chars: int = 8000,
        use_tools: bool = False,
    ) -> None:
        self.policy = policy
        self.use_tools = use_tools
        self.name = name
        self.prompt = prompt or PromptConfig()
        self.max_answer_chars = max_answer_chars
        self.usage = AgentUsage()
        self._history: list[Turn] = []
        self._context = EpisodeContext()
        self.last_messages: list[dict[str, Any]] = []

    def reset(self, instruction: str, context: EpisodeContext) -> None:
        self._history = []
        self._context = context
        self.usage = AgentUsage()

    def act(self, observation: Mapping[str, Any], info: Mapping[str, Any]) -> str:
        system = system_prompt(self._context.describe(), self.prompt)
        messages = build_messages(system, observation, self._history, self.prompt)
        self.last_messages = messages
        if self.use_tools and hasattr(self.policy, "tools"):
            self.policy.tools = self._context.tool_schemas()
        started = time.perf_counter()
        [generation] = self.policy.generate([messages])
        self.usage.generation_seconds += time.perf_counter() - started
        self.usage.prompt_tokens += int(generation.extra.get("prompt_tokens", 0))
        completion_tokens = generation.extra.get("completion_tokens")
        if completion_tokens is None:
            completion_tokens = len(generation.token_ids or [])
        self.usage.completion_tokens += int(completion_tokens)
        # A tool call is a whole action (OpenAI JSON); the prefill only starts answers given as text.
        prefill = "" if generation.extra.get("tool_calls") else (self.prompt.prefill or "")
        action = (prefill + generation.text).strip()[: self.max_answer_chars]
        self._history.append(Turn(observation=_without_screenshot(observation, self.prompt.vision), action=action))
        return action or "(empty answer)"


def _without_screenshot(observation: Mapping[str, Any], vision: bool) -> Mapping[str, Any]:
    """The observation as history keeps it (screenshots only when the prompt shows them)."""
    if vision:
        return observation
    return {key: value for key, value in observation.items() if key not in ("screenshot", "som_screenshot")}
