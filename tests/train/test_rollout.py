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
