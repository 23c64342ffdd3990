"""``Policy`` implementations (see ``desktop_gym.episode.prompts.Policy``) over real models.

- ``LocalModelPolicy``: a transformers model in this process (the offline default model).
- ``OpenAIPolicy``: any OpenAI-compatible endpoint through the ``openai`` client, answering in
  plain text or with tool calls; tool calls come back as the OpenAI JSON shape our action parser
  reads (``{"tool_calls": [...]}``), a whole action, flagged ``extra["tool_calls"]`` so no prefill
  is put in front of it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from desktop_gym.episode.prompts import Generation, Messages, encode_images, split_prefill, text_only

from .generation import generate_chat


@dataclass
class SamplingOptions:
    """How an LLM policy samples.

    Args:
        max_tokens: the most tokens per answer.
        temperature: 0 for greedy decoding.
        top_p: nucleus sampling mass.
        seed: a seed for reproducible samples (None: not seeded).
    """

    max_tokens: int = 64
    temperature: float = 0.0
    top_p: float = 1.0
    seed: int | None = None

    def __post_init__(self) -> None:
        if not 1 <= self.max_tokens <= 4096:
            raise ValueError(f"max_tokens must be in 1..4096, got {self.max_tokens}")
        if self.temperature < 0:
            raise ValueError(f"temperature must be >= 0, got {self.temperature}")


class LocalModelPolicy:
    """Answers prompts with a local transformers model (one batch per call).

    Args:
        model: the causal LM.
        tokenizer: its tokenizer.
        sampling: decoding options.
    """

    def __init__(self, model: Any, tokenizer: Any, sampling: SamplingOptions | None = None) -> None:
        self.model = model
        self.tokenizer = tokenizer
        self.sampling = sampling or SamplingOptions()

    def generate(self, batch: Sequence[Messages]) -> list[Generation]:
        """One completion per prompt; a trailing assistant message is continued (the prefill)."""
        by_prefill: dict[str, list[int]] = {}
        split = [split_prefill(text_only(messages)) for messages in batch]
        for index, (_, prefill) in enumerate(split):
            by_prefill.setdefault(prefill, []).append(index)
        answers: dict[int, Generation] = {}
        for prefill, indices in by_prefill.items():
            completions = generate_chat(
                self.model,
                self.tokenizer,
                [split[i][0] for i in indices],
                prefill=prefill,
                max_new_tokens=self.sampling.max_tokens,
                temperature=self.sampling.temperature,
                top_p=self.sampling.top_p,
                seed=self.sampling.seed,
            )
            for index, completion in zip(indices, completions, strict=True):
                answers[index] = Generation(
                    text=completion.text,
                    token_logprobs=completion.logprobs,
                    token_ids=completion.token_ids,
                    extra={"prompt_tokens": completion.prompt_tokens, "finish_reason": completion.finish_reason},
                )
        return [answers[i] for i in range(len(batch))]


class OpenAIPolicy:
    """Answers prompts through an OpenAI-compatible chat completions endpoint.

    Args:
        model: the model name the endpoint serves.
        base_url: the endpoint (e.g. ``http://127.0.0.1:8000/v1``); None for the client's default.
        api_key_env: the environment variable holding the API key (a placeholder is sent when unset,
            as local servers need none).
        sampling: decoding options.
        tools: function schemas to offer (``env.tool_schemas()``); None answers in plain text.
        vision: send screenshots as image parts (else they are replaced by text).
        timeout: seconds per request.
    """

    def __init__(
        self,
        model: str,
        base_url: str | None = None,
        *,
        api_key_env: str = "OPENAI_API_KEY",
        sampling: SamplingOptions | None = None,
        tools: list[dict[str, Any]] | None = None,
        vision: bool = False,
        timeout: float = 120.0,
    ) -> None:
        from openai import OpenAI

        self.model = model
        self.sampling = sampling or SamplingOptions()
        self.tools = tools
        self.vision = vision
        self.client = OpenAI(
            base_url=base_url, api_key=os.environ.get(api_key_env) or "not-needed", timeout=timeout, max_retries=1
        )

    def generate(self, batch: Sequence[Messages]) -> list[Generation]:
        """One request per prompt (chat completions have no batch call)."""
        return [self._one(messages) for messages in batch]

    def _one(self, messages: Messages) -> Generation:
        payload = encode_images(messages) if self.vision else text_only(messages)
        _, prefill = split_prefill(payload)
        request: dict[str, Any] = {
            "model": self.model,
            "messages": payload,
            "max_tokens": self.sampling.max_tokens,
            "temperature": self.sampling.temperature,
            "top_p": self.sampling.top_p,
            "logprobs": True,
        }
        if self.sampling.seed is not None:
            request["seed"] = self.sampling.seed
        if self.tools:
            request["tools"] = self.tools
        response = self.client.chat.completions.create(**request)
        choice = response.choices[0]
        message = choice.message
        if message.tool_calls:
            calls = [
                {"type": "function", "function": {"name": c.function.name, "arguments": c.function.arguments}}
                for c in message.tool_calls
            ]
            text = json.dumps({"tool_calls": calls})  # a whole action: the prefill is not part of it
        else:
            text = message.content or ""
            if prefill and text.startswith(prefill):
                text = text[len(prefill) :]  # servers that echo the prefill
        logprobs = None
        if choice.logprobs is not None and choice.logprobs.content:
            logprobs = [float(item.logprob) for item in choice.logprobs.content]
        usage = response.usage
        extra = {
            "prompt_tokens": usage.prompt_tokens if usage else 0,
            "completion_tokens": usage.completion_tokens if usage else 0,
            "finish_reason": choice.finish_reason,
            "tool_calls": bool(message.tool_calls),
        }
        return Generation(text=text, token_logprobs=logprobs, extra=extra)
