"""Agents named by strings, resolved through a small decorator registry.

==========================  ============================================================
``oracle``                  the task's solution (API oracle, or GUI in ``--action-mode gui``)
``oracle-api``/``oracle-gui``  that oracle only
``null``                    ``done()`` at once
``random``                  random well-formed GUI actions
``hf:<path or name>``       a local transformers model; ``hf:default`` is SmolLM2-135M-Instruct
``openai:<model>@<url>``    any OpenAI-compatible endpoint (key from ``$OPENAI_API_KEY``, or
                            the variable named by ``AgentOptions.api_key_env``)
==========================  ============================================================

``register_agent("myprefix")`` adds a kind: the factory gets the text after ``myprefix:``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from desktop_gym.episode.prompts import PromptConfig
from desktop_gym.errors import UnknownAgentError

from .base import Agent
from .scripted import ORACLE_KINDS, NullAgent, OracleAgent, RandomAgent

AgentFactory = Callable[[str, "AgentOptions"], Agent]
_FACTORIES: dict[str, AgentFactory] = {}


@dataclass
class AgentOptions:
    """Options shared by the LLM agents (ignored by the others).

    Args:
        max_tokens: the most tokens per answer.
        temperature: 0 for greedy decoding.
        seed: sampling seed.
        prefill: the start of every answer (the model continues it).
        vision: show the screenshot (OpenAI endpoints with image input only).
        tools: ``openai:`` agents are offered the actions as function tools and answer with tool calls.
        history: past turns shown in full.
        api_key_env: the environment variable with the endpoint's API key.
    """

    max_tokens: int = 64
    temperature: float = 0.0
    seed: int | None = None
    prefill: str | None = None
    vision: bool = False
    tools: bool = False
    history: int = 2
    api_key_env: str = "OPENAI_API_KEY"

    def prompt_config(self) -> PromptConfig:
        return PromptConfig(history=self.history, vision=self.vision, prefill=self.prefill)

    def sampling(self) -> Any:
        from ..llm.policy import SamplingOptions

        return SamplingOptions(max_tokens=self.max_tokens, temperature=self.temperature, seed=self.seed)


def register_agent(kind: str) -> Callable[[AgentFactory], AgentFactory]:
    """Decorator: ``factory(argument, options)`` makes agents named ``kind`` or ``kind:argument``."""

    def add(factory: AgentFactory) -> AgentFactory:
        _FACTORIES[kind] = factory
        return factory

    return add


def agent_kinds() -> list[str]:
    """The registered agent kinds."""
    return sorted(_FACTORIES)


def make_agent(spec: str, options: AgentOptions | None = None) -> Agent:
    """The agent a string names (see the module docstring).

    Raises:
        UnknownAgentError: no kind matches; the message lists the known ones.
    """
    kind, _, argument = spec.partition(":")
    factory = _FACTORIES.get(kind)
    if factory is None:
        raise UnknownAgentError(f"unknown agent {spec!r}; known kinds: {', '.join(agent_kinds())} (e.g. hf:default)")
    return factory(argument, options or AgentOptions())


for _kind in ORACLE_KINDS:
    register_agent(_kind)(lambda argument, options, kind=_kind: OracleAgent(kind))
register_agent("null")(lambda argument, options: NullAgent())
register_agent("random")(lambda argument, options: RandomAgent(seed=int(argument or 0)))


@register_agent("hf")
def _hf_agent(argument: str, options: AgentOptions) -> Agent:
    from ..llm.model import configure_inference_threads, load_model, shared_default_model
    from ..llm.policy import LocalModelPolicy
    from .llm import LlmAgent

    if not argument:
        raise UnknownAgentError("hf: name a model folder or hub name, e.g. hf:default or hf:/path/to/model")
    configure_inference_threads()
    tokenizer, model = shared_default_model() if argument == "default" else _shared_model(argument, load_model)
    return LlmAgent(LocalModelPolicy(model, tokenizer, options.sampling()), f"hf:{argument}", options.prompt_config())


_loaded: dict[str, Any] = {}


def _shared_model(path: str, load: Callable[[str], Any]) -> Any:
    if path not in _loaded:
        _loaded[path] = load(path)
    return _loaded[path]


@register_agent("openai")
def _openai_agent(argument: str, options: AgentOptions) -> Agent:
    from ..llm.policy import OpenAIPolicy
    from .llm import LlmAgent

    model, _, base_url = argument.partition("@")
    if not model:
        raise UnknownAgentError("openai: name the model, e.g. openai:gpt-4o or openai:default@http://127.0.0.1:8000/v1")
    policy = OpenAIPolicy(
        model,
        base_url or None,
        api_key_env=options.api_key_env,
        sampling=options.sampling(),
        vision=options.vision,
    )
    return LlmAgent(policy, f"openai:{argument}", options.prompt_config(), use_tools=options.tools)
