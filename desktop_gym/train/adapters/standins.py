"""Stand-ins for the inference servers verl and OpenRLHF expect (vLLM / SGLang), backed by transformers.

vLLM needs a GPU, so on a CPU machine the adapters' own code paths run against these instead:
each serves the *same call* the trainer's agent code makes (verl's
``server_manager.generate(request_id, prompt_ids=..., sampling_params=...)``, OpenRLHF's
``llm_engine.generate(prompt_token_ids, sampling_params, multi_modal_data=...)``), from a local
transformers model, token ids in and token ids (with log-probabilities) out. They are stand-ins,
named so: they do not batch across requests, page a KV cache or update weights from a trainer.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

MAX_NEW_TOKENS_CAP = 1024
_model_lock = threading.Lock()  # one generation at a time on a shared model (and torch's global RNG)


@dataclass
class StandInSample:
    """One generated continuation: token ids, their log-probabilities, and why it stopped."""

    token_ids: list[int]
    logprobs: list[float]
    finish_reason: str  # "stop" (an end-of-turn token came) or "length"


class StandInGenerator:
    """Token-id generation from a transformers causal LM (the shared core of the stand-ins).

    Args:
        model: a transformers causal LM (CPU).
        tokenizer: its tokenizer (for the end-of-turn token ids).
    """

    def __init__(self, model: Any, tokenizer: Any) -> None:
        self.model = model
        self.tokenizer = tokenizer
        self.calls = 0
        ends = {tokenizer.eos_token_id, tokenizer.convert_tokens_to_ids("<|im_end|>")}
        self.end_ids = {token for token in ends if isinstance(token, int) and token >= 0}

    def sample(
        self, prompt_ids: Sequence[int], max_new_tokens: int, temperature: float = 1.0, top_p: float = 1.0
    ) -> StandInSample:
        """Continue ``prompt_ids`` by at most ``max_new_tokens`` tokens (greedy when ``temperature`` is 0).

        Raises:
            ValueError: an empty prompt or a token budget outside 1..``MAX_NEW_TOKENS_CAP``.
        """
        import torch

        if not prompt_ids:
            raise ValueError("prompt_ids is empty")
        if not 1 <= max_new_tokens <= MAX_NEW_TOKENS_CAP:
            raise ValueError(f"max_new_tokens must be in 1..{MAX_NEW_TOKENS_CAP}, got {max_new_tokens}")
        sampling: dict[str, Any] = {"do_sample": False}
        if temperature > 0:
            sampling = {"do_sample": True, "temperature": float(temperature), "top_p": float(top_p), "top_k": 0}
        input_ids = torch.tensor([list(prompt_ids)], dtype=torch.long)
        with _model_lock, torch.inference_mode():
            self.calls += 1
            output = self.model.generate(
                input_ids,
                attention_mask=torch.ones_like(input_ids),
                max_new_tokens=max_new_tokens,
                eos_token_id=sorted(self.end_ids),
                pad_token_id=self.tokenizer.pad_token_id or self.tokenizer.eos_token_id,
                return_dict_in_generate=True,
                output_logits=True,
                **sampling,
            )
        generated = output.sequences[0, input_ids.shape[1] :]
        logprobs = torch.stack(output.logits, dim=1)[0].float().log_softmax(dim=-1)
        chosen = logprobs.gather(-1, generated.unsqueeze(-1)).squeeze(-1).tolist()
        ids: list[int] = []
        for token in generated.tolist():
            ids.append(int(token))
            if token in self.end_ids:
                return StandInSample(ids, [float(v) for v in chosen[: len(ids)]], "stop")
        return StandInSample(ids, [float(v) for v in chosen[: len(ids)]], "length")

    async def sample_async(self, prompt_ids: Sequence[int], max_new_tokens: int, **options: Any) -> StandInSample:
        """:meth:`sample` in a worker thread, so the trainer's event loop keeps running."""
        return await asyncio.to_thread(self.sample, prompt_ids, max_new_tokens, **options)


class StandInVerlServerManager:
    """Stand-in for verl's ``LLMServerClient`` (its async ``generate`` returning a ``TokenOutput``).

    Args:
        generator: the transformers-backed generator.
        response_length: the token budget when ``sampling_params`` has no ``max_tokens``
            (verl's ``rollout.response_length``).
    """

    def __init__(self, generator: StandInGenerator, response_length: int = 64) -> None:
        self.generator = generator
        self.response_length = response_length
        self.request_ids: list[str] = []

    async def generate(
        self,
        request_id: str,
        *,
        prompt_ids: list[int],
        sampling_params: dict[str, Any],
        image_data: list[Any] | None = None,
        **_backend_options: Any,
    ) -> Any:
        """verl's call: generate a continuation of ``prompt_ids`` (images are ignored: a text model)."""
        from verl.workers.rollout.replica import TokenOutput

        self.request_ids.append(request_id)
        budget = int(sampling_params.get("max_tokens") or sampling_params.get("max_new_tokens") or self.response_length)
        sample = await self.generator.sample_async(
            prompt_ids,
            min(budget, self.response_length),
            temperature=float(sampling_params.get("temperature", 1.0)),
            top_p=float(sampling_params.get("top_p", 1.0)),
        )
        return TokenOutput(
            token_ids=sample.token_ids,
            log_probs=sample.logprobs if sampling_params.get("logprobs") else None,
            stop_reason="completed",
        )


@dataclass
class StandInSamplingParams:
    """The fields of ``vllm.SamplingParams`` that OpenRLHF's agent executor reads and writes."""

    max_tokens: int | None = 64
    temperature: float = 1.0
    top_p: float = 1.0
    logprobs: int | None = 1


@dataclass
class _Logprob:
    logprob: float


@dataclass
class StandInCompletionOutput:
    """The fields of ``vllm.CompletionOutput`` OpenRLHF reads."""

    token_ids: list[int]
    text: str
    finish_reason: str
    logprobs: list[dict[int, _Logprob]] | None = None


@dataclass
class StandInRequestOutput:
    """The fields of ``vllm.RequestOutput`` OpenRLHF reads."""

    outputs: list[StandInCompletionOutput] = field(default_factory=list)


class StandInVllmEngine:
    """Stand-in for the vLLM engine OpenRLHF's ``RolloutRayActor`` hands its agent executor.

    Args:
        generator: the transformers-backed generator.
        max_new_tokens: cap on one turn's tokens (OpenRLHF asks for the whole remaining context).
    """

    def __init__(self, generator: StandInGenerator, max_new_tokens: int = 64) -> None:
        self.generator = generator
        self.max_new_tokens = max_new_tokens

    async def generate(
        self, prompt_token_ids: list[int], sampling_params: Any, multi_modal_data: dict[str, Any] | None = None
    ) -> StandInRequestOutput:
        """OpenRLHF's call: one continuation of ``prompt_token_ids`` (images are ignored: a text model)."""
        budget = min(int(sampling_params.max_tokens or self.max_new_tokens), self.max_new_tokens)
        sample = await self.generator.sample_async(
            prompt_token_ids, budget, temperature=sampling_params.temperature, top_p=sampling_params.top_p
        )
        text = self.generator.tokenizer.decode(sample.token_ids, skip_special_tokens=True)
        logprobs = None
        if sampling_params.logprobs is not None:
            logprobs = [
                {token: _Logprob(value)} for token, value in zip(sample.token_ids, sample.logprobs, strict=True)
            ]
        return StandInRequestOutput([StandInCompletionOutput(sample.token_ids, text, sample.finish_reason, logprobs)])
