"""Prime Intellect ``verifiers`` adapter: a v1 taskset, env and harness that play real desktops.

Tested with verifiers 0.4.0, whose API is ``verifiers.v1`` only (Taskset / Task / Env / Harness /
Trace; the legacy ``MultiTurnEnv`` / ``StatefulToolEnv`` / ``Rubric`` are gone from the package).
verifiers finds plugins by a dot-free module name, so importing this module registers it as
``desktop_gym_verifiers`` (:data:`TASKSET_ID`); use it from Python::

    env = load_environment(task_ids=["calc.enter_value"], seeds=[0, 1], source=EnvSource(...))
    episodes = run_desktop_eval(env.config, base_url="http://127.0.0.1:8000/v1", model="SmolLM2-135M-Instruct",
                                output_dir=Path("runs/vf"))   # verifiers' own run_eval, kept local

Run it from outside the repository root: the repository's top-level ``verifiers/`` folder (our
task verifiers) shadows the PyPI package when the root is on ``sys.path``.

What each piece does:

- :class:`DesktopTaskset` yields one prompt-less task per ``(task_id, seed)`` row. Nothing is reset
  to build it (unlike verifiers' ``GymEnv`` wrapper, which resets an env ~1,000 times up front).
- :class:`DesktopGymEnv` runs one episode per rollout on its own desktop (``DesktopEpisode`` over the
  taskset's :class:`~desktop_gym.train.adapters.episode.EnvSource`): it resets the desktop, opens
  the exchange with the first observation, plays each model reply as one action (agent text such
  as ``CalcTools.set_cell_value(cell="A1", value=5)``), answers with the next observation, and
  when the episode ends records the task verifier's verdict as the trace's only reward
  (``desktop_verifier``, weight 1): the rubric is our verifier.
- :class:`DesktopChatHarness` is the agent: a chat loop run in-process (no ``uv`` program to
  install), one completion per turn through the rollout's interception endpoint, so verifiers
  records every model call, its tokens and its sampling as usual.

Limits: actions travel as reply text, not as MCP tools (the env holds the desktop, so no session
id has to be injected into tool calls); text observations only (no screenshots in the exchange).
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import httpx
import verifiers.v1 as vf
from pydantic import Field
from verifiers.v1.runtimes import ProgramResult

from desktop_gym.train.adapters.episode import (
    DesktopEpisode,
    EnvSource,
    source_from_environment,
    task_rows,
)
from desktop_gym.train.adapters.prompting import AdapterPrompt

TESTED_VERSION = "0.4.0"
TASKSET_ID = "desktop_gym_verifiers"
"""The id verifiers resolves this module by (``--env.taskset.id``); an alias in ``sys.modules``."""
REWARD_NAME = "desktop_verifier"
MAX_COMPLETION_SECONDS = 600.0
"""The longest one model call may take (the local CPU model is slow, not stuck)."""
__all__ = [
    "DesktopChatHarness",
    "DesktopChatHarnessConfig",
    "DesktopData",
    "DesktopEnvConfig",
    "DesktopGymEnv",
    "DesktopTask",
    "DesktopTaskset",
    "DesktopTasksetConfig",
]


sys.modules.setdefault(TASKSET_ID, sys.modules[__name__])


class DesktopTasksetConfig(vf.TasksetConfig):
    """Which desktop tasks a run plays, and where their desktops come from."""

    task_ids: list[str] = Field(default_factory=lambda: ["calc.enter_value"], min_length=1, max_length=10_000)
    """Task ids from the registry (``desktop-gym tasks list``)."""
    seeds: list[int] = Field(default_factory=lambda: [0], min_length=1, max_length=10_000)
    """Every task is played with every seed."""
    source: str = ""
    """An ``EnvSource`` as JSON (env options or an env server address); empty: ``$DESKTOP_GYM_SOURCE``,
    else a desktop in this process."""
    max_turns: int = Field(8, ge=1, le=200)
    """Model replies per episode at most (the env's own ``max_steps`` also ends an episode)."""
    tools: list[str] | None = Field(None, max_length=1000)
    """Describe only these actions in the system prompt (``"CalcTools__set_cell_value"``, ``"DONE"``,
    ...; a short prompt for small models); None describes everything the env offers."""
    prefill: str = Field("", max_length=1000)
    """The start of every answer (``PromptConfig.prefill``, e.g. ``CalcTools.set_cell_value(cell="``):
    sent as a final assistant message that the endpoint continues (vLLM: ``continue_final_message``;
    ``desktop-gym llm serve`` does so by itself); the action played is the prefill plus the reply."""
    system_role: str | None = Field(None, max_length=8000)
    """The system prompt's first paragraph (None: the prompt builder's ``SYSTEM_ROLE``)."""
    actions_text: str | None = Field(None, max_length=8000)
    """Replaces the generated action list in the system prompt (``DEMO_ACTIONS``: one call with an example)."""

    def adapter_prompt(self) -> AdapterPrompt:
        """The tool filter, role, action text and prefill as the other adapters take them."""
        tools = tuple(self.tools) if self.tools is not None else None
        return AdapterPrompt(tools, self.prefill, self.system_role, self.actions_text)

    def env_source(self) -> EnvSource:
        """The :class:`EnvSource` this config names."""
        return EnvSource.from_json(self.source) if self.source else source_from_environment()


class DesktopData(vf.TaskData):
    """One row: the task id and the seed its desktop is reset with."""

    task_id: str
    seed: int = 0
    prefill: str = ""


class DesktopTask(vf.Task[DesktopData, vf.State, vf.TaskConfig]):
    """A desktop task (its reward is recorded by :class:`DesktopGymEnv`)."""


class DesktopTaskset(vf.Taskset[DesktopTask, DesktopTasksetConfig]):
    """One prompt-less task per ``(task_id, seed)``; the env's first observation opens the exchange."""

    def load(self) -> Iterator[DesktopTask]:
        """Yield the tasks (task ids are checked to exist; no desktop is started)."""
        source = self.config.env_source()
        prompt = self.config.adapter_prompt()
        for row in task_rows(self.config.task_ids, self.config.seeds):
            yield DesktopTask(
                DesktopData(
                    name=f"{row['task_id']}#{row['seed']}",
                    prompt=None,
                    system_prompt=prompt.system([row["task_id"]], source),
                    task_id=row["task_id"],
                    seed=row["seed"],
                    prefill=self.config.prefill,
                ),
                self.config.task,
            )


class DesktopChatHarnessConfig(vf.HarnessConfig):
    """The in-process chat loop's settings."""

    max_tokens: int = Field(64, ge=1, le=8192)
    """Tokens per reply at most (one action is short)."""
    temperature: float | None = Field(None, ge=0, le=2)
    """Sampling temperature (None: the endpoint's default)."""
    sampling_seed: int | None = Field(None, ge=0, le=2**31 - 1)
    """Sent as each request's ``seed``, plus the task seed (episodes differ, a run repeats); None: unseeded."""


class DesktopChatHarness(vf.Harness[DesktopChatHarnessConfig]):
    """A tool-less chat loop run in-process: one completion through the interception per segment."""

    APPENDS_SYSTEM_PROMPT = True
    SUPPORTS_RESUME = True
    EXECUTES_CODE = False
    NEEDS_CONTAINER = False

    async def launch(
        self,
        ctx: vf.ModelContext,
        trace: vf.Trace,
        runtime: vf.Runtime,
        endpoint: str,
        secret: str,
        mcp_urls: dict[str, str],
        data: vf.TaskData,
        tool_interception_url: str | None = None,
    ) -> ProgramResult:
        """Ask the model for one reply to the conversation so far (verifiers records it on ``trace``)."""
        system, prompt = self.resolve_prompt(data)
        messages = _wire_messages(system, prompt)
        prefill = getattr(data, "prefill", "")
        if prefill:
            messages.append({"role": "assistant", "content": prefill})
        body = {"model": ctx.model, "messages": messages, "max_tokens": self.config.max_tokens}
        if self.config.temperature is not None:
            body["temperature"] = self.config.temperature
        if self.config.sampling_seed is not None:
            body["seed"] = self.config.sampling_seed + int(getattr(data, "seed", 0))
        async with httpx.AsyncClient(timeout=MAX_COMPLETION_SECONDS) as client:
            response = await client.post(
                f"{endpoint.rstrip('/')}/chat/completions",
                json=body,
                headers={"Authorization": f"Bearer {secret}"},
            )
        if response.status_code != 200:
            return ProgramResult(exit_code=1, stdout="", stderr=f"HTTP {response.status_code}: {response.text[:2000]}")
        return ProgramResult(exit_code=0, stdout=response.text[:2000], stderr="")


class DesktopEnvConfig(vf.EnvConfig):
    """The env's one seat: the policy that operates the desktop."""

    player: vf.AgentConfig = vf.AgentConfig(
        harness=DesktopChatHarnessConfig(id=TASKSET_ID), runtime=vf.SubprocessConfig()
    )
    """Our chat harness, run in this process's host (verifiers' defaults are its ``bash`` harness in
    Prime's cloud sandbox); so ``vf-eval desktop_gym_verifiers`` needs no harness flags."""


class DesktopGymEnv(vf.Env[DesktopEnvConfig]):
    """One desktop episode per rollout; the reward is the task verifier's."""

    async def run(self, task: DesktopTask, agents: vf.Agents) -> None:
        """Play ``task`` on a fresh desktop episode and record the verifier's reward on the trace."""
        config = self.taskset.config
        episode = DesktopEpisode(config.env_source())
        try:
            first = await asyncio.to_thread(episode.start, task.data.task_id, task.data.seed)
            async with agents.player.interaction(task) as interaction:
                trace = interaction.trace
                segment = await interaction.turn(first)
                turns = 1
                while not segment.terminated and not trace.errors:
                    action = (task.data.prefill + segment.last_reply) or "DONE()"
                    outcome = await asyncio.to_thread(episode.act, action)
                    if outcome.done or turns >= config.max_turns:
                        break
                    segment = await interaction.turn(outcome.text)
                    turns += 1
                # A failed model call (an endpoint outage, a harness crash) is the trace's error, not the
                # agent's move: the desktop is not judged, and no reward is recorded (never a 0).
                scored = not trace.errors
                if scored:
                    reward = await asyncio.to_thread(episode.finish)
            if scored:
                trace.record_reward(REWARD_NAME, float(reward), 1.0)
            trace.info["desktop"] = {
                "task_id": task.data.task_id,
                "seed": task.data.seed,
                "steps": episode.steps,
                "success": episode.success if scored else None,
                "scored": scored,
                "summary": episode.summary() if scored else f"Not scored: {_error_text(trace.errors[-1])}",
            }
        finally:
            await asyncio.to_thread(episode.close)


def _error_text(error: Any) -> str:
    """One line naming a trace error (its type and message)."""
    return f"{getattr(error, 'type', type(error).__name__)}: {getattr(error, 'message', error)}"[:500]


def _wire_messages(system: str | None, prompt: Any) -> list[dict[str, Any]]:
    """The OpenAI chat messages for a resolved system prompt and prompt (text or ``Messages``)."""
    messages: list[dict[str, Any]] = [{"role": "system", "content": system}] if system else []
    if isinstance(prompt, str):
        return [*messages, {"role": "user", "content": prompt}]
    for message in prompt or []:
        wire = message if isinstance(message, dict) else message.model_dump(exclude_none=True)
        messages.append({"role": wire["role"], "content": _text_content(wire.get("content"))})
    return messages


def _text_content(content: Any) -> str:
    """Message content as plain text (text parts joined; this harness sends no images)."""
    if content is None or isinstance(content, str):
        return content or ""
    return "".join(part.get("text", "") for part in content if isinstance(part, dict))


def load_environment(**kwargs: Any) -> DesktopGymEnv:
    """The verifiers env over desktops (the name verifiers' environment packages use for their entry point).

    Takes the keyword arguments of :func:`env_config` (task ids, seeds, source, turn and token caps, tools).
    """
    return DesktopGymEnv(env_config(**kwargs))


def env_config(
    task_ids: Sequence[str] = ("calc.enter_value",),
    seeds: Sequence[int] = (0,),
    source: EnvSource | None = None,
    max_turns: int = 8,
    max_tokens: int = 64,
    tools: Sequence[str] | None = None,
    prefill: str = "",
    temperature: float | None = None,
    prompt: AdapterPrompt | None = None,
    sampling_seed: int | None = None,
) -> DesktopEnvConfig:
    """The ``DesktopEnvConfig`` of :func:`load_environment` (for verifiers' ``EvalConfig.env``).

    Args:
        task_ids: registry task ids to play.
        seeds: seeds each task is played with.
        source: where desktops come from (default ``$DESKTOP_GYM_SOURCE``, else in-process).
        max_turns: model replies per episode at most.
        max_tokens: tokens per reply at most.
        tools: describe only these actions in the system prompt (see ``DesktopTasksetConfig.tools``).
        prefill: the start of every answer (see ``DesktopTasksetConfig.prefill``).
        temperature: the sampling temperature (None: the endpoint's default).
        prompt: tool filter, role, action text and prefill in one (``AdapterPrompt.demo()``); not
            together with ``tools`` or ``prefill``.
        sampling_seed: each request's ``seed`` is this plus the task seed (None: unseeded).

    Raises:
        ValueError: ``prompt`` given beside ``tools`` or ``prefill``.
    """
    if prompt is not None:
        if tools is not None or prefill:
            raise ValueError("env_config: give tools and prefill through prompt, not beside it")
        tools, prefill = prompt.tools, prompt.prefill
    taskset = DesktopTasksetConfig(
        id=TASKSET_ID,
        task_ids=list(task_ids),
        seeds=list(seeds),
        source=source.to_json() if source is not None else "",
        max_turns=max_turns,
        tools=list(tools) if tools is not None else None,
        prefill=prefill,
        system_role=prompt.system_role if prompt else None,
        actions_text=prompt.actions_text if prompt else None,
    )
    harness = DesktopChatHarnessConfig(
        id=TASKSET_ID, max_tokens=max_tokens, temperature=temperature, sampling_seed=sampling_seed
    )
    return DesktopEnvConfig(taskset=taskset, player=vf.AgentConfig(harness=harness, runtime=vf.SubprocessConfig()))


def run_desktop_eval(
    env: DesktopEnvConfig,
    *,
    base_url: str,
    model: str,
    output_dir: Path,
    rollouts_per_task: int = 1,
    api_key_variable: str = "OPENAI_API_KEY",
) -> list[vf.Episode]:
    """Run verifiers' own ``run_eval`` on ``env`` against an OpenAI-compatible endpoint, locally (no push).

    Returns:
        The finished episodes; results are also written under ``output_dir`` (verifiers' layout).
    """
    from verifiers.v1.cli.eval.runner import run_eval
    from verifiers.v1.configs.cli.eval import EvalConfig

    config = EvalConfig.model_validate(
        {
            "env": env.model_dump(),
            "model": model,
            "client": {"type": "eval", "base_url": base_url, "api_key_var": api_key_variable},
            "num_rollouts": rollouts_per_task,
            "push": False,
            "rich": None,
            "output_dir": str(output_dir),
        }
    )
    return asyncio.run(run_eval(config))


def episode_rewards(episodes: Sequence[vf.Episode]) -> list[dict[str, Any]]:
    """Per episode: the task, its verifier reward (None when not scored), model turns and errors (for logs)."""
    rows = []
    for episode in episodes:
        trace = episode.traces[0] if episode.traces else None
        rows.append(
            {
                "task": episode.task.data.name,
                "reward": trace.rewards[REWARD_NAME].score if trace and REWARD_NAME in trace.rewards else None,
                "turns": trace.num_turns if trace else 0,
                "desktop": trace.info.get("desktop") if trace else None,
                "errors": [
                    json.loads(error.model_dump_json()) for error in [*episode.errors, *(trace.errors if trace else [])]
                ],
            }
        )
    return rows
