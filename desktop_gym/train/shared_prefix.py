"""Shared-prefix forward passes: a batch whose prompts start alike runs that start once.

Every step of a rollout batch starts with the same system prompt (the action space and the app
APIs: ~1k tokens), and the step's own part (instruction, history, response) is a few hundred. The
forward pass of :func:`prefix_shared_logits` runs the common prefix once, with gradients, and the
rows' suffixes against its keys and values repeated over the batch. Autograd sums the rows'
gradients through the repeat, so log-probs and gradients equal the plain batched pass (up to float
rounding; ``tests/train/test_shared_prefix.py`` checks both) at a fraction of the compute: on a
2-core CPU a 1.1k-token prompt costs ~5 s of forward and backward per sample in full.
"""

from __future__ import annotations

from typing import Any

MIN_SHARED_PREFIX = 64  # below this the second forward call costs more than it saves


def shared_prefix_length(input_ids: Any, attention: Any, response_mask: Any) -> int:
    """Tokens every row shares at its start, capped so that each row's first predicted response token
    is predicted from a position after the prefix (0 when rows differ at once)."""
    import torch

    if input_ids.shape[0] < 2:
        return 0
    same = (input_ids == input_ids[:1]).all(0) & attention.bool().all(0)
    differing = (~same).nonzero()
    common = int(differing[0]) if len(differing) else input_ids.shape[1]
    has_response = response_mask.bool().any(1)
    if not bool(has_response.all()):
        return 0
    first_predicted = torch.argmax(response_mask.bool().int(), dim=1)  # first column predicting a response token
    return max(0, min(common, int(first_predicted.min())))


def prefix_shared_logits(
    model: Any, input_ids: Any, attention: Any, prefix: int, response_mask: Any
) -> tuple[Any, Any, Any, Any]:
    """Logits at the response-predicting positions of each row, the shared prefix run once.

    The rows' own parts are laid out as ``[prefix | padding | own tokens]`` (padding masked,
    positions counted past it), so every row's response ends in the last column and the logits
    are taken for the longest response's columns only, not for the union of the rows' columns of
    the right-padded batch (which grows with the spread of the prompt lengths: GBs at 49k of
    vocabulary).

    Args:
        model: a Hugging Face causal LM taking a cache (``cache`` or ``past_key_values``) and ``position_ids``.
        input_ids: ``[B, L]`` right-padded token ids whose first ``prefix`` columns are equal.
        attention: ``[B, L]`` attention mask of the right-padded batch.
        prefix: the shared length, from :func:`shared_prefix_length`.
        response_mask: ``[B, L-1]``, 1 where the column predicts a response token.

    Returns:
        ``(logits [B, K, V], targets [B, K], rows, columns)``: the logits and the tokens they
        predict, and for the entries that are response predictions (``logits[rows, k]`` in order)
        their ``[B, L-1]`` columns, as index tensors ``rows`` and ``columns`` (with ``ks``).
    """
    import torch

    device = input_ids.device
    count, _ = input_ids.shape
    own_lengths = [int(n) - prefix for n in attention.sum(1).tolist()]
    width = max(own_lengths)
    ids = torch.zeros((count, width), dtype=torch.long, device=device)
    own_mask = torch.zeros((count, width), dtype=attention.dtype, device=device)
    positions = torch.full((count, width), prefix, dtype=torch.long, device=device)
    for row, n in enumerate(own_lengths):
        ids[row, width - n :] = input_ids[row, prefix : prefix + n]
        own_mask[row, width - n :] = 1
        positions[row, width - n :] = torch.arange(prefix, prefix + n, device=device)
    longest = int(response_mask.sum(1).max())
    keep = torch.arange(width - 1 - longest, width - 1, device=device)
    first = model(input_ids=input_ids[:1, :prefix], use_cache=True)
    cache = getattr(first, "cache", None)
    if cache is None:  # transformers before 5 called it past_key_values
        cache = first.past_key_values
    cache.batch_repeat_interleave(count)
    out = model(
        input_ids=ids,
        attention_mask=torch.cat([torch.ones((count, prefix), dtype=attention.dtype, device=device), own_mask], 1),
        position_ids=positions,
        use_cache=True,
        logits_to_keep=keep,
        **{_cache_argument(model): cache},
    )
    targets = ids[:, keep + 1]
    shift = torch.tensor([width - n - prefix for n in own_lengths], device=device).unsqueeze(1)
    columns = keep.unsqueeze(0) - shift  # [B, K]: the right-padded batch's column of each kept position
    inside = (columns >= 0) & (columns < response_mask.shape[1])
    is_response = torch.zeros_like(inside)
    is_response[inside] = response_mask[inside.nonzero(as_tuple=True)[0], columns[inside]].bool()
    rows, ks = is_response.nonzero(as_tuple=True)
    return out.logits, targets, (rows, ks), columns[rows, ks]


def _cache_argument(model: Any) -> str:
    """``cache`` (transformers 5) or ``past_key_values`` (older), as the model's ``forward`` names it."""
    import inspect

    try:
        parameters = inspect.signature(model.forward).parameters
    except (TypeError, ValueError):
        return "past_key_values"
    return "cache" if "cache" in parameters else "past_key_values"
