"""What the trainer-adapter examples share: their command lines, the learning demo's setup, the summary line.

Every example runs on ``demo.enter_number`` with the learning demo's prompt by default
(``AdapterPrompt.demo()``: one call described with an example, the answer prefilled with
``CalcTools.set_cell_value(cell="``), where the untrained SmolLM2-135M succeeds sometimes, so the
verifier's rewards are mixed from the first step. Each ends with the line :func:`summary_line`
prints; CI's adapters stage reads it (``tests/adapters/test_examples.py``).
"""

from __future__ import annotations

import argparse
import os
import tempfile
from collections.abc import Callable, Sequence
from typing import Any

from desktop_gym.train.adapters.episode import SOURCE_VARIABLE, EnvSource
from desktop_gym.train.adapters.prompting import PROMPT_VARIABLE, AdapterPrompt

DEMO_TASK = "demo.enter_number"
DEMO_OBSERVATION = ("instruction", "last_action_result", "last_action_error")
SUMMARY_PREFIX = "SUMMARY"


def demo_source(max_steps: int = 1, address: str | None = None, token: str | None = None) -> EnvSource:
    """API actions, a short text observation, ``max_steps`` steps (one call decides ``demo.enter_number``)."""
    options = {"action_mode": "api", "observation": DEMO_OBSERVATION, "max_steps": max_steps, "settle_timeout": 0.0}
    return EnvSource(address=address, token=token, options=options)


def episode_args(description: str, episodes: int = 8, temperature: float = 0.5) -> argparse.Namespace:
    """Parse the examples' options; unless ``$DESKTOP_GYM_SOURCE``/``$DESKTOP_GYM_PROMPT`` are set, set the demo's.

    Args:
        description: the example's one-line description, for ``--help``.
        episodes: the default episode count.
        temperature: the default sampling temperature (0.5: the demo prompt's success rate is ~1/3).
    """
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--task", default=DEMO_TASK)
    parser.add_argument("--episodes", type=int, default=episodes, help="episodes in all (groups x group size)")
    parser.add_argument("--group-size", type=int, default=4, help="episodes per seed (a GRPO group)")
    parser.add_argument("--temperature", type=float, default=temperature)
    parser.add_argument("--max-steps", type=int, default=1, help="env steps per episode")
    parser.add_argument("--no-demo-prompt", action="store_true", help="describe every tool, no prefill")
    args = parser.parse_args()
    if not 1 <= args.group_size <= args.episodes <= 256:
        parser.error("need 1 <= --group-size <= --episodes <= 256")
    os.environ.setdefault(SOURCE_VARIABLE, demo_source(args.max_steps).to_json())
    os.environ.setdefault(PROMPT_VARIABLE, (AdapterPrompt() if args.no_demo_prompt else AdapterPrompt.demo()).to_json())
    return args


def trl_args(description: str, temperature: float) -> argparse.Namespace:
    """Parse the TRL examples' options: the task, optimizer steps, group size, temperature and env server.

    Args:
        description: the example's one-line description, for ``--help``.
        temperature: the default sampling temperature.
    """
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--task", default=DEMO_TASK)
    parser.add_argument("--steps", type=int, default=2, help="optimizer steps")
    parser.add_argument("--group-size", type=int, default=4, help="completions per prompt (one GRPO group a step)")
    parser.add_argument("--temperature", type=float, default=temperature)
    parser.add_argument("--env-server", default=None, help="host:port of desktop-gym serve (default: desktops here)")
    parser.add_argument("--token", default=None)
    args = parser.parse_args()
    if not 1 <= args.steps <= 100 or not 2 <= args.group_size <= 64:
        parser.error("need 1 <= --steps <= 100 and 2 <= --group-size <= 64")
    return args


def trl_config(args: argparse.Namespace, prefix: str, **options: Any) -> Any:
    """TRL's ``GRPOConfig`` for a TRL example on CPU: ``--steps`` steps of one ``--group-size`` group, no saving.

    Args:
        args: the options :func:`trl_args` parsed.
        prefix: the prefix of the run's fresh output folder.
        **options: the example's own ``GRPOConfig`` fields.
    """
    from trl import GRPOConfig

    return GRPOConfig(
        output_dir=tempfile.mkdtemp(prefix=prefix),
        per_device_train_batch_size=args.group_size,
        num_generations=args.group_size,
        max_steps=args.steps,
        learning_rate=1e-5,
        logging_steps=1,
        save_strategy="no",
        report_to="none",
        use_cpu=True,
        bf16=False,
        seed=0,
        **options,
    )


def train_and_report(trainer: Any, desktops: Any, describe: Callable[[dict[str, Any]], str]) -> list[float]:
    """Train, close ``desktops`` whatever happened, print a line per optimizer step; returns the gradient norms.

    Args:
        trainer: TRL's ``GRPOTrainer``.
        desktops: what holds the example's desktops (its ``close()`` ends them).
        describe: a step's rewards in words, from its ``log_history`` entry.
    """
    try:
        trainer.train()
    finally:
        desktops.close()
    norms = []
    for entry in trainer.state.log_history:
        if "grad_norm" in entry:
            norms.append(float(entry["grad_norm"]))
            print(f"step {entry.get('step')}: {describe(entry)}, grad norm {norms[-1]:.4f}")
    return norms


def seeds_for(args: argparse.Namespace) -> list[int]:
    """One seed per episode, each repeated ``group_size`` times in a row (the GRPO groups)."""
    groups = max(1, args.episodes // args.group_size)
    return [seed for seed in range(groups) for _ in range(args.group_size)]


def policy_gradient_step(
    model: Any, optimizer: Any, samples: Sequence[dict[str, Any]], loss_fn: Any, max_grad_norm: float = 1.0
) -> float:
    """One optimizer step on sampled episodes with a trainer's loss; returns the gradient norm before clipping.

    Args:
        model: the policy (a transformers causal LM).
        optimizer: its optimizer.
        samples: per episode ``prompt_ids``, ``response_ids``, ``mask`` (1 on model tokens),
            ``old_logprobs`` (the sampler's) and ``advantage`` (one number).
        loss_fn: ``(log_probs, old_log_probs, advantages, mask) -> loss``, each ``[batch, length]``.
        max_grad_norm: gradients are clipped to this norm.

    A group whose advantages are all 0 (equal rewards) has no gradient: it returns 0.0 without a step.
    """
    import torch

    if all(float(sample["advantage"]) == 0.0 for sample in samples):
        return 0.0

    width = max(len(sample["response_ids"]) for sample in samples)
    new, old, advantages, masks = [], [], [], []
    model.train()
    for sample in samples:
        prompt, response = list(sample["prompt_ids"]), list(sample["response_ids"])
        ids = torch.tensor([prompt + response])
        logits = model(input_ids=ids).logits[0, len(prompt) - 1 : -1].float()
        chosen = logits.log_softmax(-1).gather(-1, torch.tensor(response).unsqueeze(-1)).squeeze(-1)
        pad = width - len(response)
        new.append(torch.nn.functional.pad(chosen, (0, pad)))
        old.append(torch.tensor(list(sample["old_logprobs"]) + [0.0] * pad))
        masks.append(torch.tensor(list(sample["mask"]) + [0] * pad, dtype=torch.float32))
        advantages.append(torch.full((width,), float(sample["advantage"])))
    loss = loss_fn(torch.stack(new), torch.stack(old), torch.stack(advantages), torch.stack(masks))
    optimizer.zero_grad()
    loss.backward()
    norm = float(torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm))
    optimizer.step()
    model.eval()
    return norm


def summary_line(name: str, rewards: Sequence[float], grad_norms: Sequence[float] | None = None) -> str:
    """The example's last line: reward-1 episodes (from the task verifier) and nonzero-gradient optimizer steps."""
    line = f"{SUMMARY_PREFIX} {name}: reward-1 episodes {sum(1 for r in rewards if r == 1.0)} of {len(rewards)}"
    if grad_norms is not None:
        nonzero = sum(1 for norm in grad_norms if norm > 0)
        line += f"; optimizer steps with nonzero gradient norm {nonzero} of {len(grad_norms)}"
    return line
