"""A real short training run: 2 RL iterations and 1 SFT phase, real desktop, real SmolLM2-135M."""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Sequence
from pathlib import Path

import pytest

from desktop_gym.train.config import EnvSection
from desktop_gym.train.demo import demo_config
from desktop_gym.train.entropulse import EntropulseConfig
from desktop_gym.train.metrics import read_metrics
from desktop_gym.episode.prompts import Generation, Messages, text_only
from desktop_gym.train.rollout import EpisodeSpec
from desktop_gym.episode.trajectory import load_trajectories

pytestmark = pytest.mark.stage_train


class InstructionOraclePolicy:
    """Completes the demo prefill with the call the instruction asks for (read from the prompt text)."""

    def generate(self, batch: Sequence[Messages]) -> list[Generation]:
        answers = []
        for messages in batch:
            text = " ".join(str(m["content"]) for m in text_only(messages) if m["role"] == "user")
            value, cell = re.search(r"number (\d+) into cell ([A-Z]+\d+)", text).groups()
            answers.append(Generation(text=f'{cell}", value={value})'))
        return answers


def test_two_rl_iterations_and_one_sft_phase(tmp_path: Path) -> None:
    from desktop_gym.train.trainer import Trainer

    base = demo_config(str(tmp_path / "run"))
    config = dataclasses.replace(
        base,
        env=EnvSection(task_ids=("demo.enter_number",), envs=2, max_steps=1),
        rl=dataclasses.replace(base.rl, iterations=3, tasks_per_iteration=1, group_size=2, learning_rate=1e-4),
        entropulse=EntropulseConfig(window=1, min_rl_iterations=2, max_rl_iterations=2, sft_steps=1, sft_batch_size=2),
        record_trajectories=True,
    )
    trainer = Trainer(config, progress=False)
    try:
        # One real oracle-played episode in the SFT buffer: the SFT phase has data even if the model never succeeds.
        policy, trainer.collector.policy = trainer.collector.policy, InstructionOraclePolicy()
        oracle = trainer.collector.collect([EpisodeSpec("demo.enter_number", 7)], progress=False)
        trainer.collector.policy = policy
        assert oracle[0].success and oracle[0].steps[0].reward == 1.0
        trainer.buffer += oracle
        watched = {name: p.detach().clone() for name, p in list(trainer.model.named_parameters())[-4:]}
        summary = trainer.run(evaluate=False)
    finally:
        trainer.close()
    rows = read_metrics(tmp_path / "run" / "metrics.jsonl")
    iterations = [row for row in rows if row["kind"] == "iteration"]
    assert [row["phase"] for row in iterations] == ["rl", "rl", "sft"]
    assert [row["phase"] for row in rows if row["kind"] == "phase"] == ["sft", "rl"]
    assert all(math.isfinite(row["entropy"]) for row in iterations)
    # an RL iteration whose groups all had zero reward variance makes no update and logs loss None
    assert all(row["loss"] is None or math.isfinite(row["loss"]) for row in iterations)
    assert iterations[-1]["samples"] >= 1 and iterations[-1]["loss"] > 0
    changed = dict(trainer.model.named_parameters())
    assert any(not (changed[name].detach() == before).all() for name, before in watched.items())
    assert Path(summary["plot"]).stat().st_size > 10_000
    assert (tmp_path / "run" / "checkpoint" / "trainer_state.json").exists()
    recorded = load_trajectories(tmp_path / "run" / "trajectories")
    assert len(recorded) == 5 and all(t.steps[0].messages for t in recorded)


def test_behavior_cloning_on_a_recorded_oracle_episode(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from desktop_gym.cli import main

    runs = tmp_path / "runs"
    assert main(["run", "--task", "demo.enter_number", "--agent", "oracle", "--out", str(runs)]) == 0
    assert load_trajectories(runs)[0].success
    assert main(["train", "--bc", str(runs), "--bc-steps", "2", "--output", str(tmp_path / "bc")]) == 0
    assert "[bc] 2 steps from 1 successful trajectories" in capsys.readouterr().out
    assert (tmp_path / "bc" / "bc-model" / "model.safetensors").stat().st_size > 1_000_000


def test_asynchronous_lora_run_checkpoints_and_resumes(tmp_path: Path) -> None:
    from desktop_gym.train.trainer import Trainer

    base = demo_config(str(tmp_path / "async"))
    config = dataclasses.replace(
        base,
        env=EnvSection(task_ids=("demo.enter_number",), envs=2, max_steps=1),
        model=dataclasses.replace(base.model, lora_rank=4),
        rl=dataclasses.replace(base.rl, iterations=2, tasks_per_iteration=1, group_size=2, asynchronous=True),
        entropulse=EntropulseConfig(enabled=False, window=1, min_rl_iterations=2),
    )
    trainer = Trainer(config, progress=False)
    try:
        trainer.run(evaluate=False)
        rows = [row for row in read_metrics(tmp_path / "async" / "metrics.jsonl") if row["kind"] == "iteration"]
        assert [row["iteration"] for row in rows] == [1, 2]
        assert rows[1]["policy_lag"] <= config.rl.max_policy_lag  # the second batch sampled during the first update
        assert (tmp_path / "async" / "checkpoint" / "adapter_model.safetensors").exists()
        trainer.resume()
        assert trainer.iteration == 2
    finally:
        trainer.close()
