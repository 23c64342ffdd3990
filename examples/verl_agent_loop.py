"""Run verl's ``desktop_gym`` agent loop on real desktops (CPU, stand-in for verl's vLLM server manager).

With verl on GPUs, select the loop in the config and name the rows' tasks in ``extra_info``
(``desktop_gym.train.adapters.verl.verl_rows``):

    actor_rollout_ref.rollout.agent.default_agent_loop=desktop_gym

Here a transformers-backed StandInVerlServerManager serves the ``generate`` call the loop makes:

    python examples/verl_agent_loop.py --episodes 2
"""

from __future__ import annotations

import asyncio

from adapter_example import episode_args

from desktop_gym.llm.model import load_default_model
from desktop_gym.train.adapters.standins import StandInGenerator, StandInVerlServerManager
from desktop_gym.train.adapters.verl import local_agent_loop, verl_rows


def main() -> None:
    args = episode_args(__doc__.splitlines()[0])
    tokenizer, model = load_default_model()
    server = StandInVerlServerManager(StandInGenerator(model, tokenizer), response_length=32)

    async def run() -> list:
        async def one(row: dict):
            loop = local_agent_loop(server, tokenizer)  # built as verl's AgentLoopWorker builds it
            sampling = {"temperature": 1.0, "top_p": 1.0, "logprobs": True}
            return await loop.run(sampling, raw_prompt=row["prompt"], **row)

        return await asyncio.gather(*(one(row) for row in verl_rows([args.task], seeds=range(args.episodes))))

    for index, output in enumerate(asyncio.run(run())):
        steps = len(output.extra_fields["step_token_spans"])
        print(
            f"episode {index}: {steps} steps, {sum(output.response_mask)} model tokens of "
            f"{len(output.response_ids)}, reward {output.reward_score} (from the task verifier)"
        )


if __name__ == "__main__":
    main()
