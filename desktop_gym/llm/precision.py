"""Whether bfloat16 autocast pays on a device: a GPU, or a CPU with bf16 instructions.

On a CPU without them (AVX2 only, as this project's 2-core machines) autocast emulates bf16 and is
several times slower than float32: a long prefill and short decoding of SmolLM2-135M on one thread
(``bench/bench_generation_precision.py``), and a training step (``bench/bench_train_precision.py``).
Where the CPU has them, bf16 pays for long prompts' prefill and costs in short-prompt decoding,
hence :data:`BF16_PROMPT_TOKENS`.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

BF16_PROMPT_TOKENS = 256  # on a CPU with bf16 instructions, autocast only for prompts longer than this


@functools.cache
def cpu_has_bf16_instructions() -> bool:
    """The CPU advertises AVX512-BF16 or AMX-BF16 (``/proc/cpuinfo``); False where unreadable."""
    try:
        flags = set(Path("/proc/cpuinfo").read_text().split())
    except OSError:
        return False
    return bool(flags & {"avx512_bf16", "amx_bf16"})


def native_bf16(device: Any) -> bool:
    """Whether bfloat16 autocast pays on ``device`` at all: a GPU, or a CPU with bf16 instructions."""
    if getattr(device, "type", str(device)) != "cpu":
        return True
    return cpu_has_bf16_instructions()


def generation_bf16(device: Any, prompt_tokens: int) -> bool:
    """Whether to generate under bf16 autocast: always on a GPU; on a CPU only with bf16 instructions
    and a prompt longer than :data:`BF16_PROMPT_TOKENS` (its prefill pays, short decoding does not)."""
    if getattr(device, "type", str(device)) != "cpu":
        return True
    return prompt_tokens > BF16_PROMPT_TOKENS and cpu_has_bf16_instructions()
