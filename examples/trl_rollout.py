"""Train SmolLM2-135M with TRL's GRPOTrainer through ``rollout_func``: whole desktop episodes per completion (CPU).

The adapter (``DesktopRolloutFunc``) plays one desktop episode per completion with the trainer's own
model and hands TRL the token ids, log-probs, ``env_mask`` and two reward inputs: the verifier's
verdict (``desktop_reward``) and ComputerRL's per-step rewards (``step_rewards``, reduced to a
scalar by ``desktop_step_reward``: TRL takes one reward per completion). The learning demo's prompt
and task, where the untrained model succeeds sometimes::

    python examples/trl_rollout.py --steps 2 --group-size 4
"""

from __future__ import annotations

import argparse
import tempfile
import time

from adapter_example import DEMO_TASK, demo_source, summary_line
from trl import GRPOConfig, GRPOTrainer

from desktop_gym.llm.model import load_default_model
from desktop_gym.train.adapters.prompting import AdapterPrompt
from desktop_gym.train.adapters.trl_rollout import (
    DesktopRolloutFunc,
    desktop_reward,
    desktop_step_reward,
    rollout_dataset,
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--task", default=DEMO_TASK)
    parser.add_argument("--steps", type=int, default=2, help="optimizer steps")
    parser.add_argument("--group-size", type=int, default=4, help="completions per prompt (one GRPO group a step)")
    parser.add_argument("--temperature", type=float, default=0.5)
    parser.add_argument("--env-server", default=None, help="host:port of desktop-gym serve (default: desktops here)")
    parser.add_argument("--token", default=None)
    args = parser.parse_args()
    if not 1 <= args.steps <= 100 or not 2 <= args.group_size <= 64:
        parser.error("need 1 <= --steps <= 100 and 2 <= --group-size <= 64")

    started = time.monotonic()
    rollout = DesktopRolloutFunc(
        demo_source(1, args.env_server, args.token),
        max_turns=1,
        max_new_tokens=14,
        temperature=args.temperature,
        prompt=AdapterPrompt.demo(),
    )
    tokenizer, model = load_default_model()
    config = GRPOConfig(
        output_dir=tempfile.mkdtemp(prefix="trl-rollout-"),
        per_device_train_batch_size=args.group_size,
        num_generations=args.group_size,
        max_completion_length=64,
        max_steps=args.steps,
        learning_rate=1e-5,
        logging_steps=1,
        save_strategy="no",
        report_to="none",
        use_cpu=True,
        bf16=False,
        gradient_checkpointing=False,
        seed=0,
    )
    trainer = GRPOTrainer(
        model=model,
        args=config,
        processing_class=tokenizer,
        train_dataset=rollout_dataset([args.task], seeds=range(args.steps)),
        rollout_func=rollout,
        reward_funcs=[desktop_reward, desktop_step_reward],
    )
    try:
        trainer.train()
    finally:
        rollout.close()
    norms = []
    for entry in trainer.state.log_history:
        if "grad_norm" in entry:
            norms.append(float(entry["grad_norm"]))
            reward, step_reward = (
                entry.get(f"rewards/{name}/mean") for name in ("desktop_reward", "desktop_step_reward")
            )
            print(
                f"step {entry.get('step')}: desktop_reward {reward}, desktop_step_reward {step_reward}, "
                f"grad norm {norms[-1]:.4f}"
            )
    print(f"took {time.monotonic() - started:.0f} s")
    print(summary_line("trl_rollout", rollout.rewards, norms))


if __name__ == "__main__":
    main()
