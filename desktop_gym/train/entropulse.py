"""Entropulse (ComputerRL): RL -> SFT on successful rollouts -> reset the reference -> RL, switched automatically.

The paper switched phases by hand. Here :class:`EntropulseTrigger` watches two curves of the
current RL phase over a sliding window: the policy entropy has fallen by ``entropy_drop`` (a
fraction of the phase's starting entropy) and success has plateaued (its mean over the last
window moved by at most ``plateau_tolerance`` against the window before). Then the trainer runs
an SFT phase on successful rollouts sampled per task from the RL buffer
(:func:`sample_sft_steps`), resets the reference model to the SFT result and resumes RL.
Every threshold is config; every switch comes with its reason.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from desktop_gym.episode.trajectory import Step, Trajectory


@dataclass(frozen=True)
class EntropulseConfig:
    """When to switch to SFT and what to train on.

    Args:
        enabled: run Entropulse at all.
        window: iterations per sliding window.
        entropy_drop: switch only once the window's mean entropy is this fraction below the phase's
            first window (0.2: fallen by 20%).
        plateau_tolerance: success has plateaued when its window mean moved at most this much.
        min_rl_iterations: never switch before this many RL iterations in the phase.
        max_rl_iterations: switch anyway after this many (0: never); the reason says so.
        sft_steps: optimizer steps of an SFT phase.
        sft_per_task: successful trajectories sampled per task for SFT.
        sft_batch_size: samples per SFT step.
        sft_learning_rate: learning rate of the SFT phase.
        sft_label_smoothing: label smoothing of the SFT loss (0: plain next-token SFT). SFT on the
            successes of a near-deterministic policy sharpens it further; a smoothed target puts
            probability back on other tokens, so entropy recovers.
        max_phases: at most this many SFT phases in a run.
    """

    enabled: bool = True
    window: int = 3
    entropy_drop: float = 0.2
    plateau_tolerance: float = 0.05
    min_rl_iterations: int = 6
    max_rl_iterations: int = 0
    sft_steps: int = 8
    sft_per_task: int = 4
    sft_batch_size: int = 8
    sft_learning_rate: float = 2e-5
    sft_label_smoothing: float = 0.0
    max_phases: int = 3

    def __post_init__(self) -> None:
        if self.window < 1:
            raise ValueError(f"entropulse.window must be >= 1, got {self.window}")
        if not 0 < self.entropy_drop < 1:
            raise ValueError(f"entropulse.entropy_drop must be in (0, 1), got {self.entropy_drop}")
        if self.min_rl_iterations < 2 * self.window:
            raise ValueError(
                f"entropulse.min_rl_iterations ({self.min_rl_iterations}) must be >= 2 * window ({2 * self.window})"
            )
        if not 0 <= self.sft_label_smoothing < 1:
            raise ValueError(f"entropulse.sft_label_smoothing must be in [0, 1), got {self.sft_label_smoothing}")
        for name in ("plateau_tolerance", "max_rl_iterations", "sft_steps", "sft_per_task", "max_phases"):
            if getattr(self, name) < 0:
                raise ValueError(f"entropulse.{name} must be >= 0, got {getattr(self, name)}")


@dataclass
class EntropulseTrigger:
    """Decides, iteration by iteration, when the RL phase should give way to SFT."""

    config: EntropulseConfig = field(default_factory=EntropulseConfig)
    entropies: list[float] = field(default_factory=list)
    successes: list[float] = field(default_factory=list)
    phases_done: int = 0

    def start_rl_phase(self) -> None:
        """Forget the previous phase's curves (call after each SFT phase)."""
        self.entropies.clear()
        self.successes.clear()

    def update(self, entropy: float, success: float) -> str | None:
        """Record one RL iteration; the reason to switch to SFT now, or None to keep going."""
        self.entropies.append(float(entropy))
        self.successes.append(float(success))
        config = self.config
        if not config.enabled or self.phases_done >= config.max_phases:
            return None
        count = len(self.entropies)
        fallback = None
        if config.max_rl_iterations and count >= config.max_rl_iterations:
            fallback = f"RL phase reached max_rl_iterations={config.max_rl_iterations} without an entropy plateau"
        if count < config.min_rl_iterations:
            return fallback
        window = config.window
        start = float(np.mean(self.entropies[:window]))
        recent = float(np.mean(self.entropies[-window:]))
        drop = (start - recent) / start if start > 0 else 0.0
        success_now = float(np.mean(self.successes[-window:]))
        success_before = float(np.mean(self.successes[-2 * window : -window]))
        moved = abs(success_now - success_before)
        if drop >= config.entropy_drop and moved <= config.plateau_tolerance:
            return (
                f"entropy fell {drop:.0%} ({start:.3f} -> {recent:.3f}, threshold {config.entropy_drop:.0%}) "
                f"and success plateaued ({success_before:.2f} -> {success_now:.2f}, "
                f"tolerance {config.plateau_tolerance:.2f}) over windows of {window}"
            )
        return fallback


def sample_sft_steps(
    trajectories: Sequence[Trajectory], per_task: int, rng: np.random.Generator
) -> list[tuple[Trajectory, Step]]:
    """Well-formed steps of successful trajectories, at most ``per_task`` trajectories per task instance.

    A task instance is a task id and a seed (a family's seeds are different tasks). Sampling per
    instance keeps easy tasks (many successes) from crowding out the rest; within an instance,
    trajectories with distinct actions are taken first (diverse successes, not ``per_task`` copies of
    the mode), then duplicates if there are not enough distinct ones.
    """
    by_task: dict[str, list[Trajectory]] = {}
    for trajectory in trajectories:
        if trajectory.success:
            by_task.setdefault(f"{trajectory.task_id}#{trajectory.seed}", []).append(trajectory)
    chosen: list[tuple[Trajectory, Step]] = []
    for task_id in sorted(by_task):
        pool = by_task[task_id]
        order = [int(i) for i in rng.permutation(len(pool))]
        seen: set[tuple[str, ...]] = set()
        distinct, repeats = [], []
        for index in order:
            actions = tuple(step.action for step in pool[index].steps)
            (repeats if actions in seen else distinct).append(index)
            seen.add(actions)
        for index in sorted((distinct + repeats)[:per_task]):
            chosen += [(pool[index], step) for step in pool[index].steps if step.well_formed]
    return chosen
