"""Play desktop episodes through OpenRLHF's own MultiTurnAgentExecutor (CPU, stand-in for vLLM).

With a GPU cluster, hand the adapter file to OpenRLHF instead of running this script:

    export DESKTOP_GYM_SOURCE='{"address": "10.0.0.5:50051", "token": "...", "options": {"action_mode": "api"}}'
    python -m openrlhf.cli.train_ppo_ray ... --data.label_key label \\
        --train.agent_func_path "$(python -c 'import desktop_gym.train.adapters.openrlhf as m; print(m.__file__)')"

Here, vLLM cannot run (no GPU), so a transformers-backed StandInVllmEngine serves the same
``generate`` call OpenRLHF's executor makes:

    python examples/openrlhf_agent.py --episodes 2
"""

from __future__ import annotations

import asyncio
import importlib.util

from adapter_example import episode_args

import desktop_gym.train.adapters.openrlhf as adapter
from desktop_gym.llm.model import load_default_model
from desktop_gym.train.adapters.standins import StandInGenerator, StandInSamplingParams, StandInVllmEngine


def main() -> None:
    args = episode_args(__doc__.splitlines()[0])

    # Load the agent file as OpenRLHF does: by path, as a module named agent_module.
    spec = importlib.util.spec_from_file_location("agent_module", adapter.__file__)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    executor = module.AgentExecutor()
    tokenizer, model = load_default_model()
    engine = StandInVllmEngine(StandInGenerator(model, tokenizer), max_new_tokens=32)

    async def run() -> list[dict]:
        rows = adapter.openrlhf_rows([args.task], seeds=range(args.episodes))
        runs = [
            executor.execute(row["prompt"], row["label"], StandInSamplingParams(max_tokens=32), 4096, tokenizer, engine)
            for row in rows
        ]
        return await asyncio.gather(*runs)

    for index, result in enumerate(asyncio.run(run())):
        steps = len(result["action_ranges"])
        print(f"episode {index}: {steps} steps, reward {result['reward']} (from the task verifier)")


if __name__ == "__main__":
    main()
