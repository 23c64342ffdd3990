"""The rollout collector's bookkeeping, over stand-in envs (the real-desktop run is in test_train_stage)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from desktop_gym.episode.prompts import Generation, Messages, PromptConfig
from desktop_gym.train.rollout import EpisodeSpec, RolloutCollector, grouped_episodes


class StandInEnv:
    """Stands in for a DesktopEnv: succeeds when the action names the seed; seed 13's step raises."""

    def reset(self, *, seed: int, options: dict[str, Any]) -> tuple[dict, dict]:
        self.seed = seed
        return {"instruction": f"say {seed}"}, {"instruction": f"say {seed}", "params": {"n": seed}}

    def step(self, action: str) -> tuple[dict, float, bool, bool, dict]:
        if self.seed == 13:
            raise RuntimeError("the desktop died")
        success = action == f"exit(success={self.seed % 2 == 0})"
        return {"last_action_result": "ok"}, float(success), True, False, {"success": success}

    def describe(self, fmt: str = "python") -> str:
        return "exit(success)"


class EchoPolicy:
    """Answers with the seed parity read from the prompt (odd seeds answer wrongly)."""

    def generate(self, batch: Sequence[Messages]) -> list[Generation]:
        answers = []
        for messages in batch:
            seed = int(str(messages[-2]["content"]).rsplit(" ", 1)[-1])
            answers.append(Generation(text=f"success={seed % 2 == 0 or seed == 3})", token_ids=[1, 2]))
        return answers


def test_collect_keeps_order_groups_rewards_and_crashes() -> None:
    collector = RolloutCollector(
        [StandInEnv() for _ in range(3)], EchoPolicy(), PromptConfig(prefill="exit(", history=0)
    )
    try:
        episodes = [*grouped_episodes([("t", 2), ("t", 3)], 2), EpisodeSpec("t", 13)]
        trajectories = collector.collect(episodes, progress=False)
        assert [t.seed for t in trajectories] == [2, 2, 3, 3, 13]
        assert [t.success for t in trajectories] == [True, True, False, False, False]
        assert [t.steps[0].reward for t in trajectories] == [1.0, 1.0, 0.0, 0.0, 0.0]
        assert trajectories[0].meta["group"] == "t#2" and trajectories[0].steps[0].action == "exit(success=True)"
        assert "the desktop died" in (trajectories[4].crash or "")
        assert collector.stats.episodes == 5 and collector.stats.tokens == 10
        one = collector.collect([EpisodeSpec("t", 4)], progress=False)  # fewer episodes than envs
        assert one[0].success
    finally:
        collector.close()


class PrefetchRecordingEnv(StandInEnv):
    """A stand-in env that records each reset's seed and the episode it was asked to prefetch."""

    def __init__(self) -> None:
        self.resets: list[tuple[int, int | None]] = []

    def reset(self, *, seed: int, options: dict[str, Any]) -> tuple[dict, dict]:
        prefetch = options.get("prefetch")
        self.resets.append((seed, prefetch["seed"] if prefetch else None))
        return super().reset(seed=seed, options=options)


def test_prefetch_names_each_envs_next_episode_and_runs_it_next() -> None:
    envs = [PrefetchRecordingEnv() for _ in range(2)]
    collector = RolloutCollector(envs, EchoPolicy(), PromptConfig(prefill="exit(", history=0), prefetch=True)
    try:
        seeds = [2, 4, 6, 8, 10]
        trajectories = collector.collect([EpisodeSpec("t", seed) for seed in seeds], progress=False)
        assert [t.seed for t in trajectories] == seeds and all(t.success for t in trajectories)
        for env in envs:  # each reset to the episode the previous reset named, and the last names none
            assert [seed for seed, _ in env.resets[1:]] == [named for _, named in env.resets[:-1]]
            assert env.resets[-1][1] is None
        assert sorted(seed for env in envs for seed, _ in env.resets) == seeds
    finally:
        collector.close()
    plain = PrefetchRecordingEnv()
    collector = RolloutCollector([plain], EchoPolicy(), PromptConfig(prefill="exit(", history=0))
    try:
        collector.collect([EpisodeSpec("t", 2), EpisodeSpec("t", 4)], progress=False)
        assert plain.resets == [(2, None), (4, None)]  # prefetch is opt-in
    finally:
        collector.close()
