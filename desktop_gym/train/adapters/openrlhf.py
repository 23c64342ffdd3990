"""OpenRLHF adapter: an ``AgentExecutor`` file for ``--train.agent_func_path``.

Tested with openrlhf 0.11.2. OpenRLHF loads the file by path and instantiates its
``AgentExecutor`` (a ``MultiTurnAgentExecutor`` over :class:`DesktopAgentInstance`) inside each
vLLM engine actor; every prompt gets its own instance, i.e. its own desktop episode::

    python -m openrlhf.cli.train_ppo_ray ... \\
        --train.agent_func_path "$(python -c 'import desktop_gym.train.adapters.openrlhf as m; print(m.__file__)')" \\
        --data.input_key prompt --data.label_key label   # rows from openrlhf_rows(): the label names the task

Configuration travels in environment variables (OpenRLHF builds instances without arguments):
``DESKTOP_GYM_SOURCE`` (an :class:`EnvSource` as JSON: env options or an env server address) and
``DESKTOP_GYM_PROMPT`` (an ``AdapterPrompt`` as JSON: the tools the system prompt describes, the
role, the action text, the prefill; ``AdapterPrompt.demo()`` is the learning demo's) and
``DESKTOP_GYM_PREFILL`` (the start of every answer, e.g. ``CalcTools.set_cell_value(cell="``).

``reset`` plays the row's task and returns the first prompt (system prompt with the offered
actions, then the observation) rendered with the tokenizer's chat template; ``step`` plays the
model's text as one action and returns the verifier's reward when the episode ends (OpenRLHF sums
rewards per episode), the next observation as the environment feedback (a user turn, then the
assistant turn opened again), ``done``, extra logs, and the screenshot as ``environment_images``
when the observation includes one. The dataset's own prompt text is not used: the desktop gives
the prompt. Absolute imports only: OpenRLHF executes this file outside its package.

An answer cut by the token budget (no end-of-turn token) is closed before the next user turn:
the feedback then starts with what the chat template writes after an assistant message
(``<|im_end|>\n`` in ChatML), so the sequence never reads ``...text\n<|im_start|>user``. The
executor records each answer's token ids (through a thin wrapper around OpenRLHF's engine) for
the instance to see how it ended.
"""

from __future__ import annotations

import asyncio
import contextvars
import json
from collections.abc import Iterable, Sequence
from typing import Any

import torch
from openrlhf.utils.agent import AgentInstanceBase, MultiTurnAgentExecutor

from desktop_gym.train.adapters.episode import (
    PREFILL_VARIABLE,
    SOURCE_VARIABLE,
    screenshot_image,
    source_from_environment,
    task_rows,
)
from desktop_gym.train.adapters.pool import DESKTOP_POOL
from desktop_gym.train.adapters.prompting import PROMPT_VARIABLE, prompt_from_environment

TESTED_VERSION = "0.11.2"
__all__ = [
    "PREFILL_VARIABLE",
    "PROMPT_VARIABLE",
    "SOURCE_VARIABLE",
    "AgentExecutor",
    "DesktopAgentInstance",
    "openrlhf_rows",
    "parse_label",
]


_ANSWERS: contextvars.ContextVar[list[list[int]]] = contextvars.ContextVar("desktop_gym_openrlhf_answers")
"""The token ids of each answer of the episode the current ``AgentExecutor.execute`` call runs."""


def openrlhf_rows(task_ids: Sequence[str], seeds: Iterable[int] = (0,)) -> list[dict[str, str]]:
    """Dataset rows for OpenRLHF (``--data.input_key prompt --data.label_key label``).

    The label carries the task and seed as JSON; the prompt is the task id (the desktop writes the
    real prompt in ``reset``).
    """
    return [{"prompt": row["task_id"], "label": json.dumps(row)} for row in task_rows(task_ids, seeds)]


def parse_label(label: Any) -> tuple[str, int]:
    """``(task_id, seed)`` from a row's label.

    Raises:
        ValueError: not JSON with a string ``task_id`` (and an integer ``seed``, default 0).
    """
    try:
        data = json.loads(label) if isinstance(label, str) else label
    except json.JSONDecodeError as error:
        raise ValueError(f"label must be JSON like {{'task_id': ..., 'seed': ...}}: {error}") from None
    if not isinstance(data, dict) or not isinstance(data.get("task_id"), str):
        raise ValueError(f"label must be a JSON object with a string 'task_id', got {label!r}")
    seed = data.get("seed", 0)
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise ValueError(f"label field 'seed' must be an integer, got {seed!r}")
    return data["task_id"], seed


class DesktopAgentInstance(AgentInstanceBase):
    """One prompt's desktop episode, driven by OpenRLHF's ``MultiTurnAgentExecutor``."""

    tokenizer: Any = None  # set by AgentExecutor.execute: OpenRLHF builds instances without arguments

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.source = source_from_environment()
        self.prompt = prompt_from_environment()
        self.prefill = self.prompt.prefill
        self.episode = DESKTOP_POOL.acquire(self.source)  # a kept desktop, reset for this prompt

    async def reset(self, states: dict, **kwargs: Any) -> dict:
        """Start the labelled task; the observation is the chat-templated first prompt."""
        task_id, seed = parse_label(states["label"])
        self.system = self.prompt.system([task_id], self.source, self.episode.prompt)
        text = await asyncio.to_thread(self.episode.start, task_id, seed)
        rendered = self._render([{"role": "system", "content": self.system}, {"role": "user", "content": text}])
        return {"observation": rendered + self.prefill}

    async def step(self, states: dict, **kwargs: Any) -> dict:
        """Play the model's answer as one action; the feedback is the next user turn."""
        action = self.prefill + states["action_text"]
        outcome = await asyncio.to_thread(self.episode.act, action)
        feedback = "" if outcome.done else self._close_answer() + self._turn(outcome.text) + self.prefill
        success, steps = self.episode.success, self.episode.steps
        if outcome.done:  # OpenRLHF drops the instance after the episode: give its desktop back now
            self._release()
        images = None
        if outcome.screenshot is not None and not outcome.done:
            images = [screenshot_image(outcome.screenshot)]
        return {
            "rewards": torch.tensor(outcome.reward if outcome.done else 0.0),
            "scores": torch.tensor(outcome.reward if outcome.done else 0.0),
            "environment_feedback": feedback,
            "environment_images": images,
            "done": outcome.done,
            "sampling_params": states.get("sampling_params"),
            "extra_logs": {
                "success": torch.tensor(float(bool(success))),
                "steps": torch.tensor(float(steps)),
                "action_error": torch.tensor(float(bool(outcome.info.get("action_error")))),
            },
        }

    def _release(self) -> None:
        """Give the desktop back to the pool (once); the next prompt's ``reset`` starts a new episode."""
        episode, self.episode = getattr(self, "episode", None), None
        if episode is not None:
            DESKTOP_POOL.release(episode)

    def __del__(self) -> None:
        # An episode cut short by OpenRLHF's token budget never sees done: give its desktop back here.
        self._release()

    def _render(self, messages: list[dict[str, Any]]) -> str:
        if self.tokenizer is None:
            raise RuntimeError("DesktopAgentInstance.tokenizer is unset: run it through AgentExecutor.execute")
        return self.tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)

    def _close_answer(self) -> str:
        """What must follow the last answer to end the assistant turn as the template ends it.

        The template's closing (ChatML: ``<|im_end|>\n``) less the end-of-turn token when the
        model wrote it; the whole closing when the answer was cut (no end-of-turn token came).
        """
        closing = self._assistant_closing()
        answers = _ANSWERS.get(None)
        last = self.tokenizer.decode(answers[-1][-1:]) if answers and answers[-1] else ""
        return closing[len(last) :] if last and closing.startswith(last) else closing

    def _assistant_closing(self) -> str:
        """The text the chat template writes after an assistant message's content."""
        marker = "\x00desktop-gym-answer\x00"
        chat = [{"role": "user", "content": "x"}, {"role": "assistant", "content": marker}]
        rendered = self.tokenizer.apply_chat_template(chat, tokenize=False)
        return rendered.split(marker, 1)[1] if marker in rendered else "\n"

    def _turn(self, text: str) -> str:
        """The user turn with ``text``, then the assistant turn opened (what the template writes for them)."""
        system = [{"role": "system", "content": self.system}]
        head = self.tokenizer.apply_chat_template(system, tokenize=False)
        full = self._render([*system, {"role": "user", "content": text}])
        return full[len(head) :] if full.startswith(head) else full


class AgentExecutor(MultiTurnAgentExecutor):
    """The class OpenRLHF looks up in ``--train.agent_func_path``: one desktop episode per prompt."""

    def __init__(self) -> None:
        super().__init__(DesktopAgentInstance)

    async def execute(self, prompt, label, sampling_params, max_length: int, hf_tokenizer, llm_engine, images=None):  # noqa: ANN001, ANN201 - OpenRLHF's signature
        DesktopAgentInstance.tokenizer = hf_tokenizer
        answers: list[list[int]] = []
        _ANSWERS.set(answers)  # this call's task only: concurrent episodes keep their own lists
        engine = _RecordingEngine(llm_engine, answers)
        return await super().execute(prompt, label, sampling_params, max_length, hf_tokenizer, engine, images)


class _RecordingEngine:
    """OpenRLHF's engine, with each answer's token ids kept for the agent instance."""

    def __init__(self, engine: Any, answers: list[list[int]]) -> None:
        self._engine = engine
        self._answers = answers

    async def generate(self, prompt_token_ids: list[int], sampling_params: Any, multi_modal_data: Any = None) -> Any:
        output = await self._engine.generate(prompt_token_ids, sampling_params, multi_modal_data=multi_modal_data)
        self._answers.append(list(output.outputs[0].token_ids))
        return output

    def __getattr__(self, name: str) -> Any:
        return getattr(self._engine, name)
