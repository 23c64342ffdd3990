#!/usr/bin/env bash
# GPU check of the built-in trainer (issue 24), for a machine with CUDA:
#   1. desktop-free: a tiny random Llama's GRPO update (2 passes, bf16 autocast, bf16 weights) and
#      sampling on CUDA: every tensor on the model's device, the ratio leaves 1, the loss is finite;
#   2. a few iterations of the learning demo (`desktop-gym train --demo`) with the policy on CUDA
#      (needs the desktop stack: Xvfb, openbox, LibreOffice);
#   3. the same with a vision model config: the vision policy path is not built yet, so this step
#      says so and fails (exit 3) instead of passing without having run.
# Without CUDA it stops at once with exit 2 and says why. Output: bench/results/gpu_check/ (OUT=...).
# Usage: bash bench/gpu_check.sh [--skip-demo]
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-.venv/bin/python}
OUT=${OUT:-bench/results/gpu_check}
ITERATIONS=${ITERATIONS:-3}

"$PY" - <<'EOF'
import sys

import torch

if not torch.cuda.is_available():
    print("gpu_check: no CUDA device (torch.cuda.is_available() is False, torch " + torch.__version__ + "); "
          "this check needs a GPU machine", file=sys.stderr)
    sys.exit(2)
print(f"gpu_check: CUDA {torch.version.cuda}, {torch.cuda.get_device_name(0)}, torch {torch.__version__}")
EOF
mkdir -p "$OUT"

echo "== 1. GRPO update and sampling on CUDA (tiny random Llama, no download)"
"$PY" - <<'EOF' | tee "$OUT/update.txt"
import json

import numpy as np
import torch
import transformers

from desktop_gym.train.grpo import GRPOConfig
from desktop_gym.train.model_ops import Sample
from desktop_gym.train.update import UpdateOptions, grpo_update

torch.manual_seed(0)
config = transformers.LlamaConfig(vocab_size=64, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                                  num_attention_heads=4, num_key_value_heads=4, max_position_embeddings=128)
for weights in ("float32", "bfloat16"):
    model = transformers.LlamaForCausalLM(config).eval().to("cuda", dtype=getattr(torch, weights))
    reference = transformers.LlamaForCausalLM(config).eval().to("cuda", dtype=getattr(torch, weights))
    rng = np.random.default_rng(0)
    samples = [Sample([int(t) for t in rng.integers(1, 64, 8)], [int(t) for t in rng.integers(1, 64, 3)],
                      advantage=1.0 if i % 2 else -1.0) for i in range(8)]
    options = UpdateOptions(passes=2, micro_batch=4, bf16=True, grpo=GRPOConfig(kl_coef=0.05))
    stats = grpo_update(model, reference, torch.optim.AdamW(model.parameters(), lr=1e-2), samples, 0, options, rng)
    assert np.isfinite(stats["loss"]) and stats["optimizer_steps"] == 2, stats
    assert max(stats["ratio_max"] - 1, 1 - stats["ratio_min"]) > 1e-3, stats
    out = model.generate(input_ids=torch.tensor([[1, 2, 3]], device="cuda"), max_new_tokens=4, do_sample=True)
    assert out.device.type == "cuda"
    print(json.dumps({"weights": weights, **{k: round(v, 4) for k, v in stats.items()}}))
print("gpu_check: update OK")
EOF

if [ "${1:-}" != "--skip-demo" ]; then
  echo "== 2. $ITERATIONS demo iterations with the policy on CUDA"
  "$PY" -m desktop_gym.cli train --demo --iterations "$ITERATIONS" --no-eval --no-progress \
    --output "$OUT/demo-cuda" 2>&1 | tee "$OUT/demo-cuda.log"
  "$PY" - "$OUT/demo-cuda" <<'EOF'
import json
import sys
from pathlib import Path

rows = [json.loads(line) for line in (Path(sys.argv[1]) / "metrics.jsonl").read_text().splitlines()]
iterations = [row for row in rows if row["kind"] == "iteration"]
assert len(iterations) >= 1, "no iteration was logged"
print("gpu_check: demo OK:", [(r["phase"], r["success"], r.get("clip_fraction")) for r in iterations])
EOF
fi

echo "== 3. the demo with a vision model config"
echo "gpu_check: the vision policy path (images in trajectories, a processor-built prompt) is not built yet" \
  "(issue 24, item 3); nothing was run for it" >&2
exit 3
