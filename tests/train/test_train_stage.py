"""A real short training run: 2 RL iterations and 1 SFT phase, real desktop, real SmolLM2-135M."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import pytest

from desktop_gym.episode.trajectory import load_trajectories
from desktop_gym.train.config import EnvSection
from desktop_gym.train.demo import demo_config
from desktop_gym.train.entropulse import EntropulseConfig
from desktop_gym.train.metrics import read_metrics

from .scripted_policies import RightThenWrongPolicy

pytestmark = pytest.mark.stage_train
torch = pytest.importorskip("torch")


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
    moved: list[bool] = []
    rl_update = trainer.rl_update

    def watched_update(trajectories: list, stats: object) -> None:
        watched = list(trainer.model.parameters())[-4:]  # the last layers: any update moves them
        before = [p.detach().clone() for p in watched]
        rl_update(trajectories, stats)
        moved.append(any(not torch.equal(a, p.detach()) for a, p in zip(before, watched, strict=True)))

    trainer.rl_update = watched_update
    try:
        # The first RL iteration's rollouts are scripted (a right and a wrong answer: signal for certain);
        # the later ones are the model's own samples.
        model_policy, trainer.collector.policy = trainer.collector.policy, RightThenWrongPolicy()
        collect = trainer.collect

        def collect_then_sample_from_the_model() -> tuple:
            batch = collect()
            trainer.collector.policy = model_policy
            return batch

        trainer.collect = collect_then_sample_from_the_model
        summary = trainer.run(evaluate=False)
    finally:
        trainer.close()
    rows = read_metrics(tmp_path / "run" / "metrics.jsonl")
    iterations = [row for row in rows if row["kind"] == "iteration"]
    assert [row["phase"] for row in iterations] == ["rl", "rl", "sft"]
    assert [row["phase"] for row in rows if row["kind"] == "phase"] == ["sft", "rl"]
    assert all(math.isfinite(row["entropy"]) for row in iterations)
    # The scripted iteration: 2 samples, 2 passes of one optimizer step each, and the RL step itself moved the weights.
    first = iterations[0]
    assert first["samples"] == 2 and first["optimizer_steps"] == 2 and moved[0]
    assert first["grad_norm"] > 0 and first["ratio_min"] <= 1 <= first["ratio_max"]
    assert 0 <= first["clip_fraction"] <= 1 and first["response_tokens"] > 2
    # An RL iteration whose groups all had zero reward variance makes no update (loss None, weights kept).
    for row, changed in zip([r for r in iterations if r["phase"] == "rl"], moved, strict=True):
        assert (row["loss"] is None and not changed) or (math.isfinite(row["loss"]) and changed)
    # SFT on the buffer: the scripted success (its wrong twin is not kept).
    assert iterations[2]["samples"] >= 1 and iterations[2]["loss"] > 0
    assert Path(summary["plot"]).stat().st_size > 10_000
    assert (tmp_path / "run" / "checkpoint" / "trainer_state.json").exists()
    recorded = load_trajectories(tmp_path / "run" / "trajectories")
    assert len(recorded) == 4 and all(t.steps[0].messages for t in recorded)
    assert sorted(t.success for t in sorted(recorded, key=lambda t: t.started)[:2]) == [False, True]


def test_behavior_cloning_on_a_recorded_oracle_episode(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from desktop_gym.cli import main

    runs = tmp_path / "runs"
    assert main(["run", "--task", "demo.enter_number", "--agent", "oracle", "--out", str(runs)]) == 0
    assert load_trajectories(runs)[0].success
    # The recorded observations (the whole tree, app info) make ~1.5k-token prompts: over the demo's
    # 512-token budget, which BC shares with sampling (it fails with PromptTooLongError there), so this
    # config raises it, and keeps 4 tree lines (a 1.5k-token step costs minutes on one CPU thread).
    config = tmp_path / "bc.toml"
    config.write_text(
        '[env]\ntask_ids = ["demo.enter_number"]\n'
        '[prompt]\nactions_text = "CalcTools.set_cell_value(cell, value)"\na11y_max_nodes = 4\n'
        "[model]\nmax_prompt_tokens = 4096\n"
    )
    arguments = [
        "train",
        "--bc",
        str(runs),
        "--config",
        str(config),
        "--bc-steps",
        "2",
        "--output",
        str(tmp_path / "bc"),
    ]
    assert main(arguments) == 0
    assert "[bc] 2 steps from 1 successful trajectories" in capsys.readouterr().out
    assert (tmp_path / "bc" / "bc-model" / "model.safetensors").stat().st_size > 1_000_000


def test_asynchronous_lora_run_checkpoints_and_resumes(tmp_path: Path) -> None:
    from desktop_gym.train.trainer import Trainer

    base = demo_config(str(tmp_path / "async"))
    config = dataclasses.replace(
        base,
        env=EnvSection(task_ids=("demo.enter_number",), envs=2, max_steps=1),
        model=dataclasses.replace(base.model, lora_rank=4),
        rl=dataclasses.replace(
            base.rl, iterations=2, tasks_per_iteration=1, group_size=2, asynchronous=True, eval_seeds=1
        ),
        entropulse=EntropulseConfig(enabled=False, window=1, min_rl_iterations=2),
    )
    trainer = Trainer(config, progress=False)
    collects, evaluated_with = [], []
    collect, evaluate = trainer.collect, trainer.evaluate
    trainer.collect = lambda: collects.append(1) or collect()

    def watched_evaluate(label: str) -> dict:
        same = all(
            torch.equal(a, b)
            for a, b in zip(
                trainer.model.state_dict().values(), trainer.sampler_policy.model.state_dict().values(), strict=True
            )
        )
        evaluated_with.append((label, same, trainer.sampler_policy.version == trainer.policy.version))
        return evaluate(label)

    trainer.evaluate = watched_evaluate
    try:
        trainer.run(evaluate=True)
        rows = [row for row in read_metrics(tmp_path / "async" / "metrics.jsonl") if row["kind"] == "iteration"]
        assert [row["iteration"] for row in rows] == [1, 2]
        assert rows[1]["policy_lag"] <= config.rl.max_policy_lag  # the second batch sampled during the first update
        assert len(collects) == 2  # no third batch collected and thrown away
        assert evaluated_with == [("before", True, True), ("after", True, True)]  # "after" samples the trained weights
        assert (tmp_path / "async" / "checkpoint" / "adapter_model.safetensors").exists()
        trainer.resume()
        assert trainer.iteration == 2
    finally:
        trainer.close()
