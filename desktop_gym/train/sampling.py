"""Frontier Sampling (ScaleCUA): sample the tasks the policy is learning right now.

Per-task success is tracked with an EMA (``alpha`` 0.2); a task is drawn with weight
``exp(-(p - 0.5)^2 / (2 * 0.25^2))``, highest for tasks solved about half the time; a fixed
share of every batch (20%) is drawn uniformly so no task is starved; tasks whose initial pass
rate lies outside ``[0.1, 0.9]`` are set aside (too hard or already solved). Any trainer can use
the sampler: call :meth:`FrontierSampler.sample` for a batch, :meth:`observe` with the results
(or :meth:`set_initial` once with measured pass rates, then :meth:`update`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np


@dataclass
class FrontierSampler:
    """Task sampler weighted towards the frontier of what the policy can do.

    Args:
        tasks: the task keys (task ids or (task id, seed) pairs as strings).
        alpha: EMA weight of the newest success rate.
        center: success rate with the highest weight.
        width: the Gaussian's standard deviation.
        uniform_fraction: share of each batch drawn uniformly.
        keep_range: initial pass rates outside it set a task aside.
        seed: the sampler's RNG seed.
    """

    tasks: Sequence[str]
    alpha: float = 0.2
    center: float = 0.5
    width: float = 0.25
    uniform_fraction: float = 0.2
    keep_range: tuple[float, float] = (0.1, 0.9)
    seed: int = 0
    success: dict[str, float] = field(default_factory=dict)
    set_aside: set[str] = field(default_factory=set)

    def __post_init__(self) -> None:
        if not self.tasks:
            raise ValueError("FrontierSampler.tasks is empty")
        if not 0 < self.alpha <= 1:
            raise ValueError(f"FrontierSampler.alpha must be in (0, 1], got {self.alpha}")
        if not 0 <= self.uniform_fraction <= 1:
            raise ValueError(f"FrontierSampler.uniform_fraction must be in [0, 1], got {self.uniform_fraction}")
        if self.width <= 0:
            raise ValueError(f"FrontierSampler.width must be > 0, got {self.width}")
        self.tasks = list(self.tasks)
        self._rng = np.random.default_rng(self.seed)

    @property
    def active(self) -> list[str]:
        """Tasks not set aside (all of them when every task was set aside, so sampling never stalls)."""
        kept = [task for task in self.tasks if task not in self.set_aside]
        return kept or list(self.tasks)

    def set_initial(self, pass_rates: Mapping[str, float]) -> None:
        """Seed the EMAs with measured initial pass rates and set aside tasks outside ``keep_range``."""
        low, high = self.keep_range
        for task, rate in pass_rates.items():
            self.success[task] = float(rate)
            if not low <= rate <= high:
                self.set_aside.add(task)

    def update(self, results: Mapping[str, float]) -> None:
        """Fold a batch's per-task success rates into the EMAs."""
        for task, rate in results.items():
            previous = self.success.get(task)
            self.success[task] = float(rate) if previous is None else (1 - self.alpha) * previous + self.alpha * rate
        # A set-aside task stays aside: its initial pass rate decided it.

    def observe(self, results: Mapping[str, float]) -> None:
        """Fold a batch in; a task's first measured rate is its initial pass rate (:meth:`set_initial`).

        This is how the trainer measures initial pass rates without a separate pass over every task:
        the first group of G rollouts of a task instance measures it (a 0/G or G/G group also has no
        GRPO signal, so setting such a task aside costs nothing).
        """
        first = {task: rate for task, rate in results.items() if task not in self.success}
        self.set_initial(first)
        self.update({task: rate for task, rate in results.items() if task not in first})

    def weight(self, task: str) -> float:
        """The frontier weight of ``task`` (an unseen task counts as p = center)."""
        p = self.success.get(task, self.center)
        return math.exp(-((p - self.center) ** 2) / (2 * self.width**2))

    def sample(self, count: int) -> list[str]:
        """``count`` tasks (with replacement): ``uniform_fraction`` uniformly, the rest by weight."""
        if count < 0:
            raise ValueError(f"count must be >= 0, got {count}")
        tasks = self.active
        uniform = int(round(self.uniform_fraction * count))
        weights = np.array([self.weight(task) for task in tasks])
        probabilities = weights / weights.sum()
        picks = list(self._rng.choice(len(tasks), size=uniform))
        picks += list(self._rng.choice(len(tasks), size=count - uniform, p=probabilities))
        return [tasks[int(i)] for i in picks]
