"""Shared-prefix forward passes: same log-probs and gradients as the plain pass, the prefix run once."""

from __future__ import annotations

import pytest

from desktop_gym.train.model_ops import Sample, batch_tensors, token_logprobs
from desktop_gym.train.shared_prefix import MIN_SHARED_PREFIX, shared_prefix_length

from .tiny_models import tiny_llama

PREFIX = list(range(3, 3 + MIN_SHARED_PREFIX + 16))  # a system prompt all rows share


def _samples() -> list[Sample]:
    return [
        Sample(PREFIX + [40, 41, 42], [50, 51, 52, 53]),
        Sample(PREFIX + [44], [55, 56]),
        Sample(PREFIX + [40, 47, 48, 49, 45], [57]),
    ]


def _logprobs_and_grads(share: bool) -> tuple[object, list[object]]:
    import torch

    model = tiny_llama(vocab_size=128, seed=3)
    batch = batch_tensors(_samples(), pad_id=0)
    logp, entropy = token_logprobs(model, batch, bf16=False, with_entropy=True, share_prefix=share)
    loss = (logp * batch["response_mask"]).sum() + (entropy * batch["response_mask"]).sum()
    loss.backward()
    grads = [p.grad.detach().clone() for p in model.parameters() if p.grad is not None]
    return (logp * batch["response_mask"]).detach(), grads, torch


def test_shared_prefix_gives_the_plain_passes_logprobs_and_gradients() -> None:
    shared, shared_grads, torch = _logprobs_and_grads(share=True)
    plain, plain_grads, _ = _logprobs_and_grads(share=False)
    assert torch.allclose(shared, plain, atol=1e-5), (shared - plain).abs().max()
    assert len(shared_grads) == len(plain_grads) > 0
    for a, b in zip(shared_grads, plain_grads, strict=True):
        assert torch.allclose(a, b, atol=1e-5, rtol=1e-4), (a - b).abs().max()


@pytest.mark.parametrize("share", [True, False])
def test_the_prefix_runs_once_when_shared(share: bool) -> None:
    model = tiny_llama(vocab_size=128, seed=3)
    seen: list[int] = []
    model.model.embed_tokens.register_forward_hook(lambda module, args, out: seen.append(args[0].numel()))
    batch = batch_tensors(_samples(), pad_id=0)
    token_logprobs(model, batch, bf16=False, share_prefix=share)
    rows, length = batch["input_ids"].shape
    if share:  # the prefix once, then each row's suffix
        assert sum(seen) == len(PREFIX) + rows * (length - len(PREFIX))
    else:
        assert sum(seen) == rows * length


def test_shared_length_stops_where_rows_differ_and_before_the_first_response_prediction() -> None:
    import torch

    batch = batch_tensors(_samples(), pad_id=0)
    assert shared_prefix_length(batch["input_ids"], batch["attention_mask"], batch["response_mask"]) == len(PREFIX)
    short = batch_tensors([Sample(PREFIX[:10], [50, 51]), Sample(PREFIX, [52])], pad_id=0)
    # row 0's first response token is predicted at column 9: the prefix may not reach it
    assert shared_prefix_length(short["input_ids"], short["attention_mask"], short["response_mask"]) == 9
    one = batch_tensors(_samples()[:1], pad_id=0)
    assert shared_prefix_length(one["input_ids"], one["attention_mask"], one["response_mask"]) == 0
    differ = torch.tensor([[1, 2, 3], [2, 2, 3]])
    assert shared_prefix_length(differ, torch.ones_like(differ), torch.ones(2, 2)) == 0
