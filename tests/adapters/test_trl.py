"""TRL's own ``GRPOTrainer`` trains SmolLM2-135M for two optimizer steps against real desktops."""

from __future__ import annotations

import math
import pickle

import pytest

from desktop_gym.train.adapters.trl import DesktopGymSpec, environment_class, with_tool_chat_template

from .conftest import SOURCE, TASK_ID, TOOLS, cpu_grpo_args


def test_environment_class_pickles_without_a_desktop_and_exposes_only_the_chosen_tools() -> None:
    cls = environment_class([TASK_ID], SOURCE, tools=TOOLS)
    env = cls()
    copy = pickle.loads(pickle.dumps(env))
    assert type(copy).__name__ == cls.__name__ and copy.source == SOURCE
    public = sorted(name for name in vars(cls) if callable(vars(cls)[name]) and not name.startswith("_"))
    assert public == sorted(TOOLS)
    with pytest.raises(ValueError, match="not offered"):
        environment_class([TASK_ID], SOURCE, tools=["CalcTools__no_such_method"])


@pytest.mark.stage_adapters
def test_grpo_trainer_runs_two_steps_on_real_desktops_with_verifier_rewards(smol, tmp_path) -> None:
    from trl import GRPOTrainer

    tokenizer, model = smol
    tokenizer = with_tool_chat_template(tokenizer)
    spec = DesktopGymSpec([TASK_ID], seeds=range(2), source=SOURCE, tools=TOOLS)
    args = cpu_grpo_args(tmp_path, max_completion_length=40, max_tool_calling_iterations=1)
    trainer = GRPOTrainer(
        model=model,
        args=args,
        processing_class=tokenizer,
        train_dataset=spec.train_dataset,
        environment_factory=spec.environment_factory,
        reward_funcs=spec.reward_funcs,
    )
    try:
        trainer.train()
    finally:
        spec.close()
    assert trainer.state.global_step == 2
    logged = [entry for entry in trainer.state.log_history if f"rewards/{spec.env_class.__name__}/mean" in entry]
    assert len(logged) == 2, trainer.state.log_history
    episodes = [reward for env in spec.instances for reward in env.rewards]
    assert len(episodes) == 4  # 2 steps x 2 rollouts, each scored by get_reward
    for env in spec.instances:
        if env.rewards:
            assert env.episode.verifier is not None  # the verifier judged the desktop
    logged_mean = sum(entry[f"rewards/{spec.env_class.__name__}/mean"] for entry in logged) / 2
    assert math.isclose(logged_mean, sum(episodes) / 4, abs_tol=1e-6)
