"""Train SmolLM2-135M with TRL's GRPOTrainer through ``rollout_func``: whole desktop episodes per completion (CPU).

The adapter (``DesktopRolloutFunc``) plays one desktop episode per completion with the trainer's own
model and hands TRL the token ids, log-probs, ``env_mask`` and two reward inputs: the verifier's
verdict (``desktop_reward``) and ComputerRL's per-step rewards (``step_rewards``, reduced to a
scalar by ``desktop_step_reward``: TRL takes one reward per completion). The learning demo's prompt
and task, where the untrained model succeeds sometimes::

    python examples/trl_rollout.py --steps 2 --group-size 4
"""

from __future__ import annotations

import time
from typing import Any

from adapter_example import demo_source, summary_line, train_and_report, trl_args, trl_config
from trl import GRPOTrainer

from desktop_gym.llm.model import load_default_model
from desktop_gym.train.adapters.prompting import AdapterPrompt
from desktop_gym.train.adapters.trl_rollout import (
    DesktopRolloutFunc,
    desktop_reward,
    desktop_step_reward,
    rollout_dataset,
)


def _step_rewards(entry: dict[str, Any]) -> str:
    reward, step_reward = (entry.get(f"rewards/{name}/mean") for name in ("desktop_reward", "desktop_step_reward"))
    return f"desktop_reward {reward}, desktop_step_reward {step_reward}"


def main() -> None:
    args = trl_args(__doc__.splitlines()[0], temperature=0.5)

    started = time.monotonic()
    rollout = DesktopRolloutFunc(
        demo_source(1, args.env_server, args.token),
        max_turns=1,
        max_new_tokens=14,
        temperature=args.temperature,
        prompt=AdapterPrompt.demo(),
    )
    tokenizer, model = load_default_model()
    config = trl_config(args, "trl-rollout-", max_completion_length=64, gradient_checkpointing=False)
    trainer = GRPOTrainer(
        model=model,
        args=config,
        processing_class=tokenizer,
        train_dataset=rollout_dataset([args.task], seeds=range(args.steps)),
        rollout_func=rollout,
        reward_funcs=[desktop_reward, desktop_step_reward],
    )
    norms = train_and_report(trainer, rollout, _step_rewards)
    print(f"took {time.monotonic() - started:.0f} s")
    print(summary_line("trl_rollout", rollout.rewards, norms))


if __name__ == "__main__":
    main()
