"""Sampling with the system prompt's keys and values computed once per weights version.

Every prompt of a rollout batch starts with the same system prompt (~1k tokens of actions and
APIs) and each step's own part is a few hundred tokens. :class:`PrefixCachingPolicy` runs that
common start once per policy version, keeps its cache, and for each batch runs only the rows'
own tokens and the sampled ones against it (rows laid out as ``[prefix | padding | own tokens]``
with the padding masked and positions counted past it). On a 2-core CPU this turns a batch of
four 1.3k-token prompts from ~10 s of prefill into ~1 s. The sampled distribution is the model's
(logits divided by the temperature, no top-k or top-p), as in :class:`VersionedPolicy`.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

from desktop_gym.episode.prompts import Generation

from ..llm.precision import native_bf16
from .model_ops import model_device
from .policy_model import VersionedPolicy, _end_token_ids, _generate_lock
from .shared_prefix import MIN_SHARED_PREFIX, _cache_argument


class PrefixCachingPolicy(VersionedPolicy):
    """A :class:`VersionedPolicy` that computes a batch's shared prompt start once per weights version.

    Falls back to the parent's ``generate`` when the prompts share fewer than
    :data:`~desktop_gym.train.shared_prefix.MIN_SHARED_PREFIX` tokens.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._prefix: tuple[tuple[int, ...], int, Any] | None = None  # (ids, version, cache)
        self.prefix_runs = 0  # how often the prefix was computed (for tests and logs)
        self._newlines: set[int] | None = None

    def generate_ids(self, prompts: Sequence[Sequence[int]]) -> list[Generation]:
        """Sample a continuation of each prompt, the common start served from the cache."""
        if len(prompts) == 0:
            return []
        shared = self._cacheable_length(prompts)
        if shared < MIN_SHARED_PREFIX:
            return super().generate_ids(prompts)
        with _generate_lock:
            return self._generate(prompts, shared)

    def _cacheable_length(self, prompts: Sequence[Sequence[int]]) -> int:
        """The cached prefix's length when every prompt starts with it, else the common start cut after
        its first end-of-turn token (the system message: later turns differ between batches)."""
        if self._prefix is not None and self._prefix[1] == self.version:
            cached = self._prefix[0]
            if all(len(ids) > len(cached) and tuple(ids[: len(cached)]) == cached for ids in prompts):
                return len(cached)
        shared = _common_length(prompts)
        ends = _end_token_ids(self.tokenizer)
        first_end = next((i for i in range(shared) if int(prompts[0][i]) in ends), None)
        return shared if first_end is None else first_end + 1

    def _prefix_cache(self, ids: tuple[int, ...], device: Any, bf16: bool) -> Any:
        import torch

        if self._prefix is None or self._prefix[0] != ids or self._prefix[1] != self.version:
            with torch.inference_mode(), torch.autocast(device.type, dtype=torch.bfloat16, enabled=bf16):
                out = self.model(input_ids=torch.tensor([ids], device=device), use_cache=True)
            cache = getattr(out, "cache", None)
            self._prefix = (ids, self.version, cache if cache is not None else out.past_key_values)
            self.prefix_runs += 1
        return self._prefix[2]

    def _generate(self, prompts: Sequence[Sequence[int]], shared: int) -> list[Generation]:
        import torch

        device = model_device(self.model)
        bf16 = self.bf16 and native_bf16(device)
        rows = len(prompts)
        tokenizer = self.tokenizer
        pad_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id
        cache = copy.deepcopy(self._prefix_cache(tuple(int(i) for i in prompts[0][:shared]), device, bf16))
        cache.batch_repeat_interleave(rows)
        own = [list(ids[shared:]) for ids in prompts]
        width = max(len(ids) for ids in own)
        input_ids = torch.full((rows, width), int(pad_id), dtype=torch.long)
        mask = torch.zeros((rows, shared + width), dtype=torch.long)
        mask[:, :shared] = 1
        positions = torch.full((rows, width), shared, dtype=torch.long)
        for row, ids in enumerate(own):
            input_ids[row, width - len(ids) :] = torch.tensor(ids)
            mask[row, shared + width - len(ids) :] = 1
            positions[row, width - len(ids) :] = torch.arange(shared, shared + len(ids))
        input_ids, mask, positions = input_ids.to(device), mask.to(device), positions.to(device)
        end_ids = _end_token_ids(tokenizer)
        if self.one_line and self._newlines is None:
            self._newlines = _newline_token_ids(tokenizer)
        newline_ids = self._newlines or set()
        sampled: list[list[int]] = [[] for _ in range(rows)]
        logprobs: list[list[float]] = [[] for _ in range(rows)]
        done = [False] * rows
        argument = _cache_argument(self.model)
        with torch.inference_mode(), torch.autocast(device.type, dtype=torch.bfloat16, enabled=bf16):
            for _ in range(self.max_new_tokens):
                out = self.model(
                    input_ids=input_ids,
                    attention_mask=mask,
                    position_ids=positions,
                    use_cache=True,
                    logits_to_keep=1,
                    **{argument: cache},
                )
                logits = out.logits[:, -1].float()
                if self.temperature > 0:
                    logp = (logits / self.temperature).log_softmax(-1)
                    tokens = torch.multinomial(logp.exp(), 1).squeeze(-1)
                else:
                    logp = logits.log_softmax(-1)
                    tokens = logits.argmax(-1)
                chosen = logp.gather(-1, tokens.unsqueeze(-1)).squeeze(-1)
                for row in range(rows):
                    if done[row]:
                        continue
                    token = int(tokens[row])
                    sampled[row].append(token)
                    logprobs[row].append(float(chosen[row]))
                    done[row] = token in end_ids or token in newline_ids
                if all(done):
                    break
                input_ids = tokens.unsqueeze(-1)
                mask = torch.cat([mask, torch.ones((rows, 1), dtype=mask.dtype, device=device)], dim=1)
                positions = positions[:, -1:] + 1
        generations = []
        for row in range(rows):
            text = tokenizer.decode([t for t in sampled[row] if t not in end_ids], skip_special_tokens=True)
            generations.append(
                Generation(
                    text=text,
                    token_logprobs=logprobs[row],
                    token_ids=sampled[row],
                    extra={"prompt_tokens": len(prompts[row]), "shared_prefix_tokens": shared},
                )
            )
        return generations


def _common_length(prompts: Sequence[Sequence[int]]) -> int:
    """Tokens all prompts share at their start, leaving each at least one token of its own."""
    first = prompts[0]
    limit = min(len(ids) for ids in prompts) - 1
    length = 0
    while length < limit and all(ids[length] == first[length] for ids in prompts):
        length += 1
    return max(0, length)


def _newline_token_ids(tokenizer: Any) -> set[int]:
    """Token ids whose text holds a newline (an answer is one line: sampling may stop there)."""
    vocab = getattr(tokenizer, "get_vocab", dict)()
    ids = set()
    for token_id in vocab.values():
        if "\n" in tokenizer.decode([token_id]):
            ids.add(int(token_id))
    return ids
