"""The GRPO update on a tiny randomly initialised transformers model (built from a config, no download).

The old log-probs are frozen once per iteration, before the first optimizer step: with two passes
the ratio leaves 1 and the clip acts; with one pass and one minibatch it is exactly 1.
"""

from __future__ import annotations

import numpy as np
import pytest

from desktop_gym.train.grpo import GRPOConfig
from desktop_gym.train.model_ops import Sample, batch_tensors, token_logprobs
from desktop_gym.train.update import UpdateOptions, freeze_logprobs, grpo_update

from .tiny_models import tiny_llama

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

VOCAB = 64


def tiny_model(seed: int = 0) -> object:
    return tiny_llama(VOCAB, seed)


def samples(count: int = 8, seed: int = 0) -> list[Sample]:
    """Prompts of 5-9 tokens and answers of 2-4 tokens, half with advantage +1 and half -1."""
    rng = np.random.default_rng(seed)
    result = []
    for index in range(count):
        prompt = [int(t) for t in rng.integers(1, VOCAB, size=int(rng.integers(5, 10)))]
        response = [int(t) for t in rng.integers(1, VOCAB, size=int(rng.integers(2, 5)))]
        result.append(Sample(prompt, response, advantage=1.0 if index % 2 else -1.0))
    return result


def run_update(passes: int, lr: float, mini_batch: int = 0, kl_coef: float = 0.0) -> dict[str, float]:
    model = tiny_model()
    reference = tiny_model() if kl_coef else None
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr)
    options = UpdateOptions(
        passes=passes, mini_batch=mini_batch, micro_batch=3, bf16=False, grpo=GRPOConfig(kl_coef=kl_coef)
    )
    return grpo_update(model, reference, optimizer, samples(), 0, options, np.random.default_rng(0))


def test_two_passes_move_the_ratio_and_clip_at_a_large_lr() -> None:
    stats = run_update(passes=2, lr=1e-2)
    assert stats["optimizer_steps"] == 2
    assert max(stats["ratio_max"] - 1, 1 - stats["ratio_min"]) > 0.3
    assert stats["clip_fraction"] > 0.05
    assert stats["grad_norm"] > 0 and np.isfinite(stats["loss"])


def test_one_pass_one_minibatch_is_on_policy() -> None:
    stats = run_update(passes=1, lr=1e-2)
    assert stats["optimizer_steps"] == 1
    assert stats["ratio_min"] == pytest.approx(1, abs=1e-4) and stats["ratio_max"] == pytest.approx(1, abs=1e-4)
    assert stats["clip_fraction"] == 0


def test_minibatches_step_within_one_pass() -> None:
    stats = run_update(passes=1, lr=1e-2, mini_batch=4, kl_coef=0.1)
    assert stats["optimizer_steps"] == 2
    # the second minibatch is scored by weights the first one moved (the reference starts equal)
    assert max(stats["ratio_max"] - 1, 1 - stats["ratio_min"]) > 0.01 and stats["kl"] > 0


def test_old_logprobs_are_the_tempered_sampling_distribution() -> None:
    model, batch_samples = tiny_model(), samples(4)
    options = UpdateOptions(temperature=0.7, bf16=False)
    entropy = freeze_logprobs(model, None, batch_samples, 0, options)
    batch = batch_tensors(batch_samples, 0)
    with torch.no_grad():
        logits = model(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"]).logits[:, :-1]
    logp_all = (logits / 0.7).log_softmax(-1)
    for row, sample in enumerate(batch_samples):
        start = len(sample.prompt_ids) - 1
        expected = [float(logp_all[row, start + k, t]) for k, t in enumerate(sample.response_ids)]
        assert sample.old_logprobs == pytest.approx(expected, abs=1e-4)
    plain, _ = token_logprobs(model, batch, bf16=False)
    assert not torch.allclose(plain, (logits / 0.7).log_softmax(-1).gather(-1, batch["input_ids"][:, 1:, None])[..., 0])
    assert 0 < entropy < np.log(VOCAB)


def test_log_probs_project_only_the_response_positions_and_match_the_full_computation() -> None:
    model, batch_samples = tiny_model(), samples(4)
    batch = batch_tensors(batch_samples, 0)
    projected: list[tuple[int, ...]] = []
    hook = model.lm_head.register_forward_hook(lambda _m, inputs, _out: projected.append(tuple(inputs[0].shape)))
    try:
        logp, entropy = token_logprobs(model, batch, bf16=False, with_entropy=True)
    finally:
        hook.remove()
    with torch.no_grad():
        logits = model(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"]).logits[:, :-1]
    full = logits.log_softmax(-1)
    expected = full.gather(-1, batch["input_ids"][:, 1:, None])[..., 0]
    mask = batch["response_mask"].bool()
    assert torch.allclose(logp[mask], expected[mask], atol=1e-5)
    assert torch.allclose(entropy[mask], -(full.exp() * full).sum(-1)[mask], atol=1e-4)
    # The prompt positions no row answers at were never projected onto the vocabulary.
    assert projected[0][1] == int(mask.any(0).sum()) < batch["input_ids"].shape[1] - 1
    logp.sum().backward()  # gradients flow through the spread
    assert model.lm_head.weight.grad is not None and model.lm_head.weight.grad.abs().sum() > 0


@pytest.mark.parametrize("native", [False, True])
def test_bf16_autocast_only_where_the_device_computes_it_natively(
    monkeypatch: pytest.MonkeyPatch, native: bool
) -> None:
    from desktop_gym.llm import precision

    monkeypatch.setattr(precision, "cpu_has_bf16_instructions", lambda: native)
    model, batch_samples = tiny_model(), samples(2)
    seen: list[torch.dtype] = []
    hook = model.lm_head.register_forward_hook(lambda _m, _inputs, out: seen.append(out.dtype))
    try:
        token_logprobs(model, batch_tensors(batch_samples, 0), bf16=True)
    finally:
        hook.remove()
    assert seen == [torch.bfloat16 if native else torch.float32]
