"""Resume continues the run it was cut from: a resumed run ends in the state the uninterrupted one ends in.

The envs stand in for desktops (named so): their verdict is a fixed function of the sampled text,
so every difference between the two runs comes from the trainer's own state.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from desktop_gym.train.config import EnvSection, ModelSection, PromptSection, RLSection, TrainConfig
from desktop_gym.train.entropulse import EntropulseConfig
from desktop_gym.train.grpo import GRPOConfig

from .tiny_models import offline_tokenizer, tiny_llama

torch = pytest.importorskip("torch")


class AnyTextParses:
    def parse(self, text: str) -> list[str]:
        return [text]


class StandInEnv:
    """Stands in for a DesktopEnv: an episode of one step succeeds when the answer has an even length."""

    exposure = SimpleNamespace(parser=AnyTextParses())

    def reset(self, *, seed: int, options: dict[str, Any]) -> tuple[dict, dict]:
        return {"instruction": f"say {seed}"}, {"instruction": f"say {seed}", "params": {"n": seed}}

    def step(self, action: str) -> tuple[dict, float, bool, bool, dict]:
        success = len(action) % 2 == 0
        return {"last_action_result": "ok"}, float(success), True, False, {"success": success}

    def describe(self, fmt: str = "python") -> str:
        return "say(text)"


def config(output: Path, iterations: int) -> TrainConfig:
    return TrainConfig(
        output=str(output),
        env=EnvSection(task_ids=("standin",), envs=2, max_steps=1),
        prompt=PromptSection(system_role="Say a word.", actions_text="say(x)", history=0),
        model=ModelSection(temperature=1.0, max_new_tokens=4, max_prompt_tokens=96, bf16=False, threads=1),
        rl=RLSection(
            iterations=iterations,
            tasks_per_iteration=2,
            group_size=2,
            train_seeds=50,
            learning_rate=1e-3,
            micro_batch=4,
            updates_per_iteration=2,
            seed=3,
        ),
        grpo=GRPOConfig(kl_coef=0.05),
        entropulse=EntropulseConfig(window=1, min_rl_iterations=2, max_rl_iterations=2, sft_steps=2, sft_batch_size=2),
    )


def trainer_for(output: Path, iterations: int) -> Any:
    from desktop_gym.train.trainer import Trainer

    tokenizer = offline_tokenizer()
    model = tiny_llama(len(tokenizer), seed=0, context=128)
    envs = [StandInEnv(), StandInEnv()]
    return Trainer(config(output, iterations), envs=envs, model=(tokenizer, model), progress=False)


def state_of(trainer: Any) -> dict[str, Any]:
    return {
        "iteration": trainer.iteration,
        "version": trainer.policy.version,
        "phases": trainer.trigger.phases_done,
        "model": {k: v.clone() for k, v in trainer.model.state_dict().items()},
        "reference": {k: v.clone() for k, v in trainer.reference.state_dict().items()},
        "rng": json.dumps(trainer.rng.bit_generator.state),
        "sampler_rng": json.dumps(trainer.sampler._rng.bit_generator.state),
        "torch_rng": torch.get_rng_state().clone(),
        "buffer": [(t.task_id, t.seed, [s.action for s in t.steps]) for t in trainer.buffer],
        "frontier": dict(trainer.sampler.success),
        "set_aside": set(trainer.sampler.set_aside),
    }


def run(output: Path, iterations: int, resume_from: Path | None = None) -> dict[str, Any]:
    trainer = trainer_for(output, iterations)
    try:
        if resume_from is not None:
            trainer.resume(resume_from)
        trainer.run(evaluate=False)
        return state_of(trainer)
    finally:
        trainer.close()


def assert_same(resumed: dict[str, Any], straight: dict[str, Any]) -> None:
    for key in ("iteration", "version", "phases", "rng", "sampler_rng", "buffer", "frontier", "set_aside"):
        assert resumed[key] == straight[key], key
    assert torch.equal(resumed["torch_rng"], straight["torch_rng"])
    for part in ("model", "reference"):
        for name, value in straight[part].items():
            assert torch.equal(resumed[part][name], value), f"{part}.{name}"


@pytest.mark.slow
def test_a_resumed_run_equals_the_uninterrupted_one(tmp_path: Path) -> None:
    straight = run(tmp_path / "straight", 4)  # RL, RL, SFT, RL
    assert straight["phases"] == 1 and straight["iteration"] == 4 and straight["buffer"]
    assert set(straight["frontier"]) == {"standin"}  # Frontier Sampling keyed by task id, not by instance
    for cut_after in (1, 3):  # before the SFT phase (the buffer, the initial reference), after it (the SFT reference)
        run(tmp_path / f"first-{cut_after}", cut_after)
        resumed = run(tmp_path / f"second-{cut_after}", 4, resume_from=tmp_path / f"first-{cut_after}" / "checkpoint")
        assert_same(resumed, straight)
