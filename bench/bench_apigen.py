"""API generation benchmark: acceptance rate, repair rounds and time per function, per LLM backend.

Run: ``.venv/bin/python bench/bench_apigen.py [--backends recording offline offline+analysis]
[--endpoint URL]``. Each backend runs the real pipeline for the text editor on the committed
recording's example tasks (real sandbox desktop, real tests), without the reply cache, into
``bench/results/apigen/<backend>/``; then one table prints the rows side by side.

Backends: ``recording`` (the committed transcript: responses written by the developing model,
replayed), ``offline`` (SmolLM2-135M for every stage), ``offline+analysis`` (SmolLM2-135M
implementing the functions the recording's analysis asked for), ``endpoint`` (``--endpoint``,
any OpenAI-compatible URL, e.g. ``desktop-gym llm serve``).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RECORDING = ROOT / "api_generators" / "recordings" / "editor_claude.json"
RESULTS = ROOT / "bench" / "results" / "apigen"


def run_backend(name: str, endpoint: str | None, repair_rounds: int, max_functions: int) -> dict:
    """Run the pipeline with backend ``name``; return its report numbers."""
    from desktop_gym.api_generators.llm import make_client
    from desktop_gym.api_generators.pipeline import generate_api
    from desktop_gym.api_generators.report import summary

    recording = make_client(f"recording:{RECORDING}")
    tasks = json.loads(RECORDING.read_text())["tasks"]
    analysis = None
    if name == "recording":
        client = recording
    elif name == "offline":
        client = make_client("offline")
    elif name == "offline+analysis":
        client, analysis = make_client("offline"), recording
    elif name == "endpoint":
        if not endpoint:
            raise SystemExit("--backends endpoint needs --endpoint URL")
        client = make_client(endpoint)
    else:
        raise SystemExit(f"unknown backend {name!r}")
    run = generate_api(
        "editor", tasks, client, RESULTS / name, repair_rounds, analysis_client=analysis, max_functions=max_functions
    )
    numbers = summary(run)
    numbers["backend"] = name
    return numbers


def table(rows: list[dict]) -> str:
    """The rows as a markdown table."""
    header = "| backend | LLM | attempted | accepted | acceptance | mean repair rounds | s per function | total s |"
    lines = [header, "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        note = f" ({r['error'][:60]})" if r["error"] else ""
        lines.append(
            f"| {r['backend']} | {r['llm'][:70]} | {r['attempted']} | {r['accepted']}{note} | "
            f"{r['acceptance_rate']:.0%} | {r['mean_repair_rounds']} | {r['mean_seconds_per_function']} | "
            f"{r['seconds']} |"
        )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backends", nargs="+", default=["recording", "offline", "offline+analysis"])
    parser.add_argument("--endpoint", default=None, help="an OpenAI-compatible URL for the 'endpoint' backend")
    parser.add_argument("--repair-rounds", type=int, default=2)
    parser.add_argument("--max-functions", type=int, default=20, help="functions generated per backend")
    parser.add_argument("--append", action="store_true", help="add the rows to bench.json instead of replacing it")
    args = parser.parse_args()
    saved = RESULTS / "bench.json"
    rows = json.loads(saved.read_text()) if args.append and saved.exists() else []
    for name in args.backends:
        print(f"== {name}", file=sys.stderr)
        rows.append(run_backend(name, args.endpoint, args.repair_rounds, args.max_functions))
        RESULTS.mkdir(parents=True, exist_ok=True)
        saved.write_text(json.dumps(rows, indent=1) + "\n")
    print(table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
