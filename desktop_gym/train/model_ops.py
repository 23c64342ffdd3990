"""Tokenization of training samples and per-token log-probs/entropy (the built-in trainer's model side).

A sample is one step: the chat the policy saw (prefill split off), the prefill, and the response
tokens. The prompt is templated exactly as generation templated it (``desktop_gym.llm``'s
``chat_prompt``), and the response keeps the token ids the policy sampled, so nothing is
re-tokenized between sampling and training. Steps recorded without token ids (behavior-cloning
data) are tokenized from their completion text plus the end-of-turn token.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .prompts import split_prefill
from .trajectory import Step

END_OF_TURN = "<|im_end|>"


@dataclass
class Sample:
    """One training sample: a step's prompt and response as token ids, and its advantage."""

    prompt_ids: list[int]
    response_ids: list[int]
    advantage: float = 0.0
    behavior_logprobs: list[float] | None = None
    policy_version: int = 0


def step_sample(tokenizer: Any, step: Step, advantage: float = 0.0, max_prompt_tokens: int = 1024) -> Sample:
    """The ``Sample`` of a recorded step (prompt left-truncated to ``max_prompt_tokens``)."""
    from ..llm.generation import chat_prompt

    messages, prefill = split_prefill(step.messages)
    prompt = chat_prompt(tokenizer, messages, prefill=prefill)
    prompt_ids = tokenizer(prompt, add_special_tokens=False)["input_ids"][-max_prompt_tokens:]
    token_ids = step.info.get("token_ids")
    if token_ids:
        response_ids = [int(t) for t in token_ids]
        behavior = step.logprobs if step.logprobs and len(step.logprobs) == len(response_ids) else None
    else:
        response_ids = tokenizer(step.completion + END_OF_TURN, add_special_tokens=False)["input_ids"]
        behavior = None
    return Sample(prompt_ids, response_ids, advantage, behavior, step.policy_version)


def batch_tensors(samples: Sequence[Sample], pad_id: int) -> dict[str, Any]:
    """Right-padded ``input_ids``/``attention_mask`` and a response mask aligned with next-token log-probs.

    ``response_mask[b, t]`` is 1 when token ``t + 1`` of row ``b`` is a response token, matching
    ``logits[:, :-1]`` predicting ``input_ids[:, 1:]``. ``behavior`` holds sampling log-probs at
    the same positions where ``behavior_known`` is 1.
    """
    import torch

    length = max(len(s.prompt_ids) + len(s.response_ids) for s in samples)
    input_ids = torch.full((len(samples), length), pad_id, dtype=torch.long)
    attention = torch.zeros((len(samples), length), dtype=torch.long)
    response = torch.zeros((len(samples), length - 1))
    behavior = torch.zeros((len(samples), length - 1))
    behavior_known = torch.zeros((len(samples), length - 1))
    for row, sample in enumerate(samples):
        ids = sample.prompt_ids + sample.response_ids
        input_ids[row, : len(ids)] = torch.tensor(ids)
        attention[row, : len(ids)] = 1
        start = len(sample.prompt_ids) - 1
        response[row, start : start + len(sample.response_ids)] = 1
        if sample.behavior_logprobs is not None:
            behavior[row, start : start + len(sample.response_ids)] = torch.tensor(sample.behavior_logprobs)
            behavior_known[row, start : start + len(sample.response_ids)] = 1
    advantages = torch.tensor([s.advantage for s in samples], dtype=torch.float32)
    return {
        "input_ids": input_ids,
        "attention_mask": attention,
        "response_mask": response,
        "behavior": behavior,
        "behavior_known": behavior_known,
        "advantages": advantages,
    }


def token_logprobs(
    model: Any, batch: dict[str, Any], bf16: bool, with_entropy: bool = False, label_smoothing: float = 0.0
) -> tuple[Any, Any]:
    """Log-probs of each next token (``[B, L-1]``) and, if asked, the distribution's entropy there.

    With ``label_smoothing`` e the first tensor is instead the log-likelihood of the smoothed target
    (1 - e on the token, e spread evenly over the vocabulary): ``(1 - e) log p(token) + e mean_v log p(v)``.
    Runs under bfloat16 autocast on the CPU when ``bf16`` (and on CUDA when the model is there);
    log-softmax is taken in float32.
    """
    import torch

    device = next(model.parameters()).device
    input_ids = batch["input_ids"].to(device)
    with torch.autocast(device.type, dtype=torch.bfloat16, enabled=bf16):
        logits = model(input_ids=input_ids, attention_mask=batch["attention_mask"].to(device)).logits[:, :-1]
    logp_all = logits.float().log_softmax(-1)
    chosen = logp_all.gather(-1, input_ids[:, 1:].unsqueeze(-1)).squeeze(-1)
    if label_smoothing:
        chosen = (1 - label_smoothing) * chosen + label_smoothing * logp_all.mean(-1)
    entropy = None
    if with_entropy:
        entropy = -(logp_all.exp() * logp_all).sum(-1)
    return chosen, entropy


def chunks(items: Sequence[Any], size: int) -> list[Sequence[Any]]:
    """``items`` in consecutive slices of at most ``size``."""
    if size < 1:
        raise ValueError(f"chunk size must be >= 1, got {size}")
    return [items[i : i + size] for i in range(0, len(items), size)]
