"""The offline model loader and the generation helper, on the real SmolLM2-135M-Instruct."""

from __future__ import annotations

import math
import time
from typing import Any

import pytest

from desktop_gym.llm import default_model_dir, generate, generate_chat, load_default_model

CHAT = [{"role": "user", "content": "Enter 5 into cell C3."}]


def test_the_cached_copy_reloads_fast_and_is_a_fresh_model(smollm2: tuple[Any, Any]) -> None:
    assert (default_model_dir() / "model.safetensors").is_file()
    started = time.perf_counter()
    tokenizer, model = load_default_model()
    assert time.perf_counter() - started < 15  # ~0.3 s on a quiet machine; the GGUF conversion takes ~18 s
    assert model is not smollm2[1]
    assert not hasattr(model.config, "quantization_config")


def test_greedy_generation_is_deterministic_and_reports_logprobs(smollm2: tuple[Any, Any]) -> None:
    tokenizer, model = smollm2
    first, second = generate_chat(model, tokenizer, [CHAT, CHAT], max_new_tokens=6, temperature=0)
    assert first.text == second.text and first.token_ids == second.token_ids
    assert len(first.logprobs) == len(first.token_ids) == len(first.tokens) <= 6
    assert all(value <= 0 and math.isfinite(value) for value in first.logprobs)
    assert first.finish_reason in ("stop", "length") and first.prompt_tokens > 5


def test_prefill_is_continued_and_kept_out_of_the_text(smollm2: tuple[Any, Any]) -> None:
    tokenizer, model = smollm2
    [completion] = generate_chat(
        model, tokenizer, [CHAT], prefill='CalcTools.set_cell_value(cell="', max_new_tokens=4, temperature=0
    )
    assert completion.prefill == 'CalcTools.set_cell_value(cell="'
    assert not completion.text.startswith("CalcTools")


def test_seeded_sampling_repeats_and_stop_strings_cut(smollm2: tuple[Any, Any]) -> None:
    tokenizer, model = smollm2
    a = generate_chat(model, tokenizer, [CHAT], max_new_tokens=5, temperature=1.0, seed=3)[0]
    b = generate_chat(model, tokenizer, [CHAT], max_new_tokens=5, temperature=1.0, seed=3)[0]
    assert a.token_ids == b.token_ids
    word = a.text.split()[-1] if a.text.split() else None
    if word:
        [cut] = generate_chat(model, tokenizer, [CHAT], max_new_tokens=5, temperature=1.0, seed=3, stop=[word])
        assert word not in cut.text and cut.finish_reason == "stop"


@pytest.mark.parametrize(
    ("options", "message"),
    [({"max_new_tokens": 0}, "max_new_tokens"), ({"temperature": -1}, "temperature"), ({"top_p": 0}, "top_p")],
)
def test_bad_options_name_the_option(smollm2: tuple[Any, Any], options: dict[str, Any], message: str) -> None:
    tokenizer, model = smollm2
    with pytest.raises(ValueError, match=message):
        generate(model, tokenizer, ["hi"], **options)


@pytest.mark.parametrize("native", [False, True])
def test_a_long_prompt_runs_under_bf16_autocast_only_on_a_cpu_with_bf16_instructions(
    smollm2: tuple[Any, Any], monkeypatch: pytest.MonkeyPatch, native: bool
) -> None:
    """Emulated bf16 made a 3,000-token prefill ~5x slower than float32 on an AVX2-only CPU."""
    from desktop_gym.llm import precision

    monkeypatch.setattr(precision, "cpu_has_bf16_instructions", lambda: native)
    tokenizer, model = smollm2
    seen: list[Any] = []
    hook = model.lm_head.register_forward_hook(lambda _m, _inputs, out: seen.append(out.dtype))
    try:
        for words in (8, precision.BF16_PROMPT_TOKENS + 4):  # a short prompt, then one over the threshold
            [completion] = generate(model, tokenizer, ["hi " * words], max_new_tokens=1, temperature=0)
            assert (completion.prompt_tokens > precision.BF16_PROMPT_TOKENS) == (words > 8)
    finally:
        hook.remove()
    import torch

    assert seen == [torch.float32, torch.bfloat16 if native else torch.float32]


def test_generation_precision_follows_the_device() -> None:
    from desktop_gym.llm.precision import BF16_PROMPT_TOKENS, generation_bf16, native_bf16

    assert generation_bf16("cuda", 3) and native_bf16("cuda")
    assert not generation_bf16("cpu", BF16_PROMPT_TOKENS)  # short prompts decode faster in float32 anywhere
