"""Step-level GRPO (ComputerRL): advantages over every step of a task's G trajectories, and the loss.

The group of task q is every step of its G trajectories; each step's advantage is
``(r - mean(R)) / (std(R) + eps)`` over the whole group (population std). A group with zero
variance (all succeeded or all failed) gives zero advantages: no signal, no update. Each step
(prompt, response) is one sample; the clipped-ratio objective (PPO's, with DAPO's clip-higher:
``clip_low`` and ``clip_high`` apart) plus a low-variance KL term to the reference model is
averaged over tokens within a step, then over steps, each step weighted (:func:`group_weights`:
with AgentRL's task normalization every group weighs the same however many steps it has).

Asynchronous training samples with a policy older than the one being updated: the truncated
importance weight ``min(pi_old / pi_behavior, stale_ratio_cap)`` (detached) corrects that bias.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

EPS = 1e-6


def group_advantages(rewards: Sequence[float], eps: float = EPS) -> np.ndarray:
    """Step-level advantages of one group: ``(r - mean) / (std + eps)``; zeros when the std is 0."""
    values = np.asarray(rewards, dtype=np.float64)
    if values.size == 0:
        return values
    std = values.std()
    if std < 1e-12:
        return np.zeros_like(values)
    return (values - values.mean()) / (std + eps)


def step_advantages(rewards: Sequence[float], groups: Sequence[Hashable], eps: float = EPS) -> np.ndarray:
    """Advantages of a batch of steps, each step normalized within its group.

    Args:
        rewards: one reward per step.
        groups: one group key per step (the task and its sampling round: every step of the G
            trajectories of one task prompt shares a key).
        eps: added to the std.

    Raises:
        ValueError: ``rewards`` and ``groups`` differ in length.
    """
    if len(rewards) != len(groups):
        raise ValueError(f"rewards has {len(rewards)} entries but groups has {len(groups)}")
    values = np.asarray(rewards, dtype=np.float64)
    result = np.zeros_like(values)
    for indices in _members(groups).values():
        result[indices] = group_advantages(values[indices], eps)
    return result


def group_weights(groups: Sequence[Hashable], task_normalize: bool = True) -> np.ndarray:
    """Per-step loss weights; with ``task_normalize`` every group's steps together weigh the same.

    AgentRL's task normalization: without it the loss is a mean over steps, so a task whose
    trajectories take 10 steps pulls 10 times harder than a one-step task. With it step i of a
    group of n_g steps weighs ``N / (G * n_g)`` (N steps, G groups): the weights still average 1
    and each group's share of the loss is 1/G. Without it every weight is 1.
    """
    weights = np.ones(len(groups), dtype=np.float64)
    if not task_normalize or not len(groups):
        return weights
    members = _members(groups)
    for indices in members.values():
        weights[indices] = len(groups) / (len(members) * len(indices))
    return weights


def _members(groups: Sequence[Hashable]) -> dict[Hashable, list[int]]:
    members: dict[Hashable, list[int]] = {}
    for index, key in enumerate(groups):
        members.setdefault(key, []).append(index)
    return members


@dataclass(frozen=True)
class GRPOConfig:
    """Knobs of the GRPO objective.

    Args:
        clip_low: lower clip of the ratio is ``1 - clip_low``.
        clip_high: upper clip is ``1 + clip_high`` (DAPO's clip-higher when larger than clip_low).
        kl_coef: weight of the k3 KL estimate to the reference model (0 disables the reference).
        stale_ratio_cap: cap on the importance weight pi_old / pi_behavior of stale samples.
    """

    clip_low: float = 0.2
    clip_high: float = 0.28
    kl_coef: float = 0.02
    stale_ratio_cap: float = 2.0

    def __post_init__(self) -> None:
        for name in ("clip_low", "clip_high", "kl_coef"):
            if getattr(self, name) < 0:
                raise ValueError(f"GRPOConfig.{name} must be >= 0, got {getattr(self, name)}")
        if self.stale_ratio_cap < 1:
            raise ValueError(f"GRPOConfig.stale_ratio_cap must be >= 1, got {self.stale_ratio_cap}")


def grpo_loss(
    logp: Any,
    logp_old: Any,
    advantages: Any,
    mask: Any,
    config: GRPOConfig = GRPOConfig(),
    logp_ref: Any | None = None,
    logp_behavior: Any | None = None,
    weights: Any | None = None,
) -> tuple[Any, dict[str, float]]:
    """The step-level GRPO loss over a batch of steps (torch tensors, all on one device).

    Args:
        logp: ``[steps, tokens]`` log-probs of the response tokens under the policy being trained.
        logp_old: the same under the policy before this iteration's first update (frozen).
        advantages: ``[steps]`` step advantages.
        mask: ``[steps, tokens]`` 1 for response tokens, 0 for padding.
        config: clipping and KL.
        logp_ref: log-probs under the reference model (needed when ``kl_coef > 0``).
        logp_behavior: log-probs under the policy that sampled (async; None when on-policy).
        weights: ``[steps]`` step weights (:func:`group_weights`); the loss is their weighted mean.

    Returns:
        The scalar loss and diagnostics over the masked tokens: ``clip_fraction`` (share of tokens
        whose ratio lies outside ``[1 - clip_low, 1 + clip_high]``), ``kl``, ``importance_weight``
        (mean stale-sample weight), ``ratio_mean``/``ratio_min``/``ratio_max`` (pi / pi_old) and
        ``tokens``.
    """
    import torch

    mask = mask.to(logp.dtype)
    ratio = torch.exp(logp - logp_old)
    adv = advantages.to(logp.dtype).unsqueeze(-1)
    clipped = torch.clamp(ratio, 1 - config.clip_low, 1 + config.clip_high)
    per_token = -torch.minimum(ratio * adv, clipped * adv)
    weight = torch.ones_like(logp)
    if logp_behavior is not None:
        weight = torch.clamp(torch.exp(logp_old - logp_behavior), max=config.stale_ratio_cap).detach()
        per_token = per_token * weight
    kl = torch.zeros_like(logp)
    if logp_ref is not None and config.kl_coef > 0:
        delta = logp_ref - logp
        kl = torch.exp(delta) - delta - 1  # k3: unbiased, always >= 0, low variance
        per_token = per_token + config.kl_coef * kl
    tokens = mask.sum(-1).clamp(min=1)
    per_step = (per_token * mask).sum(-1) / tokens
    if weights is None:
        loss = per_step.mean()
    else:
        weights = weights.to(logp.dtype)
        loss = (per_step * weights).sum() / weights.sum().clamp(min=1e-12)
    with torch.no_grad():
        total = mask.sum().clamp(min=1)
        was_clipped = ((ratio - clipped).abs() > 1e-8).to(logp.dtype)
        inside = mask > 0
        seen = ratio[inside] if bool(inside.any()) else torch.ones(1, device=ratio.device)
        stats = {
            "clip_fraction": float((was_clipped * mask).sum() / total),
            "kl": float((kl * mask).sum() / total),
            "importance_weight": float((weight * mask).sum() / total),
            "ratio_mean": float(seen.mean()),
            "ratio_min": float(seen.min()),
            "ratio_max": float(seen.max()),
            "tokens": float(mask.sum()),
        }
    return loss, stats


def sft_loss(logp: Any, mask: Any) -> Any:
    """Mean negative log-likelihood per response token, averaged over steps (shared by BC and Entropulse)."""
    mask = mask.to(logp.dtype)
    return (-(logp * mask).sum(-1) / mask.sum(-1).clamp(min=1)).mean()


def summarize_groups(rewards: Sequence[float], groups: Sequence[Hashable]) -> Mapping[str, float]:
    """How many groups carry signal (non-zero reward variance): ``groups``, ``groups_with_signal``."""
    members: dict[Hashable, list[float]] = {}
    for reward, key in zip(rewards, groups, strict=True):
        members.setdefault(key, []).append(reward)
    signal = sum(1 for values in members.values() if np.std(values) > 1e-12)
    return {"groups": float(len(members)), "groups_with_signal": float(signal)}
