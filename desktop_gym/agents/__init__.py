"""Agents for evaluation and ``desktop-gym run``: oracle, null, random, ``hf:`` and ``openai:`` LLM agents.

agent = make_agent("openai:default@http://127.0.0.1:8000/v1")
agent.reset(instruction, EpisodeContext(describe=env.describe, tool_schemas=env.tool_schemas))
action = agent.act(observation, info)
"""

from .base import Agent, AgentUsage, EpisodeContext
from .llm import LlmAgent
from .registry import AgentOptions, UnknownAgentError, agent_kinds, make_agent, register_agent
from .scripted import NullAgent, OracleAgent, RandomAgent

__all__ = [
    "Agent",
    "AgentOptions",
    "AgentUsage",
    "EpisodeContext",
    "LlmAgent",
    "NullAgent",
    "OracleAgent",
    "RandomAgent",
    "UnknownAgentError",
    "agent_kinds",
    "make_agent",
    "register_agent",
]
