"""Behavior-cloning data from API oracles on a real desktop, and held-out instances by parameters."""

from __future__ import annotations

import pytest

from desktop_gym.episode.prompts import PromptConfig
from desktop_gym.train.bc import FINAL_ACTION, oracle_actions, record_oracle
from desktop_gym.train.heldout import instance_key, instance_params, split_instances
from desktop_gym.train.model_ops import END_OF_TURN, step_sample
from desktop_gym.train.rollout import EpisodeSpec

from .tiny_models import offline_tokenizer


def test_held_out_seeds_never_share_parameters_with_training_seeds() -> None:
    train, held = split_instances("calc.rename_sheet", 30, 10)
    assert len(train) == 30 and len(held) == 10 and not set(train) & set(held)
    train_keys = {instance_key(instance_params("calc.rename_sheet", seed)) for seed in train}
    held_keys = {instance_key(instance_params("calc.rename_sheet", seed)) for seed in held}
    assert len(train_keys) == 30 and len(held_keys) == 10 and not train_keys & held_keys
    assert split_instances("calc.rename_sheet", 30, 10) == (train, held)


def test_split_names_the_shortfall_and_caps_the_search() -> None:
    with pytest.raises(ValueError, match="fewer than"):
        split_instances("demo.enter_number", 5, 5, search=3)
    with pytest.raises(ValueError, match="capped"):
        split_instances("demo.enter_number", 5, 5, search=10**9)


def test_instance_params_are_the_ones_reset_draws() -> None:
    from desktop_gym.env import DesktopEnv

    env = DesktopEnv("demo.enter_number", observation=("instruction",), settle_timeout=0.0)
    try:
        _, info = env.reset(seed=7)
        assert info["params"] == instance_params("demo.enter_number", 7)
    finally:
        env.close()


def test_oracle_actions_end_with_exit_and_refuse_tasks_without_plain_calls() -> None:
    params = instance_params("calc.rename_sheet", 0)
    actions = oracle_actions("calc.rename_sheet", params)
    assert actions[0].startswith("CalcTools.rename_sheet(") and actions[-1] == FINAL_ACTION
    with pytest.raises(ValueError, match="no API oracle"):
        oracle_actions("starter.calc_fill_totals", instance_params("starter.calc_fill_totals", 0))


def test_recorded_oracle_passes_and_its_steps_are_training_samples() -> None:
    from desktop_gym.actions import ActionSet
    from desktop_gym.env import DesktopEnv

    env = DesktopEnv(
        "calc.rename_sheet",
        observation=("instruction", "last_action_result", "last_action_error"),
        action_set=ActionSet(style="computerrl", targets="coordinates"),
        max_steps=5,
        settle_timeout=0.0,
    )
    prompt = PromptConfig(parts=("instruction", "last_action_result", "last_action_error"), history=1)
    try:
        (trajectory,) = record_oracle([env], [EpisodeSpec("calc.rename_sheet", 3)], prompt, "brief")
    finally:
        env.close()
    assert trajectory.success, trajectory.verifier
    actions = [step.action for step in trajectory.steps]
    assert actions == oracle_actions("calc.rename_sheet", trajectory.params)
    first = trajectory.steps[0].messages
    assert (
        first[0]["role"] == "system" and "CalcTools.rename_sheet(old_name: str, new_name: str)" in first[0]["content"]
    )
    assert trajectory.instruction in first[1]["content"]
    second = trajectory.steps[1].messages  # the history shows the first call
    assert any(m["role"] == "assistant" and m["content"] == actions[0] for m in second)
    tokenizer = offline_tokenizer()
    sample = step_sample(tokenizer, trajectory.steps[0], max_prompt_tokens=4096)
    assert tokenizer.decode(sample.response_ids) == actions[0] + END_OF_TURN
