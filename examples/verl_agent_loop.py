"""Run verl's ``desktop_gym`` agent loop on real desktops and take GRPO steps with verl's own loss (CPU).

With verl on GPUs, select the loop in the config, name the class for the workers, and set the
demo's prompt (see docs/adapters.md for the whole config, vLLM included)::

    actor_rollout_ref.rollout.agent.default_agent_loop=desktop_gym
    actor_rollout_ref.rollout.agent.agent_loop_config_path=agent_loops.yaml
    # DESKTOP_GYM_SOURCE / DESKTOP_GYM_PROMPT in the workers' environment

Here a transformers-backed StandInVerlServerManager serves the ``generate`` call the loop makes
(vLLM needs a GPU); the episodes' outputs go through verl's GRPO advantage
(``compute_grpo_outcome_advantage``) and PPO policy loss (``compute_policy_loss_vanilla``) for one
optimizer step per group; no verl worker (FSDP, weight sync) runs::

    python examples/verl_agent_loop.py --episodes 8 --group-size 4
"""

from __future__ import annotations

import asyncio
import time

import numpy as np
import torch
from adapter_example import episode_args, policy_gradient_step, seeds_for, summary_line

from desktop_gym.llm.model import load_default_model
from desktop_gym.train.adapters.pool import DESKTOP_POOL
from desktop_gym.train.adapters.standins import StandInGenerator, StandInVerlServerManager
from desktop_gym.train.adapters.verl import local_agent_loop, verl_rows

CONCURRENCY = 1
"""Trajectories in flight at once (each holds a desktop from the pool); 1 keeps the seeded sampling in order."""


def verl_loss(log_probs, old_log_probs, advantages, mask):  # noqa: ANN001, ANN201 - tensors
    """verl's vanilla PPO policy loss (clip 0.2), token-mean."""
    from omegaconf import OmegaConf
    from verl.trainer.ppo.core_algos import compute_policy_loss_vanilla

    config = OmegaConf.create(
        {"clip_ratio": 0.2, "clip_ratio_low": 0.2, "clip_ratio_high": 0.2, "clip_ratio_c": 3.0, "global_batch_info": {}}
    )
    loss, _metrics = compute_policy_loss_vanilla(old_log_probs, log_probs, advantages, mask, "token-mean", config)
    return loss


def main() -> None:
    args = episode_args(__doc__.splitlines()[0])
    torch.manual_seed(0)
    started = time.monotonic()
    tokenizer, model = load_default_model()
    server = StandInVerlServerManager(StandInGenerator(model, tokenizer), response_length=14)
    rows = [row for seed in seeds_for(args) for row in verl_rows([args.task], seeds=[seed])]
    sampling = {"temperature": args.temperature, "top_p": 1.0, "logprobs": True}

    async def run() -> list:
        gate = asyncio.Semaphore(CONCURRENCY)

        async def one(row: dict):
            async with gate:
                loop = local_agent_loop(server, tokenizer, response_length=64)  # as verl's AgentLoopWorker builds it
                return await loop.run(dict(sampling), raw_prompt=row["prompt"], **row)

        return await asyncio.gather(*(one(row) for row in rows))

    outputs = asyncio.run(run())
    rewards = [float(output.reward_score) for output in outputs]
    for index, output in enumerate(outputs):
        print(f"episode {index} (seed {rows[index]['extra_info']['seed']}): reward {output.reward_score} (verifier)")
    print(f"desktops started: {DESKTOP_POOL.started} for {len(outputs)} episodes (the rest were resets)")

    from verl.trainer.ppo.core_algos import compute_grpo_outcome_advantage

    width = max(len(output.response_ids) for output in outputs)
    mask = torch.tensor([list(o.response_mask) + [0] * (width - len(o.response_mask)) for o in outputs]).float()
    scores = torch.zeros_like(mask)
    for index, output in enumerate(outputs):  # verl puts the score on the last response token
        scores[index, len(output.response_mask) - 1] = output.reward_score
    index = np.array([row["extra_info"]["seed"] for row in rows])
    advantages, _ = compute_grpo_outcome_advantage(scores, mask, index)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-5)
    norms = []
    for seed in sorted(set(index.tolist())):
        group = [i for i in range(len(outputs)) if index[i] == seed]
        samples = [
            {
                "prompt_ids": outputs[i].prompt_ids,
                "response_ids": outputs[i].response_ids,
                "mask": outputs[i].response_mask,
                "old_logprobs": outputs[i].response_logprobs,
                "advantage": float(advantages[i][mask[i] > 0][0]),
            }
            for i in group
        ]
        norms.append(policy_gradient_step(model, optimizer, samples, verl_loss))
        print(f"group seed {seed}: rewards {[rewards[i] for i in group]}, grad norm {norms[-1]:.4f}")
    DESKTOP_POOL.close()
    print(f"took {time.monotonic() - started:.0f} s")
    print(summary_line("verl", rewards, norms))


if __name__ == "__main__":
    main()
