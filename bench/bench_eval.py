"""Evaluation benchmark: oracle episodes per minute over N = 1, 2, 4, 8 desktops, and the offline
SmolLM2-135M agent on the starter suite (success, steps, tokens/s).

Run: ``.venv/bin/python bench/bench_eval.py [--envs 1 2 4 8] [--episodes 16] [--llm-max-steps 5]``
(~10 min on 2 cores). Each configuration is a real ``run_eval`` into a fresh folder: desktops are
started inside the measured time (as a user's ``desktop-gym eval`` pays for them), and the rate
without that start-up is printed beside it (episodes over the time after each env's first reset).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
import time
from pathlib import Path

from desktop_gym.agents import AgentOptions
from desktop_gym.evaluation import EvalConfig, run_eval, summarize
from desktop_gym.tasks import list_tasks


def oracle_rate(envs: int, episodes: int, root: Path) -> dict[str, float]:
    """Episodes per minute of the oracle on the starter suite over ``envs`` desktops."""
    tasks = list_tasks("starter")
    runs = math.ceil(episodes / len(tasks))
    config = EvalConfig(tasks=tasks, agent="oracle", out=root / f"oracle-{envs}", runs=runs, envs=envs)
    started = time.perf_counter()
    records = run_eval(config, progress=False)
    wall = time.perf_counter() - started
    playing = sum(r.wall_seconds for r in records) / envs  # the busy time per env, start-up excluded
    return {
        "envs": envs,
        "episodes": len(records),
        "success": sum(r.success for r in records) / len(records),
        "wall_s": wall,
        "episodes_per_min": 60 * len(records) / wall,
        "episodes_per_min_warm": 60 * len(records) / playing if playing else 0.0,
    }


def llm_run(root: Path, max_steps: int, max_tokens: int) -> dict[str, object]:
    """The offline SmolLM2 agent (``hf:default``, greedy) on the starter suite."""
    config = EvalConfig(
        tasks=list_tasks("starter"),
        agent="hf:default",
        out=root / "smollm2",
        max_steps=max_steps,
        agent_options=AgentOptions(max_tokens=max_tokens),
    )
    started = time.perf_counter()
    records = run_eval(config, progress=True)
    overall = summarize(records)["overall"]
    return {
        "episodes": len(records),
        "success": overall["success_rate"],
        "avg_steps": overall["avg_steps"],
        "action_error_rate": overall["action_error_rate"],
        "prompt_tokens_per_step": overall["prompt_tokens"] / max(1, sum(r.steps for r in records)),
        "tokens_per_s": overall["tokens_per_s"],
        "wall_s": time.perf_counter() - started,
        "max_steps": max_steps,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--envs", type=int, nargs="+", default=[1, 2, 4, 8])
    parser.add_argument("--episodes", type=int, default=16, help="oracle episodes per configuration (rounded up)")
    parser.add_argument("--llm-max-steps", type=int, default=5, help="step cap of the SmolLM2 episodes (0: skip)")
    parser.add_argument("--llm-max-tokens", type=int, default=48)
    parser.add_argument("--json", default=None, help="also write the numbers here")
    args = parser.parse_args()
    results: dict[str, object] = {}
    with tempfile.TemporaryDirectory(prefix="bench-eval-") as folder:
        root = Path(folder)
        rows = []
        print(f"{'envs':>4} {'episodes':>8} {'success':>8} {'wall s':>8} {'ep/min':>8} {'ep/min warm':>12}")
        for envs in args.envs:
            row = oracle_rate(envs, args.episodes, root)
            rows.append(row)
            print(
                f"{row['envs']:>4} {row['episodes']:>8} {100 * row['success']:>7.0f}% {row['wall_s']:>8.1f} "
                f"{row['episodes_per_min']:>8.1f} {row['episodes_per_min_warm']:>12.1f}",
                flush=True,
            )
        base = rows[0]["episodes_per_min"]
        print("speed-up over 1 env: " + ", ".join(f"{r['envs']}: {r['episodes_per_min'] / base:.2f}x" for r in rows))
        results["oracle"] = rows
        if args.llm_max_steps:
            llm = llm_run(root, args.llm_max_steps, args.llm_max_tokens)
            results["smollm2"] = llm
            print(
                f"SmolLM2-135M (hf:default, greedy, <= {llm['max_steps']} steps) on starter: "
                f"success {100 * llm['success']:.0f}% of {llm['episodes']}, avg steps {llm['avg_steps']:.1f}, "
                f"action errors {100 * llm['action_error_rate']:.0f}% of steps, "
                f"{llm['prompt_tokens_per_step']:.0f} prompt tokens/step, {llm['tokens_per_s']:.1f} generated tok/s, "
                f"{llm['wall_s']:.0f} s"
            )
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
