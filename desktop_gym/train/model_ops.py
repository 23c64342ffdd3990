"""Tokenization of training samples and per-token log-probs/entropy (the built-in trainer's model side).

A sample is one step: the chat the policy saw (prefill split off), the prefill, and the response
tokens. The prompt is templated exactly as generation templated it (``desktop_gym.llm``'s
``chat_prompt``) and cut by the same rule (:func:`prompt_token_ids`, one prompt budget for
sampling and training), and the response keeps the token ids the policy sampled, so nothing is
re-tokenized between sampling and training. Steps recorded without token ids (behavior-cloning
data) are tokenized from their completion text plus the end-of-turn token.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from desktop_gym.episode.prompts import Message, split_prefill
from desktop_gym.episode.trajectory import Step

from ..errors import PromptTooLongError
from ..llm.precision import native_bf16

END_OF_TURN = "<|im_end|>"
PROMPT_OVERFLOW_RULES = ("error", "left")


@dataclass
class Sample:
    """One training sample: a step's prompt and response as token ids, its advantage and loss weight.

    ``old_logprobs`` and ``ref_logprobs`` (one per response token) are filled by the GRPO update
    once per iteration, before its first optimizer step, and stay fixed over all its passes.
    """

    prompt_ids: list[int]
    response_ids: list[int]
    advantage: float = 0.0
    behavior_logprobs: list[float] | None = None
    policy_version: int = 0
    weight: float = 1.0
    old_logprobs: list[float] | None = None
    ref_logprobs: list[float] | None = None
    vision: Any = None  # a vision prompt's pixel inputs: tensors, or a ``desktop_gym.train.vision.PixelInputs``


def prompt_token_ids(
    tokenizer: Any, messages: Sequence[Message], max_prompt_tokens: int, overflow: str = "error"
) -> list[int]:
    """The prompt's token ids as generation and training both see them (the one prompt budget).

    The chat is templated with the assistant turn opened and the prefill appended. A prompt longer
    than ``max_prompt_tokens`` is, by ``overflow``: ``"error"`` a :class:`PromptTooLongError`;
    ``"left"`` cut to its last ``max_prompt_tokens`` tokens (the start of the system prompt is lost;
    a warning says so).

    Raises:
        PromptTooLongError: the prompt exceeds the budget and ``overflow`` is ``"error"``.
        ValueError: an unknown ``overflow`` rule.
    """
    from ..llm.generation import chat_prompt

    if overflow not in PROMPT_OVERFLOW_RULES:
        raise ValueError(f"model.prompt_overflow must be one of {PROMPT_OVERFLOW_RULES}, got {overflow!r}")
    chat, prefill = split_prefill(messages)
    ids = tokenizer(chat_prompt(tokenizer, chat, prefill=prefill), add_special_tokens=False)["input_ids"]
    if len(ids) <= max_prompt_tokens:
        return [int(i) for i in ids]
    if overflow == "error":
        raise PromptTooLongError(
            f"a prompt has {len(ids)} tokens, over model.max_prompt_tokens={max_prompt_tokens} "
            "(shorten the prompt: prompt.actions_text, prompt.a11y_max_nodes, prompt.history; raise the "
            "budget; or set model.prompt_overflow: left to keep its last tokens)"
        )
    warnings.warn(
        f"a prompt of {len(ids)} tokens was cut to its last {max_prompt_tokens} (model.prompt_overflow=left)",
        stacklevel=2,
    )
    return [int(i) for i in ids[-max_prompt_tokens:]]


def check_context(model: Any, max_prompt_tokens: int, max_new_tokens: int) -> None:
    """Fail early when the prompt budget plus the longest answer exceeds the model's context.

    Raises:
        PromptTooLongError: ``max_prompt_tokens + max_new_tokens`` is over the model's
            ``max_position_embeddings`` (names both fields and the model's limit).
    """
    config = getattr(model, "config", None)
    config = getattr(config, "text_config", None) or config
    context = getattr(config, "max_position_embeddings", None)
    if isinstance(context, int) and max_prompt_tokens + max_new_tokens > context:
        raise PromptTooLongError(
            f"model.max_prompt_tokens ({max_prompt_tokens}) + model.max_new_tokens ({max_new_tokens}) "
            f"exceeds the model's context of {context} tokens"
        )


def step_sample(
    tokenizer: Any, step: Step, advantage: float = 0.0, max_prompt_tokens: int = 1024, overflow: str = "error"
) -> Sample:
    """The ``Sample`` of a recorded step (its prompt cut by :func:`prompt_token_ids`)."""
    prompt_ids = prompt_token_ids(tokenizer, step.messages, max_prompt_tokens, overflow)
    token_ids = step.info.get("token_ids")
    if token_ids:
        response_ids = [int(t) for t in token_ids]
        behavior = step.logprobs if step.logprobs and len(step.logprobs) == len(response_ids) else None
    else:
        response_ids = tokenizer(step.completion + END_OF_TURN, add_special_tokens=False)["input_ids"]
        behavior = None
    return Sample(prompt_ids, response_ids, advantage, behavior, step.policy_version)


def batch_tensors(samples: Sequence[Sample], pad_id: int, device: Any = None) -> dict[str, Any]:
    """Right-padded ``input_ids``/``attention_mask`` and a response mask aligned with next-token log-probs.

    ``response_mask[b, t]`` is 1 when token ``t + 1`` of row ``b`` is a response token, matching
    ``logits[:, :-1]`` predicting ``input_ids[:, 1:]``. ``behavior`` holds sampling log-probs at
    the same positions where ``behavior_known`` is 1; ``old`` and ``ref`` hold the frozen
    pre-update and reference log-probs (zeros where a sample has none). Samples of a vision prompt
    add their pixel inputs (``pixel_values`` etc.), concatenated over the rows in order. Every
    tensor is put on ``device`` (the model's device; None keeps the CPU).

    Raises:
        ValueError: some samples have pixel inputs and some do not, or their inputs differ in kind.
    """
    import torch

    length = max(len(s.prompt_ids) + len(s.response_ids) for s in samples)
    shape = (len(samples), length - 1)
    input_ids = torch.full((len(samples), length), pad_id, dtype=torch.long)
    attention = torch.zeros((len(samples), length), dtype=torch.long)
    response = torch.zeros(shape)
    behavior, behavior_known, old, ref = (torch.zeros(shape) for _ in range(4))
    for row, sample in enumerate(samples):
        ids = sample.prompt_ids + sample.response_ids
        input_ids[row, : len(ids)] = torch.tensor(ids)
        attention[row, : len(ids)] = 1
        start = len(sample.prompt_ids) - 1
        span = slice(start, start + len(sample.response_ids))
        response[row, span] = 1
        if sample.behavior_logprobs is not None:
            behavior[row, span] = torch.tensor(sample.behavior_logprobs)
            behavior_known[row, span] = 1
        if sample.old_logprobs is not None:
            old[row, span] = torch.tensor(sample.old_logprobs)
        if sample.ref_logprobs is not None:
            ref[row, span] = torch.tensor(sample.ref_logprobs)
    batch = {
        "input_ids": input_ids,
        "attention_mask": attention,
        "response_mask": response,
        "behavior": behavior,
        "behavior_known": behavior_known,
        "old": old,
        "ref": ref,
        "advantages": torch.tensor([s.advantage for s in samples], dtype=torch.float32),
        "weights": torch.tensor([s.weight for s in samples], dtype=torch.float32),
    }
    batch.update(_vision_batch(samples))
    if device is not None:
        batch = {key: value.to(device) for key, value in batch.items()}
    return batch


def _vision_batch(samples: Sequence[Sample]) -> dict[str, Any]:
    """The rows' pixel inputs, each kind concatenated along its first dimension (none for text samples)."""
    from .vision import stack_pixel_inputs

    if not any(s.vision for s in samples):
        return {}
    stacked = stack_pixel_inputs([s.vision or {} for s in samples])
    if stacked is None:
        shapes = sorted({str({key: tuple(value.shape) for key, value in (s.vision or {}).items()}) for s in samples})
        raise ValueError(
            f"a batch's rows have pixel inputs that cannot be stacked ({', '.join(shapes)}): a text row among "
            "vision rows, or a model whose images differ in shape (set rl.micro_batch: 1)"
        )
    return stacked


def response_values(values: Any, sample: Sample) -> list[float]:
    """One row of a ``[L-1]`` per-position tensor, at ``sample``'s response positions, as floats."""
    start = len(sample.prompt_ids) - 1
    return [float(v) for v in values[start : start + len(sample.response_ids)].tolist()]


def model_device(model: Any) -> Any:
    """The device of the model's first parameter."""
    return next(model.parameters()).device


def token_logprobs(
    model: Any,
    batch: dict[str, Any],
    bf16: bool,
    with_entropy: bool = False,
    label_smoothing: float = 0.0,
    temperature: float = 1.0,
    share_prefix: bool = True,
) -> tuple[Any, Any]:
    """Log-probs of each next token (``[B, L-1]``) and, if asked, the distribution's entropy there.

    ``temperature`` divides the logits first (pass the sampling temperature, so the trained
    distribution is the one that sampled; 0, greedy, counts as 1). With ``label_smoothing`` e the
    first tensor is instead the log-likelihood of the smoothed target (1 - e on the token, e spread
    evenly over the vocabulary): ``(1 - e) log p(token) + e mean_v log p(v)``. Runs under bfloat16
    autocast on the model's device type when ``bf16`` and the device computes bf16 natively
    (:func:`native_bf16`); log-softmax is taken in float32. With ``share_prefix`` the rows' common
    start (the system prompt) runs once (:mod:`desktop_gym.train.shared_prefix`: same values and
    gradients, a fraction of the compute). A batch with pixel inputs (a vision model's) feeds them
    to the model (in the weights' dtype) and runs whole.
    """
    import torch

    from .shared_prefix import MIN_SHARED_PREFIX, shared_prefix_length

    device = model_device(model)
    input_ids = batch["input_ids"].to(device)
    attention = batch["attention_mask"].to(device)
    keep = _response_positions(model, batch)
    pixels = _pixel_inputs(model, batch)
    prefix = 0
    if share_prefix and keep is not None and not pixels:
        prefix = shared_prefix_length(input_ids, attention, batch["response_mask"].to(device))
    if prefix >= MIN_SHARED_PREFIX:
        return _shared_prefix_logprobs(
            model, input_ids, attention, prefix, batch, bf16, with_entropy, label_smoothing, temperature
        )
    with torch.autocast(device.type, dtype=torch.bfloat16, enabled=bf16 and native_bf16(device)):
        if keep is None:
            logits = model(input_ids=input_ids, attention_mask=attention, **pixels).logits[:, :-1]
        else:  # the vocabulary projection only where a response token is predicted: the prompt's logits are
            # never read, and at 49k tokens of vocabulary they were most of the memory (GBs for a long prompt)
            logits = model(
                input_ids=input_ids, attention_mask=attention, logits_to_keep=keep.to(device), **pixels
            ).logits
    logits = logits.float()
    if temperature > 0 and temperature != 1.0:
        logits = logits / temperature
    logp_all = logits.log_softmax(-1)
    targets = input_ids[:, 1:] if keep is None else input_ids[:, keep.to(device) + 1]
    chosen = logp_all.gather(-1, targets.unsqueeze(-1)).squeeze(-1)
    if label_smoothing:
        chosen = (1 - label_smoothing) * chosen + label_smoothing * logp_all.mean(-1)
    entropy = None
    if with_entropy:
        entropy = -(logp_all.exp() * logp_all).sum(-1)
    if keep is None:
        return chosen, entropy
    return _spread(chosen, keep, input_ids.shape), None if entropy is None else _spread(entropy, keep, input_ids.shape)


def _pixel_inputs(model: Any, batch: dict[str, Any]) -> dict[str, Any]:
    """The batch's pixel inputs for the model (empty for a text batch)."""
    from .vision import VISION_INPUTS, model_inputs

    return model_inputs({key: batch[key] for key in VISION_INPUTS if key in batch}, model)


def _shared_prefix_logprobs(
    model: Any,
    input_ids: Any,
    attention: Any,
    prefix: int,
    batch: dict[str, Any],
    bf16: bool,
    with_entropy: bool,
    label_smoothing: float,
    temperature: float,
) -> tuple[Any, Any]:
    """:func:`token_logprobs` with the rows' shared prefix run once; values at the response positions only."""
    import torch

    from .shared_prefix import prefix_shared_logits

    device = input_ids.device
    mask = batch["response_mask"].to(device)
    with torch.autocast(device.type, dtype=torch.bfloat16, enabled=bf16 and native_bf16(device)):
        logits, targets, (rows, ks), columns = prefix_shared_logits(model, input_ids, attention, prefix, mask)
    logits = logits[rows, ks].float()  # [N, V]: only the response predictions
    if temperature > 0 and temperature != 1.0:
        logits = logits / temperature
    logp_all = logits.log_softmax(-1)
    chosen = logp_all.gather(-1, targets[rows, ks].unsqueeze(-1)).squeeze(-1)
    if label_smoothing:
        chosen = (1 - label_smoothing) * chosen + label_smoothing * logp_all.mean(-1)
    shape = mask.shape
    full = torch.zeros(shape, dtype=chosen.dtype, device=device).index_put((rows, columns), chosen)
    if not with_entropy:
        return full, None
    entropy = -(logp_all.exp() * logp_all).sum(-1)
    return full, torch.zeros(shape, dtype=entropy.dtype, device=device).index_put((rows, columns), entropy)


def _response_positions(model: Any, batch: dict[str, Any]) -> Any:
    """The positions (columns of ``[B, L-1]``) where some row predicts a response token; None for all.

    None when the batch has no response mask or the model's ``forward`` takes no ``logits_to_keep``
    (a Hugging Face causal LM and a PEFT wrapper of one take it).
    """
    import inspect

    mask = batch.get("response_mask")
    if mask is None:
        return None
    try:
        parameters = inspect.signature(model.forward).parameters
    except (TypeError, ValueError):
        return None
    takes = "logits_to_keep" in parameters or any(p.kind is p.VAR_KEYWORD for p in parameters.values())
    if not takes:
        return None
    positions = mask.detach().cpu().bool().any(0).nonzero().squeeze(-1)
    return positions if 0 < len(positions) < mask.shape[1] else None


def _spread(values: Any, positions: Any, shape: tuple[int, ...]) -> Any:
    """``values`` ``[B, K]`` at ``positions`` of a zero ``[B, L-1]`` tensor (autograd flows through)."""
    import torch

    full = torch.zeros((shape[0], shape[1] - 1), dtype=values.dtype, device=values.device)
    return full.index_copy(1, positions.to(values.device), values)


def chunks(items: Sequence[Any], size: int) -> list[Sequence[Any]]:
    """``items`` in consecutive slices of at most ``size``."""
    if size < 1:
        raise ValueError(f"chunk size must be >= 1, got {size}")
    return [items[i : i + size] for i in range(0, len(items), size)]
