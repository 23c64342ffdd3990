"""Generation precision side by side: float32 vs bfloat16 autocast for a long prefill and a short decode.

Run: ``.venv/bin/python bench/bench_generation_precision.py [--tokens 1500] [--repeats 5] [--json FILE]``.
The default model (SmolLM2-135M-Instruct) on one thread, as ``desktop-gym eval``, ``llm serve`` and
the trainer's rollouts run it on a 2-core machine. Rows: a prompt of ``--tokens`` tokens with one new
token (the prefill), and a 32-token prompt with 32 new tokens (decoding), each in both precisions,
alternating. Prints per row the median and min-max seconds and the ratio bf16/fp32, the CPU's bf16
instructions and the load average. ``desktop_gym.llm.precision.generation_bf16`` picks bf16 only
where the CPU computes it natively (on an AVX2-only CPU autocast emulates it).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from desktop_gym.llm.precision import cpu_has_bf16_instructions  # noqa: E402


def _summary(values: list[float]) -> str:
    return f"{statistics.median(values):.2f} s ({min(values):.2f}-{max(values):.2f})"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokens", type=int, default=1500, help="prompt tokens of the prefill row")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--threads", type=int, default=1, help="torch threads (inference's default on 2 cores: 1)")
    parser.add_argument("--json", type=Path, help="also write a result file (bench/results/log format)")
    args = parser.parse_args()
    import torch

    from desktop_gym.llm import generate, load_default_model

    torch.set_num_threads(args.threads)
    tokenizer, model = load_default_model()
    long_prompt = tokenizer.decode(torch.randint(1000, 20000, (args.tokens,)).tolist())
    short_prompt = "Enter the number 5 into cell C3 of the open spreadsheet and save it. " * 2
    rows = {"prefill": (long_prompt, 1), "decode": (short_prompt, 32)}
    seconds: dict[tuple[str, str], list[float]] = {(row, p): [] for row in rows for p in ("fp32", "bf16")}
    tokens: dict[str, int] = {}
    load_before = os.getloadavg()[0]
    for index in range(args.repeats):
        for precision in ("fp32", "bf16") if index % 2 == 0 else ("bf16", "fp32"):
            for row, (prompt, new) in rows.items():
                started = time.perf_counter()
                [completion] = generate(
                    model, tokenizer, [prompt], max_new_tokens=new, temperature=0, bf16=precision == "bf16"
                )
                seconds[row, precision].append(time.perf_counter() - started)
                tokens[row] = completion.prompt_tokens
                print(f"  {row} {precision} round {index + 1}: {seconds[row, precision][-1]:.2f} s", flush=True)
    table = []
    for row in rows:
        fp32, bf16 = seconds[row, "fp32"], seconds[row, "bf16"]
        ratio = statistics.median(bf16) / statistics.median(fp32)
        label = f"{row} ({tokens[row]} prompt tokens, {rows[row][1]} new)"
        table.append([label, _summary(fp32), _summary(bf16), f"x{ratio:.2f}"])
        print(f"{label}: fp32 {_summary(fp32)}, bf16 {_summary(bf16)}, bf16/fp32 = {ratio:.2f}")
    native = cpu_has_bf16_instructions()
    load = f"load average {load_before:.1f} before, {os.getloadavg()[0]:.1f} after"
    print(f"CPU bf16 instructions: {native}; {load}; {args.threads} thread(s)")
    if args.json:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
        result = {
            "title": "Generation in float32 against bfloat16 autocast on this machine's CPU (SmolLM2-135M, one thread)",
            "benchmark": "bench/bench_generation_precision.py",
            "command": " ".join([".venv/bin/python", *sys.argv]),
            "measured": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "machine": f"{os.cpu_count()} cores, CPU bf16 instructions: {native}",
            "load": load,
            "recorded_in": commit,
            "notes": [
                f"{args.repeats} rounds, the two precisions alternating in order; "
                "p50 (min-max) seconds of one generate().",
                "generate(bf16=None) now picks bf16 only where llm.precision.generation_bf16 says it pays: a GPU, "
                "or a CPU with AVX512-BF16/AMX-BF16 and a prompt over 256 tokens. Before, every prompt over 256 "
                "tokens ran under autocast on any CPU.",
            ],
            "tables": [
                {"columns": ["row", "fp32 p50 (min-max)", "bf16 autocast p50 (min-max)", "bf16/fp32"], "rows": table}
            ],
        }
        args.json.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
