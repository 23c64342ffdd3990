"""TRL's second path: ``GRPOTrainer(rollout_func=...)`` playing whole desktop episodes per completion.

Tested with trl 1.16.0 (``rollout_func`` is experimental there: ``(prompts, trainer) -> dict``).
Where ``environment_factory`` (``desktop_gym.train.adapters.trl``) lets TRL drive tool calls,
here the adapter owns the episode: for each prompt it resets a desktop, samples the model's answer
with the trainer's own model, plays it as one action, appends the next observation as a user turn,
and repeats until the episode ends. It returns what TRL asks for::

    prompt_ids, completion_ids, logprobs  # the whole multi-turn exchange as one completion
    env_mask                              # 1 on model tokens, 0 on observation and prefill tokens
    desktop_reward                        # the task verifier's verdict, forwarded to reward functions
    step_rewards                          # ComputerRL's per-step rewards (1 per well-formed step of a
                                          # successful episode), forwarded to reward functions

Use it with the rows of :func:`rollout_dataset` (the task and seed travel in the prompt, the only
thing TRL hands a ``rollout_func``) and :func:`desktop_reward` as the reward function::

    rollout = DesktopRolloutFunc(EnvSource(options={"action_mode": "api"}), max_turns=4)
    trainer = GRPOTrainer(model=..., args=GRPOConfig(...), processing_class=tokenizer,
                          train_dataset=rollout_dataset(["calc.enter_value"], seeds=range(8)),
                          rollout_func=rollout, reward_funcs=desktop_reward)

With ``prefill`` (``PromptConfig.prefill``'s meaning, e.g. ``CalcTools.set_cell_value(cell="``)
every assistant turn opens with that text and the action played is ``prefill + answer``; the
prefill tokens carry ``env_mask`` 0 (the model did not choose them).

Per-step rewards: TRL 1.16.0 forwards every extra key of the output to the reward functions, one
value per completion (a list is fine), so ``step_rewards`` reaches them; but a reward function
returns one scalar per completion and GRPO's advantage is one number per sequence, broadcast over
its tokens: there is no per-token or per-step reward input. :func:`desktop_step_reward` turns the
per-step rewards into that scalar (their mean); true step-level GRPO runs in desktop-gym's trainer.

Limits: generation is the trainer's model in this process, one token sequence at a time (no vLLM
server mode yet); text observations only; the model's chat template must be ChatML-like
(``apply_chat_template`` renders the turns).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, Protocol

from desktop_gym.llm.generation import chat_prompt
from desktop_gym.train.adapters.episode import DesktopEpisode, EnvSource, task_rows
from desktop_gym.train.adapters.prompting import AdapterPrompt
from desktop_gym.train.adapters.standins import StandInGenerator, StandInSample
from desktop_gym.train.rollout import well_formed_checker

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


def desktop_step_reward(completions: list[Any], step_rewards: list[list[float]], **_: Any) -> list[float]:
    """TRL reward function: the mean of ComputerRL's per-step rewards of each episode (0 for no steps)."""
    if len(step_rewards) != len(completions):
        raise ValueError(f"step_rewards has {len(step_rewards)} values for {len(completions)} completions")
    return [sum(steps) / len(steps) if steps else 0.0 for steps in step_rewards]


class Sampler(Protocol):
    """What generates one answer: ``StandInGenerator`` over the trainer's model, or a scripted stand-in."""

    def sample(self, prompt_ids: Sequence[int], max_new_tokens: int, temperature: float = 1.0) -> StandInSample:
        """Continue ``prompt_ids`` by at most ``max_new_tokens`` tokens."""
        ...


class TrainerVllmSampler:
    """Answers with the trainer's vLLM (``GRPOTrainer.vllm_generation``), one prompt at a time.

    Args:
        trainer: a ``GRPOTrainer`` built with ``use_vllm=True``.
        end_ids: token ids that end an answer (the tokenizer's end of turn).
    """

    def __init__(self, trainer: Any, end_ids: Iterable[int]) -> None:
        self.generation = trainer.vllm_generation
        self.end_ids = set(end_ids)

    def sample(self, prompt_ids: Sequence[int], max_new_tokens: int, temperature: float = 1.0) -> StandInSample:
        """One answer to ``prompt_ids`` (vLLM uses the trainer's sampling settings), cut to ``max_new_tokens``."""
        _, completions, logprobs, _ = self.generation.generate(
            prompts=[list(prompt_ids)], images=None, num_generations=1
        )
        ids = [int(token) for token in completions[0][:max_new_tokens]]
        values = [float(top[0]) for top in logprobs[0][: len(ids)]]  # the sampled token's, as TRL keeps it
        ended = bool(ids) and ids[-1] in self.end_ids
        return StandInSample(ids, values, "stop" if ended else "length")


def sampler_for(trainer: Any, tokenizer: Any) -> Sampler:
    """The trainer's vLLM when it was built with ``use_vllm=True``, else its model through transformers."""
    if getattr(trainer, "use_vllm", False):
        ends = {tokenizer.eos_token_id, tokenizer.convert_tokens_to_ids("<|im_end|>")}
        return TrainerVllmSampler(trainer, {token for token in ends if isinstance(token, int) and token >= 0})
    return StandInGenerator(trainer.model, tokenizer)


class DesktopRolloutFunc:
    """A TRL ``rollout_func``: one desktop episode per prompt, generated with the trainer's model.

    Args:
        source: where desktops come from (in-process env options or an env server).
        max_turns: model answers per episode at most (the env's ``max_steps`` also ends it).
        max_new_tokens: tokens per answer at most.
        temperature: sampling temperature (0: greedy).
        tools: describe only these actions in the system prompt (see ``describe_actions``).
        prefill: the start of every answer (``PromptConfig.prefill``), or None.
        prompt: tool filter, role, action text and prefill in one (``AdapterPrompt.demo()`` is the
            learning demo's); not together with ``tools`` or ``prefill``.
        sampler: answers instead of the trainer's model (tests plug a scripted stand-in here); None
            samples from the trainer's vLLM when it has one, else from ``trainer.model``.
    """

    def __init__(
        self,
        source: EnvSource,
        max_turns: int = 4,
        max_new_tokens: int = 32,
        temperature: float = 1.0,
        tools: Sequence[str] | None = None,
        prefill: str | None = None,
        sampler: Sampler | None = None,
        prompt: AdapterPrompt | None = None,
    ) -> None:
        if not 1 <= max_turns <= MAX_TURNS_CAP:
            raise ValueError(f"max_turns must be in 1..{MAX_TURNS_CAP}, got {max_turns}")
        if prompt is not None and (tools is not None or prefill is not None):
            raise ValueError("DesktopRolloutFunc: give tools and prefill through prompt, not beside it")
        self.prompt = prompt or AdapterPrompt(tools=tools, prefill=prefill or "")
        self.source = source
        self.max_turns = max_turns
        self.max_new_tokens = max_new_tokens
        self.temperature = temperature
        self.tools = list(self.prompt.tools) if self.prompt.tools is not None else None
        self.prefill = self.prompt.prefill
        self.sampler = sampler
        self.episode = DesktopEpisode(source)
        self.rewards: list[float] = []
        self.step_rewards: list[list[float]] = []
        self.actions: list[list[str]] = []
        self.verdicts: list[dict[str, Any] | None] = []

    def __call__(self, prompts: list[Any], trainer: Any) -> dict[str, list[Any]]:
        """Play one episode per prompt; returns TRL's fields plus ``env_mask`` and ``desktop_reward``."""
        tokenizer = trainer.processing_class
        model = trainer.model
        generator = self.sampler or sampler_for(trainer, tokenizer)
        keys = ("prompt_ids", "completion_ids", "logprobs", "env_mask", "desktop_reward", "step_rewards")
        out: dict[str, list[Any]] = {key: [] for key in keys}
        with _generation_mode(model):
            for prompt in prompts:
                self._play(prompt, tokenizer, generator, out)
        return out

    def _play(self, prompt: Any, tokenizer: Any, generator: Sampler, out: dict[str, list[Any]]) -> None:
        """One episode for ``prompt``, appended to ``out``."""
        prompt_ids, completion, logprobs, mask, actions = self._episode(prompt, tokenizer, generator)
        well_formed = well_formed_checker(self.episode.env)
        # ComputerRL's rule (desktop_gym.train.rewards.computerrl_rewards) on this episode's actions.
        steps = [1.0 if self.episode.success and well_formed(action) else 0.0 for action in actions]
        out["prompt_ids"].append(prompt_ids)
        out["completion_ids"].append(completion)
        out["logprobs"].append(logprobs)
        out["env_mask"].append(mask)
        out["desktop_reward"].append(self.episode.reward)
        out["step_rewards"].append(steps)
        self.rewards.append(self.episode.reward)
        self.step_rewards.append(steps)
        self.actions.append(actions)
        self.verdicts.append(self.episode.verifier)

    def _episode(
        self, prompt: Any, tokenizer: Any, generator: Sampler
    ) -> tuple[list[int], list[int], list[float], list[int], list[str]]:
        task_id, seed = parse_rollout_prompt(prompt)
        first = self.episode.start(task_id, seed)
        messages = [
            {"role": "system", "content": self.prompt.system([task_id], self.source)},
            {"role": "user", "content": first},
        ]
        # The prompt builder's prefill, rendered as the trainer's own model path renders it.
        prompt_ids = list(
            tokenizer(chat_prompt(tokenizer, messages, prefill=self.prefill), add_special_tokens=False)["input_ids"]
        )
        completion: list[int] = []
        logprobs: list[float] = []
        mask: list[int] = []
        actions: list[str] = []
        for _turn in range(self.max_turns):
            sample = generator.sample(prompt_ids + completion, self.max_new_tokens, temperature=self.temperature)
            completion += sample.token_ids
            logprobs += sample.logprobs
            mask += [1] * len(sample.token_ids)
            answer = tokenizer.decode(sample.token_ids, skip_special_tokens=True)
            actions.append((self.prefill + answer).strip() or "DONE()")
            outcome = self.episode.act(actions[-1])
            if outcome.done:
                break
            feedback = self._feedback_ids(tokenizer, outcome.text, ended=sample.finish_reason == "stop")
            completion += feedback
            logprobs += [0.0] * len(feedback)
            mask += [0] * len(feedback)
        self.episode.finish()
        return prompt_ids, completion, logprobs, mask, actions

    def _feedback_ids(self, tokenizer: Any, text: str, ended: bool) -> list[int]:
        """The observation as a ChatML user turn, then the assistant turn opened again (with the prefill)."""
        close = "" if ended else "<|im_end|>"
        turn = f"{close}\n<|im_start|>user\n{text}<|im_end|>\n<|im_start|>assistant\n{self.prefill}"
        return list(tokenizer(turn, add_special_tokens=False)["input_ids"])

    def close(self) -> None:
        """Close the desktop."""
        self.episode.close()
