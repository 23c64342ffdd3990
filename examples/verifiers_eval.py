"""Roll out desktop episodes with Prime Intellect verifiers' own ``run_eval`` against a local endpoint.

By default this starts ``desktop-gym llm serve``'s endpoint (SmolLM2-135M-Instruct, offline) in
this process; pass ``--base-url`` to use any OpenAI-compatible endpoint instead (vLLM, a hosted
model). Every rollout plays a real desktop; its reward is the task verifier's verdict. The
defaults are the learning demo's: ``demo.enter_number``, one step, the demo's prompt
(``AdapterPrompt.demo()``: one call described with an example, the answer prefilled with
``CalcTools.set_cell_value(cell="``), temperature 0.5, where the untrained model succeeds sometimes::

    python examples/verifiers_eval.py --episodes 8 --output-dir runs/verifiers

It ends with the count of reward-1 episodes, and exits 1 when a rollout failed (an endpoint
outage is an error, not a reward). The same env runs under verifiers' own CLI::

    vf-eval desktop_gym_verifiers --no-push -m SmolLM2-135M-Instruct --client.base-url URL \
        --env.taskset.task-ids '["demo.enter_number"]' --env.taskset.prefill 'CalcTools.set_cell_value(cell="'

Run it as a script (not ``python -m`` from the repository root): the repository's own
``verifiers/`` folder (task verifiers) would shadow the PyPI package on ``sys.path``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parent.parent


@contextlib.contextmanager
def model_endpoint(base_url: str | None) -> Iterator[str]:
    """``base_url`` as given, else the offline model served over HTTP for the duration."""
    if base_url:
        yield base_url
        return
    from desktop_gym.llm import configure_inference_threads, shared_default_model
    from desktop_gym.llm.server import local_endpoint

    configure_inference_threads()
    tokenizer, model = shared_default_model()
    with local_endpoint(model, tokenizer) as url:
        yield url


def main() -> None:
    started = time.monotonic()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--task", default="demo.enter_number")
    parser.add_argument("--episodes", type=int, default=8, help="rollouts, one seed each")
    parser.add_argument("--max-steps", type=int, default=1, help="env steps per episode")
    parser.add_argument("--max-tokens", type=int, default=16, help="tokens per model reply")
    parser.add_argument("--temperature", type=float, default=0.5, help="sampling temperature")
    parser.add_argument("--sampling-seed", type=int, default=0, help="request seed (+ the task seed); -1: unseeded")
    parser.add_argument("--no-demo-prompt", action="store_true", help="use --tools and --prefill instead")
    parser.add_argument("--prefill", default="", help="with --no-demo-prompt: the start of every answer")
    parser.add_argument("--base-url", default=None, help="an OpenAI-compatible endpoint (default: local SmolLM2)")
    parser.add_argument("--model", default="SmolLM2-135M-Instruct")
    parser.add_argument(
        "--tools",
        nargs="*",
        default=None,
        help="with --no-demo-prompt: actions the system prompt describes (default: everything the env offers)",
    )
    parser.add_argument("--output-dir", type=Path, default=Path("runs/verifiers"))
    parser.add_argument("--json", type=Path, default=None, help="also write the per-episode rows here")
    args = parser.parse_args()
    for path in sys.path:
        if Path(path or ".").resolve() == REPOSITORY:
            sys.exit("run this example from outside the repository root: its verifiers/ folder shadows the package")

    from adapter_example import summary_line

    from desktop_gym.train.adapters.episode import EnvSource
    from desktop_gym.train.adapters.prompting import AdapterPrompt
    from desktop_gym.train.adapters.verifiers_env import env_config, episode_rewards, run_desktop_eval

    source = EnvSource(
        options={
            "action_mode": "api",
            "observation": ("instruction", "last_action_result", "last_action_error"),
            "max_steps": args.max_steps,
        }
    )
    config = env_config(
        [args.task],
        seeds=range(args.episodes),
        source=source,
        max_tokens=args.max_tokens,
        temperature=args.temperature,
        sampling_seed=None if args.sampling_seed < 0 else args.sampling_seed,
        prompt=AdapterPrompt(tools=args.tools, prefill=args.prefill) if args.no_demo_prompt else AdapterPrompt.demo(),
    )
    os.environ.setdefault("OPENAI_API_KEY", "local")
    with model_endpoint(args.base_url) as base_url:
        episodes = run_desktop_eval(config, base_url=base_url, model=args.model, output_dir=args.output_dir)
    rows = episode_rewards(episodes)
    for row in rows:
        desktop = row["desktop"] or {}
        print(
            f"{row['task']}: {row['turns']} turns, {desktop.get('steps')} env steps, "
            f"reward {row['reward']} (task verifier), errors {len(row['errors'])}"
        )
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2, default=str))
    failed = [row for row in rows if row["errors"] or row["reward"] is None]
    successes = sum(1 for row in rows if row["reward"] == 1.0)
    print(f"reward-1 episodes: {successes} of {len(rows)} (task verifier); failed rollouts: {len(failed)}")
    print(f"took {time.monotonic() - started:.0f} s")
    print(summary_line("verifiers", [row["reward"] for row in rows if row["reward"] is not None]))
    if failed:
        sys.exit(f"{len(failed)} rollouts failed (not scored): {failed[0]['errors'][:1]}")


if __name__ == "__main__":
    main()
