#!/usr/bin/env bash
# GPU check of the built-in trainer (issue 24), for a machine with CUDA:
#   1. desktop-free: a tiny random Llama's GRPO update (2 passes, bf16 autocast, bf16 weights) and
#      sampling on CUDA: every tensor on the model's device, the ratio leaves 1, the loss is finite;
#   2. a few iterations of the learning demo (`desktop-gym train --demo`) with the policy on CUDA
#      (needs the desktop stack: Xvfb, openbox, LibreOffice);
#   3. the vision path: (a) desktop-free, a tiny random LLaVA (built from a config, no download)
#      samples from screenshots, then takes a GRPO update and an SFT step through the pixels on
#      CUDA, with float32 and with bf16 weights; (b) the demo with a vision model config
#      (`prompt.vision: true`, that LLaVA saved as `model.path`, screenshots in the observation),
#      $ITERATIONS iterations with held-out evaluations before and after.
# Without CUDA it stops at once with exit 2 and says why. DEVICE=cpu runs every step on the CPU
# instead: the smoke run of this script on a machine without a GPU (step 2 then takes long on a
# small CPU: pass --skip-demo).
# Output: bench/results/gpu_check/ (bench/results/gpu_check-cpu/ with DEVICE=cpu; OUT=... to choose).
# Usage: [DEVICE=cpu] [ITERATIONS=3] bash bench/gpu_check.sh [--skip-demo]
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-.venv/bin/python}
export DEVICE=${DEVICE:-cuda}
if [ "$DEVICE" = cuda ]; then DEFAULT_OUT=bench/results/gpu_check; else DEFAULT_OUT=bench/results/gpu_check-$DEVICE; fi
OUT=${OUT:-$DEFAULT_OUT}
ITERATIONS=${ITERATIONS:-3}

if [ "$DEVICE" = cuda ]; then
  "$PY" - <<'EOF'
import sys

import torch

if not torch.cuda.is_available():
    print("gpu_check: no CUDA device (torch.cuda.is_available() is False, torch " + torch.__version__ + "); "
          "this check needs a GPU machine (DEVICE=cpu runs its CPU smoke run)", file=sys.stderr)
    sys.exit(2)
print(f"gpu_check: CUDA {torch.version.cuda}, {torch.cuda.get_device_name(0)}, torch {torch.__version__}")
EOF
fi
rm -rf "$OUT"
mkdir -p "$OUT"

echo "== 1. GRPO update and sampling on $DEVICE (tiny random Llama, no download)"
"$PY" - <<'EOF' | tee "$OUT/update.txt"
import json
import os

import numpy as np
import torch
import transformers

from desktop_gym.train.grpo import GRPOConfig
from desktop_gym.train.model_ops import Sample
from desktop_gym.train.update import UpdateOptions, grpo_update

device = os.environ["DEVICE"]
torch.manual_seed(0)
config = transformers.LlamaConfig(vocab_size=64, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                                  num_attention_heads=4, num_key_value_heads=4, max_position_embeddings=128)
for weights in ("float32", "bfloat16"):
    model = transformers.LlamaForCausalLM(config).eval().to(device, dtype=getattr(torch, weights))
    reference = transformers.LlamaForCausalLM(config).eval().to(device, dtype=getattr(torch, weights))
    rng = np.random.default_rng(0)
    samples = [Sample([int(t) for t in rng.integers(1, 64, 8)], [int(t) for t in rng.integers(1, 64, 3)],
                      advantage=1.0 if i % 2 else -1.0) for i in range(8)]
    options = UpdateOptions(passes=2, micro_batch=4, bf16=True, grpo=GRPOConfig(kl_coef=0.05))
    stats = grpo_update(model, reference, torch.optim.AdamW(model.parameters(), lr=1e-2), samples, 0, options, rng)
    assert np.isfinite(stats["loss"]) and stats["optimizer_steps"] == 2, stats
    assert max(stats["ratio_max"] - 1, 1 - stats["ratio_min"]) > 1e-3, stats
    out = model.generate(input_ids=torch.tensor([[1, 2, 3]], device=device), max_new_tokens=4, do_sample=True)
    assert out.device.type == device
    print(json.dumps({"weights": weights, "device": device, **{k: round(v, 4) for k, v in stats.items()}}))
print("gpu_check: update OK")
EOF

if [ "${1:-}" != "--skip-demo" ]; then
  echo "== 2. $ITERATIONS demo iterations with the policy on $DEVICE"
  "$PY" -m desktop_gym.cli train --demo --iterations "$ITERATIONS" --no-eval --no-progress \
    --output "$OUT/demo" 2>&1 | tee "$OUT/demo.log"
  "$PY" - "$OUT/demo" <<'EOF'
import json
import sys
from pathlib import Path

rows = [json.loads(line) for line in (Path(sys.argv[1]) / "metrics.jsonl").read_text().splitlines()]
iterations = [row for row in rows if row["kind"] == "iteration"]
assert len(iterations) >= 1, "no iteration was logged"
print("gpu_check: demo OK:", [(r["phase"], r["success"], r.get("clip_fraction")) for r in iterations])
EOF
fi

echo "== 3a. a tiny random vision-language model on $DEVICE: sampling, GRPO and SFT through the pixels"
"$PY" - "$OUT/tiny-vlm" <<'EOF' | tee "$OUT/vision-update.txt"
import json
import os
import sys
import tempfile

import numpy as np
import torch

from desktop_gym.episode.images import ImageStore, store_images
from desktop_gym.episode.prompts import PromptConfig, build_messages
from desktop_gym.episode.trajectory import Step
from desktop_gym.train.grpo import GRPOConfig
from desktop_gym.train.model_ops import model_device
from desktop_gym.train.sft import sft_updates
from desktop_gym.train.update import UpdateOptions, grpo_update
from desktop_gym.train.vision import vision_sample
from desktop_gym.train.vision_policy import VisionPolicy
from tests.train.tiny_models import save_tiny_vlm, tiny_vlm

device = os.environ["DEVICE"]
prompt = PromptConfig(vision=True, history=0, prefill='CalcTools.set_cell_value(cell="')
store = ImageStore(tempfile.mkdtemp())
for weights in ("float32", "bfloat16"):
    processor, model = tiny_vlm(seed=0)
    _, reference = tiny_vlm(seed=0)
    model, reference = (m.to(device, dtype=getattr(torch, weights)) for m in (model, reference))
    policy = VisionPolicy(model, processor.tokenizer, 1.0, 6, False, 512, processor=processor)
    samples = []
    for seed in range(4):
        screen = np.random.default_rng(seed).integers(0, 256, (720, 1280, 3), dtype=np.uint8)
        observation = {"instruction": "Put 5 in B2", "screenshot": screen}
        messages = build_messages("You operate Calc.", observation, (), prompt)
        generation = policy.generate([messages])[0]
        step = Step(index=1, action=generation.text, completion=generation.text, logprobs=generation.token_logprobs,
                    messages=store_images(messages, store), info={"token_ids": generation.token_ids})
        samples.append(vision_sample(processor, step, advantage=1.0 if seed % 2 else -1.0))
    tower = [p for name, p in model.named_parameters() if "vision_tower" in name]
    before = [p.detach().clone() for p in tower]
    options = UpdateOptions(passes=2, micro_batch=2, bf16=True, grpo=GRPOConfig(kl_coef=0.05))
    rng = np.random.default_rng(0)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
    stats = grpo_update(model, reference, optimizer, samples, processor.tokenizer.pad_token_id, options, rng)
    assert model_device(model).type == device and np.isfinite(stats["loss"]) and stats["optimizer_steps"] == 2, stats
    assert max(stats["ratio_max"] - 1, 1 - stats["ratio_min"]) > 1e-3, stats
    assert any(not torch.equal(a, p.detach()) for a, p in zip(before, tower)), "the pixels did not reach the loss"
    loss = sft_updates(model, samples, steps=1, batch_size=2, learning_rate=1e-3,
                       pad_id=processor.tokenizer.pad_token_id, rng=rng, bf16=True)
    assert np.isfinite(loss)
    print(json.dumps({"weights": weights, "device": device, "sft_loss": round(loss, 4),
                      **{k: round(v, 4) for k, v in stats.items()}}))
save_tiny_vlm(sys.argv[1])
print("gpu_check: vision update OK; the tiny LLaVA saved to", sys.argv[1])
EOF

echo "== 3b. $ITERATIONS iterations of the demo with a vision model config on $DEVICE"
BF16_WEIGHTS=false
[ "$DEVICE" = cuda ] && BF16_WEIGHTS=true
cat > "$OUT/vision-demo.yaml" <<EOF
# The learning demo (desktop_gym/train/demo.py) with a vision policy: the tiny random LLaVA of step 3a.
env:
  task_ids: [demo.enter_number]
  envs: 2
  max_steps: 1
  observation: [instruction, screenshot, last_action_result, last_action_error]
prompt:
  vision: true
  max_screenshots: 1
  history: 0
  prefill: 'CalcTools.set_cell_value(cell="'
  actions_text: 'CalcTools.set_cell_value(cell: str, value: float | str)'
model: {path: $OUT/tiny-vlm, device: $DEVICE, bf16: true, bf16_weights: $BF16_WEIGHTS, max_new_tokens: 14}
rl:
  iterations: $ITERATIONS
  tasks_per_iteration: 1
  group_size: 2
  eval_seeds: 2
  learning_rate: 1.0e-3
  micro_batch: 4
  updates_per_iteration: 2
  skip_zero_advantage: false
EOF
"$PY" -m desktop_gym.cli train --config "$OUT/vision-demo.yaml" --no-progress --output "$OUT/demo-vision" 2>&1 \
  | tee "$OUT/demo-vision.log"
"$PY" - "$OUT/demo-vision" "$ITERATIONS" <<'EOF'
import json
import sys
from pathlib import Path

run, iterations = Path(sys.argv[1]), int(sys.argv[2])
rows = [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines()]
done = [row for row in rows if row["kind"] == "iteration"]
evals = [row["label"] for row in rows if row["kind"] == "eval"]
assert len(done) == iterations, f"{len(done)} of {iterations} iterations logged"
assert evals == ["before", "after"], evals
kept = sorted((run / "images").glob("img_*.png"))
assert kept, "no screenshot was kept for the vision prompts"
assert (run / "checkpoint" / "trainer_state.json").is_file()
print("gpu_check: vision demo OK:", [(r["phase"], r["success"], r.get("optimizer_steps")) for r in done],
      f"{len(kept)} screenshots kept")
EOF
echo "gpu_check: every step passed on $DEVICE"
