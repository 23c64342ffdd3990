"""Shared pieces of the adapter tests: the offline model and a short Calc task in API mode."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from desktop_gym.train.adapters.episode import EnvSource

TASK_ID = "calc.enter_value"
TOOLS = ["CalcTools__set_cell_value", "CalcTools__save", "DONE"]
SOURCE = EnvSource(
    options={
        "action_mode": "api",
        "observation": ("instruction", "last_action_result", "last_action_error"),
        "max_steps": 3,
        "settle_timeout": 0.3,
    }
)
"""Desktops for the adapter runs: API actions only, a short text observation, at most 3 steps an episode
(prompts stay ~500 tokens: on 2 shared CPU cores the prefill is what costs)."""
DEMO_TASK_ID = "demo.enter_number"
DEMO_TOOLS = ["CalcTools__set_cell_value"]
DEMO_SOURCE = EnvSource(options={**SOURCE.options, "max_steps": 1})
"""The learning demo's task with one step an episode: one call decides the verifier's verdict."""


def cpu_grpo_args(output_dir: Any, **overrides: Any) -> Any:
    """TRL ``GRPOConfig`` for the 2-step CPU runs: batch 2, 2 generations, no saving or reporting."""
    from trl import GRPOConfig

    options = {
        "output_dir": str(output_dir),
        "per_device_train_batch_size": 2,
        "num_generations": 2,
        "max_steps": 2,
        "learning_rate": 1e-5,
        "logging_steps": 1,
        "save_strategy": "no",
        "report_to": "none",
        "use_cpu": True,
        "bf16": False,
        "temperature": 1.0,
        "seed": 0,
    }
    return GRPOConfig(**{**options, **overrides})


def train_grpo(model: Any, processing_class: Any, args: Any, desktops: Any, **data: Any) -> Any:
    """Train TRL's ``GRPOTrainer`` on ``data`` (dataset, rollout or environment factory, reward functions),
    then close ``desktops`` (the object holding the desktops) whatever happened; returns the trainer."""
    from trl import GRPOTrainer

    trainer = GRPOTrainer(model=model, args=args, processing_class=processing_class, **data)
    try:
        trainer.train()
    finally:
        desktops.close()
    return trainer


@pytest.fixture(scope="session")
def smol() -> tuple[Any, Any]:
    """A fresh ``(tokenizer, model)`` of SmolLM2-135M-Instruct (the offline default model)."""
    from desktop_gym.llm.model import load_default_model

    return load_default_model()


@pytest.fixture(autouse=True, scope="module")
def _close_pooled_desktops() -> Any:
    """Close the desktops verl's loops and OpenRLHF's instances left in the pool, after each test module."""
    yield
    from desktop_gym.train.adapters.pool import DESKTOP_POOL

    DESKTOP_POOL.close()


@pytest.fixture
def open_dir() -> Iterator[Path]:
    """A fresh folder anyone may enter: the desktop's apps run as the session user and start in the
    caller's working directory (pytest's ``tmp_path`` is private to root)."""
    path = Path(tempfile.mkdtemp(prefix="desktop-gym-vf-"))
    path.chmod(0o755)
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)
