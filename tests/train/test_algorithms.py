"""GRPO advantages and loss, the Entropulse trigger and Frontier Sampling against hand-computed values."""

from __future__ import annotations

import math

import numpy as np
import pytest

from desktop_gym.episode.trajectory import Step, Trajectory
from desktop_gym.train.entropulse import EntropulseConfig, EntropulseTrigger, sample_sft_steps
from desktop_gym.train.grpo import GRPOConfig, group_advantages, group_weights, step_advantages, summarize_groups
from desktop_gym.train.sampling import FrontierSampler


def test_group_advantages_hand_computed() -> None:
    # rewards 1,0,0,1: mean 0.5, population std 0.5
    assert group_advantages([1, 0, 0, 1], eps=0) == pytest.approx([1, -1, -1, 1])
    # 3 steps of a success (1) and 1 step of a failure (0): mean .75, std sqrt(.1875)=.4330
    assert group_advantages([1, 1, 1, 0], eps=0) == pytest.approx([0.57735, 0.57735, 0.57735, -1.73205], abs=1e-5)


def test_zero_variance_and_single_step_give_zero() -> None:
    assert group_advantages([1, 1, 1]).tolist() == [0, 0, 0]
    assert group_advantages([0.0]).tolist() == [0]
    assert group_advantages([]).size == 0


def test_step_advantages_normalize_within_each_group_only() -> None:
    rewards = [1, 0, 5, 5, 2, 0]
    groups = ["a", "a", "b", "b", "c", "c"]
    assert step_advantages(rewards, groups, eps=0) == pytest.approx([1, -1, 0, 0, 1, -1])
    assert summarize_groups(rewards, groups) == {"groups": 3.0, "groups_with_signal": 2.0}
    with pytest.raises(ValueError, match="groups"):
        step_advantages([1], [])


def test_task_normalization_weighs_a_one_step_and_a_five_step_task_the_same() -> None:
    torch = pytest.importorskip("torch")
    from desktop_gym.train.grpo import grpo_loss

    groups = ["short"] + ["long"] * 5
    weights = group_weights(groups, task_normalize=True)
    assert weights.mean() == pytest.approx(1) and weights[0] == pytest.approx(weights[1:].sum())
    assert group_weights(groups, task_normalize=False).tolist() == [1.0] * 6
    # ratio 1 everywhere: each step's loss is -A; the short task's step has A=+1, the long task's steps A=-1
    zeros, mask = torch.zeros(6, 1), torch.ones(6, 1)
    advantages = torch.tensor([1.0, -1, -1, -1, -1, -1])
    config = GRPOConfig(kl_coef=0.0)
    balanced, _ = grpo_loss(zeros, zeros, advantages, mask, config, weights=torch.tensor(weights))
    per_step, _ = grpo_loss(zeros, zeros, advantages, mask, config)
    assert float(balanced) == pytest.approx(0, abs=1e-6)  # (-1 * 3 + 5 * 0.6) / 6: the tasks cancel
    assert float(per_step) == pytest.approx(4 / 6)  # the long task outweighs the short one 5:1


def test_grpo_loss_clipping_kl_and_stale_weights_hand_computed() -> None:
    torch = pytest.importorskip("torch")
    from desktop_gym.train.grpo import grpo_loss, sft_loss

    logp = torch.tensor([[0.5, 0.0], [0.5, 0.0]])
    old = torch.zeros(2, 2)
    mask = torch.tensor([[1.0, 0.0], [1.0, 0.0]])  # one real token per step
    config = GRPOConfig(clip_low=0.2, clip_high=0.28, kl_coef=0.0)
    loss, stats = grpo_loss(logp, old, torch.tensor([1.0, -1.0]), mask, config)
    # A=+1: min(e^.5, 1.28) = 1.28 -> -1.28; A=-1: min(-e^.5, -1.28) = -e^.5 -> +1.6487
    assert float(loss) == pytest.approx((-1.28 + math.exp(0.5)) / 2, abs=1e-5)
    assert stats["clip_fraction"] == pytest.approx(1.0)
    ref = torch.tensor([[-0.5, 0.0], [-0.5, 0.0]])  # delta = ref - logp = -1: k3 = e^-1 + 1 - 1
    loss_kl, stats = grpo_loss(logp, old, torch.zeros(2), mask, GRPOConfig(kl_coef=0.5), logp_ref=ref)
    assert float(loss_kl) == pytest.approx(0.5 * math.exp(-1), abs=1e-5)
    assert stats["kl"] == pytest.approx(math.exp(-1), abs=1e-5)
    behavior = torch.full((2, 2), -3.0)  # pi_old / pi_behavior = e^3, capped at 2
    loss_stale, stats = grpo_loss(
        old, old, torch.tensor([1.0, 1.0]), mask, GRPOConfig(kl_coef=0), logp_behavior=behavior
    )
    assert float(loss_stale) == pytest.approx(-2.0) and stats["importance_weight"] == pytest.approx(2.0)
    assert float(sft_loss(torch.tensor([[-1.0, -3.0], [-2.0, -9.0]]), mask)) == pytest.approx(1.5)


def _curve(trigger: EntropulseTrigger, entropies: list[float], successes: list[float]) -> list[str | None]:
    return [trigger.update(e, s) for e, s in zip(entropies, successes, strict=True)]


def test_trigger_fires_when_entropy_falls_and_success_plateaus() -> None:
    trigger = EntropulseTrigger(
        EntropulseConfig(window=2, entropy_drop=0.3, plateau_tolerance=0.05, min_rl_iterations=4)
    )
    entropies = [1.0, 1.0, 0.8, 0.6, 0.5, 0.5, 0.5]
    reasons = _curve(trigger, entropies, [0.2, 0.3, 0.4, 0.6, 0.62, 0.6, 0.61])
    assert reasons[:6] == [None] * 6  # entropy fell by 4, but success kept rising (window means .35 -> .61)
    assert reasons[6] is not None and "entropy fell 50%" in reasons[6] and "plateaued" in reasons[6]
    trigger.start_rl_phase()
    assert trigger.entropies == [] and trigger.update(1.0, 0.6) is None


def test_trigger_stays_quiet_while_success_climbs_or_entropy_holds() -> None:
    config = EntropulseConfig(window=2, entropy_drop=0.3, plateau_tolerance=0.05, min_rl_iterations=4)
    climbing = EntropulseTrigger(config)
    assert _curve(climbing, [1, 0.8, 0.6, 0.5, 0.4, 0.3], [0.1, 0.2, 0.3, 0.4, 0.5, 0.6]) == [None] * 6
    flat_entropy = EntropulseTrigger(config)
    assert _curve(flat_entropy, [1, 1, 0.95, 0.9, 0.9, 0.9], [0.5] * 6) == [None] * 6
    capped = EntropulseTrigger(EntropulseConfig(window=2, min_rl_iterations=4, max_rl_iterations=5))
    assert "max_rl_iterations" in (_curve(capped, [1] * 5, [0.5] * 5)[-1] or "")
    with pytest.raises(ValueError, match="min_rl_iterations"):
        EntropulseConfig(window=4, min_rl_iterations=3)


def test_sft_samples_successes_per_task() -> None:
    def traj(task: str, success: bool) -> Trajectory:
        return Trajectory(task_id=task, success=success, steps=[Step(1, "a"), Step(2, "b(", well_formed=False)])

    pool = [traj("x", True)] * 5 + [traj("y", True), traj("y", False)]
    chosen = sample_sft_steps(pool, per_task=2, rng=np.random.default_rng(0))
    assert [t.task_id for t, _ in chosen] == ["x", "x", "y"]
    assert all(step.well_formed for _, step in chosen)


def test_frontier_weights_uniform_share_and_set_aside() -> None:
    sampler = FrontierSampler(["easy", "mid", "hard", "solved"], seed=1)
    sampler.set_initial({"easy": 0.8, "mid": 0.5, "hard": 0.05, "solved": 0.95})
    assert sampler.set_aside == {"hard", "solved"}
    assert sampler.weight("mid") == pytest.approx(1.0)
    assert sampler.weight("easy") == pytest.approx(math.exp(-(0.3**2) / (2 * 0.25**2)))
    sampler.update({"easy": 0.0})
    assert sampler.success["easy"] == pytest.approx(0.8 * 0.8)
    picks = sampler.sample(1000)
    assert set(picks) == {"easy", "mid"}
    share_mid = picks.count("mid") / 1000
    expected = 0.2 * 0.5 + 0.8 * 1.0 / (1.0 + sampler.weight("easy"))
    assert share_mid == pytest.approx(expected, abs=0.05)
    with pytest.raises(ValueError, match="alpha"):
        FrontierSampler(["a"], alpha=0)


def test_sft_prefers_distinct_successes_within_a_task() -> None:
    def traj(action: str) -> Trajectory:
        return Trajectory(task_id="x", seed=1, success=True, steps=[Step(1, action)])

    pool = [traj("mode")] * 6 + [traj("rare")]
    for seed in range(5):
        chosen = sample_sft_steps(pool, per_task=2, rng=np.random.default_rng(seed))
        assert sorted(step.action for _, step in chosen) == ["mode", "rare"]
    chosen = sample_sft_steps(pool, per_task=4, rng=np.random.default_rng(0))
    assert sorted(step.action for _, step in chosen) == ["mode", "mode", "mode", "rare"]


def test_frontier_observe_takes_the_first_rate_as_the_initial_pass_rate() -> None:
    sampler = FrontierSampler(["a", "b", "c"], seed=0)
    sampler.observe({"a": 0.0, "b": 0.5})
    assert sampler.set_aside == {"a"} and sampler.success == {"a": 0.0, "b": 0.5}
    sampler.observe({"a": 1.0, "b": 1.0, "c": 1.0})  # a and b: EMA; c: first seen, set aside
    assert sampler.success["a"] == pytest.approx(0.2) and sampler.success["b"] == pytest.approx(0.6)
    assert sampler.set_aside == {"a", "c"} and set(sampler.sample(50)) == {"b"}


def test_label_smoothed_log_likelihood_hand_computed() -> None:
    import torch

    from desktop_gym.train.model_ops import token_logprobs

    class StandInLogits(torch.nn.Module):
        """A 'model' whose next-token logits over a 4-token vocabulary are fixed: log-probs log(.4,.3,.2,.1)."""

        def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> object:
            logits = torch.tensor([0.4, 0.3, 0.2, 0.1]).log().expand(*input_ids.shape, 4)
            return type("Out", (), {"logits": logits + self.dummy})()

        def __init__(self) -> None:
            super().__init__()
            self.dummy = torch.nn.Parameter(torch.zeros(()))

    batch = {"input_ids": torch.tensor([[0, 1]]), "attention_mask": torch.ones(1, 2)}
    plain, _ = token_logprobs(StandInLogits(), batch, bf16=False)
    assert float(plain[0, 0].detach()) == pytest.approx(math.log(0.3), abs=1e-6)
    smoothed, _ = token_logprobs(StandInLogits(), batch, bf16=False, label_smoothing=0.1)
    mean_logp = sum(math.log(p) for p in (0.4, 0.3, 0.2, 0.1)) / 4
    assert float(smoothed[0, 0].detach()) == pytest.approx(0.9 * math.log(0.3) + 0.1 * mean_logp, abs=1e-6)
    with pytest.raises(ValueError, match="sft_label_smoothing"):
        EntropulseConfig(sft_label_smoothing=1.0)
