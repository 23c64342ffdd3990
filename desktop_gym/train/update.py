"""One GRPO update of the built-in trainer: freeze the old log-probs once, then PPO-style passes.

The iteration's samples are first run through the policy once, before any optimizer step, under
the sampling temperature: that fixes ``pi_old`` (and the reference log-probs) for the whole
iteration, and measures the policy's entropy on the iteration's responses. Then ``passes``
passes go over the samples in shuffled minibatches of ``mini_batch`` samples, one optimizer step
per minibatch (gradients accumulated over micro-batches of ``micro_batch``). From the second
minibatch on, the policy differs from ``pi_old``, so the ratio departs from 1 and the clip acts
(with one pass and one minibatch the ratio is exactly 1: REINFORCE with a group baseline).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .grpo import GRPOConfig, grpo_loss
from .model_ops import Sample, batch_tensors, chunks, model_device, response_values, token_logprobs


@dataclass(frozen=True)
class UpdateOptions:
    """How one GRPO update runs.

    Args:
        passes: passes over the iteration's samples (PPO epochs).
        mini_batch: samples per optimizer step (0: all of them, one step per pass).
        micro_batch: samples per forward/backward (gradients accumulate up to ``mini_batch``).
        temperature: the sampling temperature (old and new log-probs are taken under it).
        bf16: bfloat16 autocast on the model's device.
        max_grad_norm: gradient clipping per optimizer step.
        stale_correction: weight samples by ``min(pi_old / pi_behavior, cap)`` (asynchronous mode).
        grpo: the objective's clipping and KL.
    """

    passes: int = 1
    mini_batch: int = 0
    micro_batch: int = 8
    temperature: float = 1.0
    bf16: bool = True
    max_grad_norm: float = 1.0
    stale_correction: bool = False
    grpo: GRPOConfig = field(default_factory=GRPOConfig)

    def __post_init__(self) -> None:
        if self.passes < 1:
            raise ValueError(f"rl.updates_per_iteration must be >= 1, got {self.passes}")
        if self.mini_batch < 0:
            raise ValueError(f"rl.mini_batch must be >= 0, got {self.mini_batch}")
        if self.micro_batch < 1:
            raise ValueError(f"rl.micro_batch must be >= 1, got {self.micro_batch}")


def freeze_logprobs(
    model: Any,
    reference: Any | None,
    samples: Sequence[Sample],
    pad_id: int,
    options: UpdateOptions,
    measure_only: Sequence[Sample] = (),
) -> float:
    """Set each sample's ``old_logprobs`` (and ``ref_logprobs``) from one no-grad forward; returns the entropy.

    Args:
        model: the policy, before this iteration's first optimizer step.
        reference: the reference model, or None.
        samples: the samples the update trains on.
        pad_id: the padding token id.
        options: temperature, precision and micro-batch size.
        measure_only: further samples (steps without signal) whose entropy counts but that get no
            log-probs.

    Returns:
        The mean per-token entropy of ``model`` (at the sampling temperature) over the response
        tokens of ``samples`` and ``measure_only``: the iteration's entropy, before its update.
    """
    import torch

    device = model_device(model)
    entropy_sum, token_count = 0.0, 0.0
    trained = [(sample, True) for sample in samples] + [(sample, False) for sample in measure_only]
    for part in chunks(trained, options.micro_batch):
        group = [sample for sample, _ in part]
        batch = batch_tensors(group, pad_id, device)
        mask = batch["response_mask"]
        with torch.no_grad():
            logp, entropy = token_logprobs(
                model, batch, options.bf16, with_entropy=True, temperature=options.temperature
            )
            ref = None
            if reference is not None and any(train for _, train in part):
                ref = token_logprobs(reference, batch, options.bf16, temperature=options.temperature)[0]
        entropy_sum += float((entropy * mask).sum())
        token_count += float(mask.sum())
        for row, (sample, train) in enumerate(part):
            if train:
                sample.old_logprobs = response_values(logp[row].cpu(), sample)
                sample.ref_logprobs = response_values(ref[row].cpu(), sample) if ref is not None else None
    return entropy_sum / max(token_count, 1.0)


def grpo_update(
    model: Any,
    reference: Any | None,
    optimizer: Any,
    samples: Sequence[Sample],
    pad_id: int,
    options: UpdateOptions,
    rng: np.random.Generator,
    measure_only: Sequence[Sample] = (),
) -> dict[str, float]:
    """Freeze the old log-probs, then ``options.passes`` passes of minibatch optimizer steps.

    Returns:
        The update's diagnostics: ``loss`` and ``kl`` (token-weighted over all minibatches),
        ``clip_fraction``, ``ratio_mean``/``ratio_min``/``ratio_max`` and ``importance_weight`` over
        every response token of every pass, ``grad_norm`` (mean pre-clip norm of the optimizer
        steps) and ``grad_norm_max``, ``optimizer_steps``, and ``entropy`` (see :func:`freeze_logprobs`).
    """
    import torch

    entropy = freeze_logprobs(model, reference, samples, pad_id, options, measure_only)
    device = model_device(model)
    parameters = [p for p in model.parameters() if p.requires_grad]
    size = options.mini_batch or len(samples)
    totals = {"loss": 0.0, "kl": 0.0, "clip": 0.0, "ratio": 0.0, "weight": 0.0, "tokens": 0.0}
    ratio_min, ratio_max, norms = float("inf"), float("-inf"), []
    for _ in range(options.passes):
        order = [samples[int(i)] for i in rng.permutation(len(samples))]
        for minibatch in chunks(order, size):
            optimizer.zero_grad(set_to_none=True)
            weight_total = sum(sample.weight for sample in minibatch)
            for part in chunks(minibatch, options.micro_batch):
                batch = batch_tensors(part, pad_id, device)
                logp, _ = token_logprobs(model, batch, options.bf16, temperature=options.temperature)
                behavior = None
                if options.stale_correction:  # unknown sampling log-probs count as on-policy (weight 1)
                    behavior = torch.where(batch["behavior_known"] > 0, batch["behavior"], batch["old"])
                ref = batch["ref"] if reference is not None else None
                loss, stats = grpo_loss(
                    logp,
                    batch["old"],
                    batch["advantages"],
                    batch["response_mask"],
                    options.grpo,
                    logp_ref=ref,
                    logp_behavior=behavior,
                    weights=batch["weights"],
                )
                share = sum(sample.weight for sample in part) / max(weight_total, 1e-12)
                (loss * share).backward()
                tokens = stats["tokens"]
                totals["loss"] += float(loss.detach()) * tokens
                totals["kl"] += stats["kl"] * tokens
                totals["clip"] += stats["clip_fraction"] * tokens
                totals["ratio"] += stats["ratio_mean"] * tokens
                totals["weight"] += stats["importance_weight"] * tokens
                totals["tokens"] += tokens
                ratio_min, ratio_max = min(ratio_min, stats["ratio_min"]), max(ratio_max, stats["ratio_max"])
            norms.append(float(torch.nn.utils.clip_grad_norm_(parameters, options.max_grad_norm)))
            optimizer.step()
    count = max(totals["tokens"], 1.0)
    return {
        "loss": totals["loss"] / count,
        "kl": totals["kl"] / count,
        "clip_fraction": totals["clip"] / count,
        "ratio_mean": totals["ratio"] / count,
        "ratio_min": ratio_min,
        "ratio_max": ratio_max,
        "importance_weight": totals["weight"] / count,
        "grad_norm": float(np.mean(norms)) if norms else 0.0,
        "grad_norm_max": float(np.max(norms)) if norms else 0.0,
        "optimizer_steps": float(len(norms)),
        "entropy": entropy,
    }
