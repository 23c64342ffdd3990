"""TRL's own ``GRPOTrainer`` trains through our ``rollout_func``: whole desktop episodes per completion."""

from __future__ import annotations

import json
from typing import Any

import pytest

from desktop_gym.train.adapters.trl_rollout import (
    ROW_MARKER,
    DesktopRolloutFunc,
    desktop_reward,
    desktop_step_reward,
    parse_rollout_prompt,
    rollout_dataset,
)

from .conftest import DEMO_SOURCE, DEMO_TASK_ID, DEMO_TOOLS, SOURCE, TASK_ID, TOOLS, cpu_grpo_args, train_grpo
from .scripted import DEMO_PREFILL, StandInScriptedModel


def _train_through(rollout: DesktopRolloutFunc, smol: Any, args: Any, dataset: Any, reward_funcs: Any) -> Any:
    """Train GRPO on ``dataset`` through ``rollout`` with SmolLM2 (``smol``), then close its desktops."""
    tokenizer, model = smol
    return train_grpo(
        model, tokenizer, args, rollout, train_dataset=dataset, rollout_func=rollout, reward_funcs=reward_funcs
    )


def test_rows_carry_task_and_seed_and_bad_prompts_are_named() -> None:
    rows = rollout_dataset([TASK_ID], seeds=[5, 6])
    assert [parse_rollout_prompt(row["prompt"]) for row in rows] == [(TASK_ID, 5), (TASK_ID, 6)]
    with pytest.raises(ValueError, match="rollout_dataset"):
        parse_rollout_prompt([{"role": "user", "content": "no row here"}])
    with pytest.raises(ValueError, match="seed"):
        parse_rollout_prompt(ROW_MARKER + json.dumps({"task_id": TASK_ID, "seed": "x"}))
    with pytest.raises(ValueError, match="task_id"):
        parse_rollout_prompt(ROW_MARKER + json.dumps({"seed": 1}))
    with pytest.raises(ValueError, match="completions"):
        desktop_reward([["a"]], desktop_reward=[1.0, 0.0])
    with pytest.raises(ValueError, match="step_rewards"):
        desktop_step_reward([["a"]], step_rewards=[])
    assert desktop_step_reward(["a", "b"], step_rewards=[[1.0, 0.0], []]) == [0.5, 0.0]
    with pytest.raises(ValueError, match="max_turns"):
        DesktopRolloutFunc(SOURCE, max_turns=0)


@pytest.mark.stage_adapters
@pytest.mark.timeout(600)
def test_grpo_trainer_runs_two_steps_through_rollout_func_on_real_desktops(smol, tmp_path) -> None:
    tokenizer, model = smol
    rollout = DesktopRolloutFunc(SOURCE, max_turns=2, max_new_tokens=12, tools=TOOLS)
    args = cpu_grpo_args(tmp_path, max_completion_length=512, gradient_checkpointing=False)
    trainer = _train_through(rollout, smol, args, rollout_dataset([TASK_ID], seeds=range(2)), desktop_reward)
    assert trainer.state.global_step == 2
    assert len(rollout.rewards) == 4  # 2 steps x 2 completions, each a whole desktop episode
    assert all(verdict is not None for verdict in rollout.verdicts)  # the verifier judged every desktop
    logged = [entry for entry in trainer.state.log_history if "rewards/desktop_reward/mean" in entry]
    assert len(logged) == 2, trainer.state.log_history
    logged_mean = sum(entry["rewards/desktop_reward/mean"] for entry in logged) / 2
    assert logged_mean == pytest.approx(sum(rollout.rewards) / 4, abs=1e-6)


@pytest.mark.stage_adapters
@pytest.mark.timeout(300)
def test_rollout_func_gives_reward_one_to_the_correct_episode_and_zero_to_the_wrong_one(smol, tmp_path) -> None:
    tokenizer, model = smol
    scripted = StandInScriptedModel(tokenizer, prefill=DEMO_PREFILL, wrong_episodes=frozenset({1}))
    rollout = DesktopRolloutFunc(DEMO_SOURCE, max_turns=1, tools=DEMO_TOOLS, prefill=DEMO_PREFILL, sampler=scripted)
    args = cpu_grpo_args(tmp_path, max_steps=1, max_completion_length=64, gradient_checkpointing=False)
    dataset = rollout_dataset([DEMO_TASK_ID], seeds=range(2))
    trainer = _train_through(rollout, smol, args, dataset, [desktop_reward, desktop_step_reward])
    assert trainer.state.global_step == 1
    assert [wrong for _, wrong in scripted.answers] == [False, True]
    # The played action is the prefill plus the scripted continuation: the oracle's whole call.
    assert [actions[0] for actions in rollout.actions] == [text for text, _ in scripted.answers]
    assert rollout.rewards == [1.0, 0.0], rollout.verdicts  # the task verifier read the live cell
    assert rollout.step_rewards == [[1.0], [0.0]]  # ComputerRL: the one well-formed step of the success
    # TRL's own reward bookkeeping holds the same verdicts, per completion, in order.
    assert list(trainer._logs["rewards"]["desktop_reward"]) == [1.0, 0.0]
    assert list(trainer._logs["rewards"]["desktop_step_reward"]) == [1.0, 0.0]
