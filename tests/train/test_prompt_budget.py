"""One prompt budget for sampling and training: the same ids, the same cut rule, a clear error past it."""

from __future__ import annotations

import warnings

import pytest

from desktop_gym.episode.trajectory import Step
from desktop_gym.errors import PromptTooLongError
from desktop_gym.train.model_ops import check_context, prompt_token_ids, step_sample
from desktop_gym.train.policy_model import VersionedPolicy

from .tiny_models import offline_tokenizer, tiny_llama

pytest.importorskip("torch")


def chat(words: int) -> list[dict[str, str]]:
    return [
        {"role": "system", "content": "You operate Calc."},
        {"role": "user", "content": "enter 5 into B2 " + "word " * words},
        {"role": "assistant", "content": 'CalcTools.set_cell_value(cell="'},
    ]


def test_sampling_and_training_see_the_same_prompt_ids() -> None:
    tokenizer = offline_tokenizer()
    policy = VersionedPolicy(tiny_llama(len(tokenizer), context=512), tokenizer, 1.0, 4, False, 200, "error", False)
    messages = chat(10)
    [generation] = policy.generate([messages])
    step = Step(1, "x", messages=messages, completion=generation.text, info={"token_ids": generation.token_ids})
    sample = step_sample(tokenizer, step, max_prompt_tokens=200)
    assert generation.extra["prompt_tokens"] == len(sample.prompt_ids)
    assert sample.prompt_ids == prompt_token_ids(tokenizer, messages, 200)
    assert tokenizer.decode(sample.prompt_ids).endswith('assistant\nCalcTools.set_cell_value(cell="')
    assert sample.response_ids == generation.token_ids


def test_a_prompt_over_the_budget_fails_in_sampling_and_training_alike() -> None:
    tokenizer = offline_tokenizer()
    messages = chat(300)
    length = len(prompt_token_ids(tokenizer, messages, 10_000))
    policy = VersionedPolicy(tiny_llama(len(tokenizer), context=512), tokenizer, 1.0, 4, False, 100, "error", False)
    with pytest.raises(PromptTooLongError, match=rf"a prompt has {length} tokens, over model.max_prompt_tokens=100"):
        policy.generate([messages])
    with pytest.raises(PromptTooLongError, match="model.prompt_overflow: left"):
        step_sample(tokenizer, Step(1, "x", messages=messages, completion="B2"), max_prompt_tokens=100)


def test_the_left_rule_keeps_the_last_tokens_with_a_warning() -> None:
    tokenizer = offline_tokenizer()
    messages = chat(300)
    full = prompt_token_ids(tokenizer, messages, 10_000)
    with pytest.warns(UserWarning, match=f"a prompt of {len(full)} tokens was cut to its last 100"):
        cut = prompt_token_ids(tokenizer, messages, 100, "left")
    assert cut == full[-100:]
    policy = VersionedPolicy(tiny_llama(len(tokenizer), context=512), tokenizer, 1.0, 4, False, 100, "left", False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        [generation] = policy.generate([messages])
        sample = step_sample(
            tokenizer, Step(1, "x", messages=messages, info={"token_ids": generation.token_ids}), 0, 100, "left"
        )
    assert generation.extra["prompt_tokens"] == 100 and sample.prompt_ids == cut
    with pytest.raises(ValueError, match="prompt_overflow must be one of"):
        prompt_token_ids(tokenizer, messages, 100, "right")


def test_budget_plus_answer_must_fit_the_model_context() -> None:
    model = tiny_llama(64, context=128)
    check_context(model, 100, 28)
    with pytest.raises(
        PromptTooLongError, match=r"max_prompt_tokens \(120\) \+ model.max_new_tokens \(24\) exceeds .* 128"
    ):
        check_context(model, 120, 24)
