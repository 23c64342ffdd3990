"""Train SmolLM2-135M with TRL's GRPOTrainer on a real desktop task (CPU, a few minutes).

pip install -e ".[train,trl]"     # scripts/install.sh does this
python examples/trl_grpo.py --steps 2
python examples/trl_grpo.py --env-server 127.0.0.1:50051 --token ...   # desktops on an env server
"""

from __future__ import annotations

import argparse
import tempfile

from trl import GRPOConfig, GRPOTrainer

from desktop_gym.llm.model import load_default_model
from desktop_gym.train.adapters.episode import EnvSource
from desktop_gym.train.adapters.trl import DesktopGymSpec, with_tool_chat_template


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--task", default="calc.enter_value")
    parser.add_argument("--steps", type=int, default=2, help="optimizer steps")
    parser.add_argument("--env-server", default=None, help="host:port of desktop-gym serve (default: desktops here)")
    parser.add_argument("--token", default=None)
    args = parser.parse_args()

    source = EnvSource(
        address=args.env_server,
        token=args.token,
        options={"action_mode": "api", "observation": ("instruction", "last_action_result", "last_action_error")},
    )
    spec = DesktopGymSpec(
        [args.task], seeds=range(16), source=source, tools=["CalcTools__set_cell_value", "CalcTools__save"]
    )
    tokenizer, model = load_default_model()
    config = GRPOConfig(
        output_dir=tempfile.mkdtemp(prefix="trl-desktop-"),
        per_device_train_batch_size=2,
        num_generations=2,
        max_completion_length=48,
        max_tool_calling_iterations=2,
        max_steps=args.steps,
        logging_steps=1,
        save_strategy="no",
        report_to="none",
        use_cpu=True,
    )
    trainer = GRPOTrainer(
        model=model,
        args=config,
        processing_class=with_tool_chat_template(tokenizer),
        train_dataset=spec.train_dataset,
        environment_factory=spec.environment_factory,
        reward_funcs=spec.reward_funcs,
    )
    try:
        trainer.train()
    finally:
        spec.close()
    for entry in trainer.state.log_history:
        if "reward" in entry:
            print(f"step {entry.get('step')}: reward {entry['reward']:.3f} (from the task verifier)")


if __name__ == "__main__":
    main()
