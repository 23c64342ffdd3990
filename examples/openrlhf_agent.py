"""Play desktop episodes through OpenRLHF's own MultiTurnAgentExecutor and take PPO steps (CPU).

With a GPU cluster, hand the adapter file to OpenRLHF instead of running this script (the whole
command, vLLM included, is in docs/adapters.md)::

    export DESKTOP_GYM_SOURCE='{"address": "10.0.0.5:50051", "token": "...", "options": {"action_mode": "api"}}'
    export DESKTOP_GYM_PROMPT="$(python -m desktop_gym.train.adapters.prompting demo)"  # the demo's prompt
    python -m openrlhf.cli.train_ppo_ray ... --data.input_key prompt --data.label_key label \\
        --train.agent_func_path "$(python -c 'import desktop_gym.train.adapters.openrlhf as m; print(m.__file__)')"

Here vLLM cannot run (no GPU), so a transformers-backed StandInVllmEngine serves the same
``generate`` call OpenRLHF's executor makes; each group's episodes (one seed) get group-normalised
advantages (OpenRLHF's ``group_norm``) and one optimizer step with OpenRLHF's PPO loss; no
DeepSpeed actor or Ray job runs::

    python examples/openrlhf_agent.py --episodes 8 --group-size 4
"""

from __future__ import annotations

import asyncio
import importlib.util
import time

import torch
from adapter_example import episode_args, policy_gradient_step, seeds_for, summary_line

import desktop_gym.train.adapters.openrlhf as adapter
from desktop_gym.llm.model import load_default_model
from desktop_gym.train.adapters.pool import DESKTOP_POOL
from desktop_gym.train.adapters.standins import StandInGenerator, StandInSamplingParams, StandInVllmEngine

MAX_TOKENS = 14
"""Tokens per answer (the demo's ``max_new_tokens``)."""


def openrlhf_loss(log_probs, old_log_probs, advantages, mask):  # noqa: ANN001, ANN201 - tensors
    """OpenRLHF's PPO policy loss (clip 0.2, token-level): its ``PolicyLoss`` where it imports.

    ``openrlhf.models`` imports flash-attn and DeepSpeed (GPU packages): without them this is the same
    clipped surrogate, ``-min(r A, clip(r, 0.8, 1.2) A)`` averaged over the mask's tokens.
    """
    try:
        from openrlhf.models.loss import PolicyLoss
    except ImportError:
        ratio = (log_probs - old_log_probs).clamp(-20.0, 20.0).exp()
        surrogate = torch.min(ratio * advantages, ratio.clamp(0.8, 1.2) * advantages)
        return -(surrogate * mask).sum() / mask.sum().clamp(min=1)
    loss, *_metrics = PolicyLoss()(log_probs, old_log_probs, advantages, action_mask=mask)
    return loss


def main() -> None:
    args = episode_args(__doc__.splitlines()[0])
    torch.manual_seed(0)
    started = time.monotonic()
    # Load the agent file as OpenRLHF does: by path, as a module named agent_module.
    spec = importlib.util.spec_from_file_location("agent_module", adapter.__file__)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    executor = module.AgentExecutor()
    tokenizer, model = load_default_model()
    engine = StandInVllmEngine(StandInGenerator(model, tokenizer), max_new_tokens=MAX_TOKENS)
    seeds = seeds_for(args)
    rows = [row for seed in seeds for row in adapter.openrlhf_rows([args.task], seeds=[seed])]

    async def run() -> list[dict]:
        results = []
        for row in rows:  # one at a time: each episode resets the pooled desktop
            params = StandInSamplingParams(max_tokens=MAX_TOKENS, temperature=args.temperature)
            results.append(await executor.execute(row["prompt"], row["label"], params, 1024, tokenizer, engine))
        return results

    results = asyncio.run(run())
    rewards = [float(result["reward"]) for result in results]
    for index, result in enumerate(results):
        print(f"episode {index} (seed {seeds[index]}): {len(result['action_ranges'])} steps, reward {rewards[index]}")
    print(f"desktops started: {DESKTOP_POOL.started} for {len(results)} episodes (the rest were resets)")

    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-5)
    norms = []
    for seed in sorted(set(seeds)):
        group = [i for i, s in enumerate(seeds) if s == seed]
        scores = torch.tensor([rewards[i] for i in group])
        advantages = (scores - scores.mean()) / (scores.std() + 1e-9)  # OpenRLHF's group_norm
        samples = []
        for position, i in enumerate(group):
            result = results[i]
            prompt_length = result["action_ranges"][0][0]  # the rendered first prompt ends where the answer starts
            ids = result["observation_tokens"]
            samples.append(
                {
                    "prompt_ids": ids[:prompt_length],
                    "response_ids": ids[prompt_length:],
                    "mask": _action_mask(result, prompt_length, len(ids)),
                    "old_logprobs": result["rollout_log_probs"][prompt_length:],
                    "advantage": float(advantages[position]),
                }
            )
        norms.append(policy_gradient_step(model, optimizer, samples, openrlhf_loss))
        print(f"group seed {seed}: rewards {[rewards[i] for i in group]}, grad norm {norms[-1]:.4f}")
    DESKTOP_POOL.close()
    print(f"took {time.monotonic() - started:.0f} s")
    print(summary_line("openrlhf", rewards, norms))


def _action_mask(result: dict, start: int, end: int) -> list[int]:
    mask = [0] * (end - start)
    for first, last in result["action_ranges"]:
        for position in range(max(first, start), min(last, end)):
            mask[position - start] = 1
    return mask


if __name__ == "__main__":
    main()
