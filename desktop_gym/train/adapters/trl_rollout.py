"""TRL's second path: ``GRPOTrainer(rollout_func=...)`` playing whole desktop episodes per completion.

Tested with trl 1.16.0 (``rollout_func`` is experimental there: ``(prompts, trainer) -> dict``).
Where ``environment_factory`` (``desktop_gym.train.adapters.trl``) lets TRL drive tool calls,
here the adapter owns the episode: for each prompt it resets a desktop, samples the model's answer
with the trainer's own model, plays it as one action, appends the next observation as a user turn,
and repeats until the episode ends. It returns what TRL asks for::

    prompt_ids, completion_ids, logprobs  # the whole multi-turn exchange as one completion
    env_mask                              # 1 on model tokens, 0 on observation tokens (not trained on)
    desktop_reward                        # the task verifier's verdict, forwarded to reward functions

Use it with the rows of :func:`rollout_dataset` (the task and seed travel in the prompt, the only
thing TRL hands a ``rollout_func``) and :func:`desktop_reward` as the reward function::

    rollout = DesktopRolloutFunc(EnvSource(options={"action_mode": "api"}), max_turns=4)
    trainer = GRPOTrainer(model=..., args=GRPOConfig(...), processing_class=tokenizer,
                          train_dataset=rollout_dataset(["calc.enter_value"], seeds=range(8)),
                          rollout_func=rollout, reward_funcs=desktop_reward)

Limits: generation is the trainer's model in this process, one token sequence at a time (no vLLM
server mode yet); text observations only; the model's chat template must be ChatML-like
(``apply_chat_template`` renders the turns).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from desktop_gym.train.adapters.episode import DesktopEpisode, EnvSource, describe_actions, task_rows
from desktop_gym.train.adapters.standins import StandInGenerator
from desktop_gym.train.prompts import system_prompt

TESTED_VERSION = "1.16.0"
ROW_MARKER = "desktop-gym task: "
"""The user turn of a :func:`rollout_dataset` prompt: this marker, then the row as JSON."""
_ROW = re.compile(re.escape(ROW_MARKER) + r"(\{.*?\})")
MAX_TURNS_CAP = 64


def rollout_dataset(task_ids: Sequence[str], seeds: Iterable[int] = (0,)) -> Any:
    """A ``datasets.Dataset`` whose ``prompt`` names a task and seed (every task with every seed)."""
    from datasets import Dataset

    rows = task_rows(task_ids, seeds)
    return Dataset.from_list([{"prompt": [{"role": "user", "content": ROW_MARKER + json.dumps(row)}]} for row in rows])


def parse_rollout_prompt(prompt: Any) -> tuple[str, int]:
    """``(task_id, seed)`` from a :func:`rollout_dataset` prompt (messages or text).

    Raises:
        ValueError: the prompt carries no row marker, or its row lacks a string ``task_id`` or an
            integer ``seed`` (names the field).
    """
    if isinstance(prompt, list):
        prompt = "\n".join(str(message.get("content", "")) for message in prompt if isinstance(message, dict))
    found = _ROW.search(str(prompt))
    if not found:
        raise ValueError(f"prompt has no {ROW_MARKER!r} row (build the dataset with rollout_dataset): {prompt!r:.200}")
    row = json.loads(found.group(1))
    if not isinstance(row.get("task_id"), str):
        raise ValueError(f"prompt row field 'task_id' must be a string, got {row.get('task_id')!r}")
    if not isinstance(row.get("seed"), int) or isinstance(row.get("seed"), bool):
        raise ValueError(f"prompt row field 'seed' must be an integer, got {row.get('seed')!r}")
    return row["task_id"], row["seed"]


@contextmanager
def _generation_mode(model: Any) -> Iterator[None]:
    """Eval mode with the KV cache on while sampling (TRL turns the cache off for gradient checkpointing)."""
    was_training = model.training
    config = getattr(model, "config", None)
    use_cache = getattr(config, "use_cache", None)
    model.eval()
    if config is not None:
        config.use_cache = True
    try:
        yield
    finally:
        if config is not None:
            config.use_cache = use_cache
        if was_training:
            model.train()


def desktop_reward(completions: list[Any], desktop_reward: list[float], **_: Any) -> list[float]:
    """TRL reward function: the task verifier's verdicts that :class:`DesktopRolloutFunc` returned."""
    if len(desktop_reward) != len(completions):
        raise ValueError(f"desktop_reward has {len(desktop_reward)} values for {len(completions)} completions")
    return [float(value) for value in desktop_reward]


class DesktopRolloutFunc:
    """A TRL ``rollout_func``: one desktop episode per prompt, generated with the trainer's model.

    Args:
        source: where desktops come from (in-process env options or an env server).
        max_turns: model answers per episode at most (the env's ``max_steps`` also ends it).
        max_new_tokens: tokens per answer at most.
        temperature: sampling temperature (0: greedy).
        tools: describe only these actions in the system prompt (see ``describe_actions``).
    """

    def __init__(
        self,
        source: EnvSource,
        max_turns: int = 4,
        max_new_tokens: int = 32,
        temperature: float = 1.0,
        tools: Sequence[str] | None = None,
    ) -> None:
        if not 1 <= max_turns <= MAX_TURNS_CAP:
            raise ValueError(f"max_turns must be in 1..{MAX_TURNS_CAP}, got {max_turns}")
        self.source = source
        self.max_turns = max_turns
        self.max_new_tokens = max_new_tokens
        self.temperature = temperature
        self.tools = list(tools) if tools is not None else None
        self.episode = DesktopEpisode(source)
        self.rewards: list[float] = []
        self.verdicts: list[dict[str, Any] | None] = []

    def __call__(self, prompts: list[Any], trainer: Any) -> dict[str, list[Any]]:
        """Play one episode per prompt; returns TRL's fields plus ``env_mask`` and ``desktop_reward``."""
        tokenizer = trainer.processing_class
        model = trainer.model
        generator = StandInGenerator(model, tokenizer)
        out: dict[str, list[Any]] = {key: [] for key in ("prompt_ids", "completion_ids", "logprobs", "env_mask")}
        out["desktop_reward"] = []
        with _generation_mode(model):
            for prompt in prompts:
                self._play(prompt, tokenizer, generator, out)
        return out

    def _play(self, prompt: Any, tokenizer: Any, generator: StandInGenerator, out: dict[str, list[Any]]) -> None:
        """One episode for ``prompt``, appended to ``out``."""
        prompt_ids, completion, logprobs, mask = self._episode(prompt, tokenizer, generator)
        out["prompt_ids"].append(prompt_ids)
        out["completion_ids"].append(completion)
        out["logprobs"].append(logprobs)
        out["env_mask"].append(mask)
        out["desktop_reward"].append(self.episode.reward)
        self.rewards.append(self.episode.reward)
        self.verdicts.append(self.episode.verifier)

    def _episode(
        self, prompt: Any, tokenizer: Any, generator: StandInGenerator
    ) -> tuple[list[int], list[int], list[float], list[int]]:
        task_id, seed = parse_rollout_prompt(prompt)
        first = self.episode.start(task_id, seed)
        messages = [
            {"role": "system", "content": system_prompt(describe_actions([task_id], self.source, self.tools))},
            {"role": "user", "content": first},
        ]
        text = tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)
        prompt_ids = list(tokenizer(text, add_special_tokens=False)["input_ids"])
        completion: list[int] = []
        logprobs: list[float] = []
        mask: list[int] = []
        for _turn in range(self.max_turns):
            sample = generator.sample(prompt_ids + completion, self.max_new_tokens, temperature=self.temperature)
            completion += sample.token_ids
            logprobs += sample.logprobs
            mask += [1] * len(sample.token_ids)
            answer = tokenizer.decode(sample.token_ids, skip_special_tokens=True).strip()
            outcome = self.episode.act(answer or "DONE()")
            if outcome.done:
                break
            feedback = self._feedback_ids(tokenizer, outcome.text, ended=sample.finish_reason == "stop")
            completion += feedback
            logprobs += [0.0] * len(feedback)
            mask += [0] * len(feedback)
        self.episode.finish()
        return prompt_ids, completion, logprobs, mask

    @staticmethod
    def _feedback_ids(tokenizer: Any, text: str, ended: bool) -> list[int]:
        """The observation as a ChatML user turn, then the assistant turn opened again."""
        close = "" if ended else "<|im_end|>"
        turn = f"{close}\n<|im_start|>user\n{text}<|im_end|>\n<|im_start|>assistant\n"
        return list(tokenizer(turn, add_special_tokens=False)["input_ids"])

    def close(self) -> None:
        """Close the desktop."""
        self.episode.close()
