"""Supervised fine-tuning shared by Entropulse's SFT phase and behavior cloning (``train --bc DIR``).

Behavior cloning reads recorded trajectories (``desktop-gym run`` episodes of oracles, any agent's
successes from ``run``/``eval``, or training rollouts) and trains on the well-formed steps of the
successful ones. A step recorded without its prompt (``run`` records observations, not messages)
gets one rebuilt with the training prompt from the observation before it.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from desktop_gym.episode.prompts import PromptConfig, Turn, build_messages, system_prompt, text_only
from desktop_gym.episode.trajectory import Step, Trajectory, load_trajectories

from .config import TrainConfig
from .model_ops import Sample, batch_tensors, model_device, step_sample, token_logprobs

MAX_BC_STEPS = 10_000


def sft_updates(
    model: Any,
    samples: Sequence[Sample],
    *,
    steps: int,
    batch_size: int,
    learning_rate: float,
    pad_id: int,
    rng: np.random.Generator,
    bf16: bool = True,
    max_grad_norm: float = 1.0,
    label_smoothing: float = 0.0,
) -> float:
    """``steps`` AdamW steps of next-token SFT on random batches of ``samples``; returns the mean loss.

    ``label_smoothing`` e trains towards 1 - e on each target token and e spread over the vocabulary
    (the loss then includes the smoothed target's own entropy, so it does not reach 0).
    """
    import torch

    from .grpo import sft_loss

    if not samples or steps <= 0:
        return 0.0
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=learning_rate)
    losses = []
    for _ in range(min(steps, MAX_BC_STEPS)):
        picks = rng.choice(len(samples), size=min(batch_size, len(samples)), replace=False)
        optimizer.zero_grad(set_to_none=True)
        batch = batch_tensors([samples[int(i)] for i in picks], pad_id, model_device(model))
        logp, _ = token_logprobs(model, batch, bf16, label_smoothing=label_smoothing)
        loss = sft_loss(logp, batch["response_mask"])
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
        optimizer.step()
        losses.append(float(loss.detach()))
    return float(np.mean(losses))


def with_prompts(trajectory: Trajectory, prompt: PromptConfig) -> list[Step]:
    """The trajectory's steps, each with ``messages`` (rebuilt from the previous observation if missing)."""
    system = system_prompt(str(trajectory.meta.get("describe", "")), prompt)
    before: dict[str, Any] = dict(trajectory.meta.get("reset_observation") or {"instruction": trajectory.instruction})
    history: list[Turn] = []
    steps = []
    for step in trajectory.steps:
        if not step.messages:
            messages = build_messages(system, before, history, prompt)
            prefill = prompt.prefill or ""
            completion = step.action[len(prefill) :] if prefill and step.action.startswith(prefill) else step.action
            if prefill and not step.action.startswith(prefill):
                messages = messages[:-1]  # this action does not fit the prefill: train on it without one
            step = Step(**{**step.__dict__, "messages": text_only(messages), "completion": completion})
        steps.append(step)
        history.append(Turn(before, step.action))
        before = step.observation
    return steps


def behavior_clone(config: TrainConfig, folder: str | Path, steps: int = 20) -> Path:
    """SFT the config's model on the successful trajectories below ``folder``; returns the saved model folder.

    Raises:
        ValueError: no successful trajectory with a well-formed step below ``folder``.
    """
    from .trainer import load_policy_model

    prompt = config.prompt.prompt_config()
    successes = [t for t in load_trajectories(folder) if t.success]
    recorded = [step for t in successes for step in with_prompts(t, prompt) if step.well_formed]
    if not recorded:
        raise ValueError(f"{folder}: no successful trajectory with a well-formed step to clone")
    if config.model.threads:  # as the trainer: on a shared CPU one thread beat two by far
        import torch

        torch.set_num_threads(config.model.threads)
    section = config.model
    tokenizer, model = load_policy_model(section.path, section.device, section.bf16_weights)
    samples = [step_sample(tokenizer, s, 0.0, section.max_prompt_tokens, section.prompt_overflow) for s in recorded]
    loss = sft_updates(
        model,
        samples,
        steps=steps,
        batch_size=config.entropulse.sft_batch_size,
        learning_rate=config.entropulse.sft_learning_rate,
        pad_id=tokenizer.pad_token_id or 0,
        rng=np.random.default_rng(config.rl.seed),
        bf16=config.model.bf16,
    )
    out = Path(config.output) / "bc-model"
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(str(out))
    tokenizer.save_pretrained(str(out))
    print(f"[bc] {len(samples)} steps from {len(successes)} successful trajectories; mean loss {loss:.3f}")
    return out
