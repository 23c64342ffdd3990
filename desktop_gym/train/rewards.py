"""Step rewards from a finished trajectory; the rule is a swappable function named in configs.

ComputerRL: every well-formed action of a successful trajectory gets 1, everything else 0.
AgentRL adds a penalty (-0.2) for an abnormal end (the desktop or the task's app crashed).
"""

from __future__ import annotations

from collections.abc import Callable

from desktop_gym.episode.trajectory import Trajectory

RewardRule = Callable[[Trajectory], list[float]]
REWARD_RULES: dict[str, RewardRule] = {}
ABNORMAL_END_PENALTY = -0.2


def reward_rule(name: str) -> Callable[[RewardRule], RewardRule]:
    """Register a reward rule under ``name`` (``rewards: <name>`` in a training config)."""

    def register(rule: RewardRule) -> RewardRule:
        REWARD_RULES[name] = rule
        return rule

    return register


def get_reward_rule(name: str) -> RewardRule:
    """The rule registered as ``name``.

    Raises:
        KeyError: an unknown name (lists the known ones).
    """
    if name not in REWARD_RULES:
        raise KeyError(f"unknown reward rule {name!r}; known: {', '.join(sorted(REWARD_RULES))}")
    return REWARD_RULES[name]


def is_abnormal_end(trajectory: Trajectory) -> bool:
    """Whether the episode ended abnormally: a crash of the desktop or of the task's app."""
    return trajectory.crash is not None or any(step.info.get("crash") for step in trajectory.steps)


@reward_rule("computerrl")
def computerrl_rewards(trajectory: Trajectory) -> list[float]:
    """1 for every well-formed action of a successful trajectory, else 0."""
    return [1.0 if trajectory.success and step.well_formed else 0.0 for step in trajectory.steps]


@reward_rule("computerrl_abnormal")
def computerrl_abnormal_rewards(trajectory: Trajectory) -> list[float]:
    """ComputerRL's rule, with ``ABNORMAL_END_PENALTY`` on every step of an abnormally ended trajectory."""
    if is_abnormal_end(trajectory):
        return [ABNORMAL_END_PENALTY] * len(trajectory.steps)
    return computerrl_rewards(trajectory)


@reward_rule("verifier_score")
def verifier_score_rewards(trajectory: Trajectory) -> list[float]:
    """The verifier's score (0-1) on every well-formed step, for tasks with partial credit."""
    score = float((trajectory.verifier or {}).get("score", 1.0 if trajectory.success else 0.0))
    score = score if trajectory.success else 0.0
    return [score if step.well_formed else 0.0 for step in trajectory.steps]


def assign_rewards(trajectory: Trajectory, rule: RewardRule | str = "computerrl") -> Trajectory:
    """Set every step's ``reward`` by ``rule`` (a function or a registered name); returns the trajectory."""
    function = get_reward_rule(rule) if isinstance(rule, str) else rule
    rewards = function(trajectory)
    if len(rewards) != len(trajectory.steps):
        raise ValueError(f"reward rule returned {len(rewards)} rewards for {len(trajectory.steps)} steps")
    for step, reward in zip(trajectory.steps, rewards, strict=True):
        step.reward = float(reward)
    return trajectory
