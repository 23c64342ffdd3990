"""Sampling with a cached system prompt: the same answers as plain sampling, the prefix run once per version."""

from __future__ import annotations

from typing import Any

from desktop_gym.train.policy_model import VersionedPolicy
from desktop_gym.train.prefix_policy import PrefixCachingPolicy
from desktop_gym.train.shared_prefix import MIN_SHARED_PREFIX

from .tiny_models import offline_tokenizer, tiny_llama


def _model() -> Any:
    import torch

    tokenizer = offline_tokenizer()
    model = tiny_llama(vocab_size=len(tokenizer), seed=5, context=512)
    with torch.no_grad():  # peaked logits: greedy choices are far from ties
        model.lm_head.weight.mul_(60)
    return model


def _prompts(tokenizer: Any) -> list[list[int]]:
    end = tokenizer.convert_tokens_to_ids("<|im_end|>")
    system = tokenizer("You operate a desktop. " * 20, add_special_tokens=False)["input_ids"] + [end]
    assert len(system) > MIN_SHARED_PREFIX
    own = ["Rename the sheet Report.", "Replace every Oakvile with Oakville in the sheet now.", "Save."]
    return [system + tokenizer(text, add_special_tokens=False)["input_ids"] for text in own]


def _policy(cls: type, model: Any, tokenizer: Any) -> Any:
    return cls(model, tokenizer, temperature=0.0, max_new_tokens=8, one_line=False, bf16=False)


def test_cached_prefix_sampling_matches_plain_sampling() -> None:
    tokenizer, model = offline_tokenizer(), _model()
    prompts = _prompts(tokenizer)
    plain = _policy(VersionedPolicy, model, tokenizer).generate_ids(prompts)
    cached = _policy(PrefixCachingPolicy, model, tokenizer).generate_ids(prompts)
    for a, b in zip(plain, cached, strict=True):
        assert b.extra["shared_prefix_tokens"] > MIN_SHARED_PREFIX
        assert a.token_ids == b.token_ids
        assert max(abs(x - y) for x, y in zip(a.token_logprobs, b.token_logprobs, strict=True)) < 1e-3


def test_the_prefix_is_computed_once_per_weights_version() -> None:
    tokenizer, model = offline_tokenizer(), _model()
    prompts = _prompts(tokenizer)
    policy = _policy(PrefixCachingPolicy, model, tokenizer)
    seen: list[int] = []
    model.model.embed_tokens.register_forward_hook(lambda module, args, out: seen.append(args[0].shape[1]))
    policy.generate_ids(prompts[:2])
    policy.generate_ids(prompts[1:])  # same system prompt, same version: served from the cache
    assert policy.prefix_runs == 1
    assert max(seen) < len(prompts[1])  # no call ran a whole prompt
    policy.version += 1  # the weights changed: the cache is stale
    policy.generate_ids(prompts)
    assert policy.prefix_runs == 2
