"""Training-step precision side by side: float32 vs bfloat16 autocast on this machine's CPU (or GPU).

Run: ``.venv/bin/python bench/bench_train_precision.py [--batch 2] [--tokens 256] [--repeats 3]``.
One forward and backward of the default policy (SmolLM2-135M) on a random batch, alternating the
two precisions ``--repeats`` times; prints per precision the median and min-max seconds, the ratio
bf16/fp32, the CPU's bf16 instructions and the 1-minute load average. The trainer uses bf16 autocast
for training only where the device computes it natively (``desktop_gym.llm.precision.native_bf16``):
on an AVX2-only CPU autocast emulates bf16 and is slower than float32.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from desktop_gym.llm.precision import cpu_has_bf16_instructions  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=2)
    parser.add_argument("--tokens", type=int, default=256)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1, help="torch threads (the trainer's default on CPU: 1)")
    args = parser.parse_args()
    import torch

    from desktop_gym.train.trainer import load_policy_model

    torch.set_num_threads(args.threads)
    _tokenizer, model = load_policy_model("default", "auto", False)
    model.train()
    device = next(model.parameters()).device
    ids = torch.randint(0, 1000, (args.batch, args.tokens), device=device)
    seconds: dict[str, list[float]] = {"fp32": [], "bf16": []}
    for index in range(args.repeats):
        for name in ("fp32", "bf16") if index % 2 == 0 else ("bf16", "fp32"):
            model.zero_grad(set_to_none=True)
            started = time.perf_counter()
            with torch.autocast(device.type, dtype=torch.bfloat16, enabled=name == "bf16"):
                logits = model(input_ids=ids, logits_to_keep=16).logits
            logits.float().sum().backward()
            seconds[name].append(time.perf_counter() - started)
            print(f"  {name} round {index + 1}: {seconds[name][-1]:.2f} s", flush=True)
    for name, values in seconds.items():
        print(f"{name}: median {statistics.median(values):.2f} s (min {min(values):.2f}, max {max(values):.2f})")
    ratio = statistics.median(seconds["bf16"]) / statistics.median(seconds["fp32"])
    shape = f"batch {args.batch} x {args.tokens} tokens, {args.threads} thread(s)"
    print(f"bf16 / fp32 = {ratio:.2f} on {device.type} ({shape})")
    print(f"CPU bf16 instructions: {cpu_has_bf16_instructions()}; load average {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
