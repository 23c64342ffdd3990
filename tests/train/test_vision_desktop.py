"""The vision trainer on the real desktop: a tiny random LLaVA samples ``demo.enter_number`` from screenshots.

The rollout keeps each step's screenshot as a PNG file (the step holds its path, not the pixels),
GRPO trains through the stored pixels, and a checkpoint saves and resumes the model with its
processor.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from desktop_gym.env import DesktopEnv
from desktop_gym.episode.images import load_images
from desktop_gym.episode.prompts import Messages
from desktop_gym.train.config import EnvSection, PromptSection, RLSection
from desktop_gym.train.demo import demo_config

from .scripted_policies import RightThenWrongPolicy
from .tiny_models import tiny_vlm

torch = pytest.importorskip("torch")
OBSERVATION = ("instruction", "screenshot", "last_action_result", "last_action_error")


def _image_paths(messages: Messages) -> list[str]:
    return [
        b["image"] for m in messages if isinstance(m["content"], list) for b in m["content"] if b["type"] == "image"
    ]


def test_vision_rollout_stores_screenshots_and_trains_through_them(desktop: Any, tmp_path: Path) -> None:
    from desktop_gym.train.trainer import Trainer
    from desktop_gym.train.vision_policy import VisionPolicy

    base = demo_config(str(tmp_path / "run"))
    config = dataclasses.replace(
        base,
        env=EnvSection(task_ids=("demo.enter_number",), envs=1, max_steps=1, observation=OBSERVATION),
        prompt=dataclasses.replace(base.prompt, vision=True, max_screenshots=1),
        rl=RLSection(
            iterations=1,
            tasks_per_iteration=1,
            group_size=2,
            learning_rate=1e-2,
            micro_batch=2,
            updates_per_iteration=2,
            frontier=False,
        ),
    )
    assert isinstance(config.prompt, PromptSection)
    env = DesktopEnv("demo.enter_number", backend=desktop, observation=OBSERVATION, max_steps=1, settle_timeout=0)
    trainer = Trainer(config, envs=[env], model=tiny_vlm(seed=3), progress=False)
    try:
        assert isinstance(trainer.policy, VisionPolicy)
        # 1. The VLM samples one step from the screenshot; the step keeps the screenshot as a PNG path.
        trajectories, _ = trainer.collect()
        step = trajectories[0].steps[0]
        (path,) = _image_paths(step.messages)
        assert Path(path).parent == (tmp_path / "run" / "images").resolve() and Path(path).is_file()
        pixels = load_images(step.messages)[1]["content"][0]["image"]
        assert pixels.shape == (720, 1280, 3) and pixels.std() > 0  # the real desktop's screen
        assert step.info["token_ids"] and step.logprobs and len(step.logprobs) == len(step.info["token_ids"])
        # 2. GRPO on scripted answers (signal in the group) trains the vision tower through the stored pixels.
        trainer.collector.policy = RightThenWrongPolicy()
        batch = trainer.collect()
        assert [t.success for t in batch[0]] == [True, False]
        tower = [p for name, p in trainer.model.named_parameters() if "vision_tower" in name]
        before = [p.detach().clone() for p in tower]
        trainer.rl_update(*batch)
        assert trainer.last["samples"] == 2 and trainer.last["optimizer_steps"] == 2
        assert any(not torch.equal(a, p.detach()) for a, p in zip(before, tower, strict=True))
        # 3. A checkpoint keeps the processor and resumes the vision model.
        folder = trainer.save_checkpoint()
        assert (folder / "processor_config.json").is_file() or (folder / "preprocessor_config.json").is_file()
        weights = {k: v.clone() for k, v in trainer.model.state_dict().items()}
        with torch.no_grad():
            next(trainer.model.parameters()).add_(1.0)
        trainer.resume(folder)
        assert all(torch.equal(weights[k], v) for k, v in trainer.model.state_dict().items())
        assert np.isfinite(trainer.last["loss"])
    finally:
        trainer.close()
        env.close()
