"""Generation with a local transformers model: chat template, batches, sampling, token logprobs.

One helper for every local-model caller (the ``hf:`` agent, ``desktop-gym llm serve``, the
trainer's rollouts, the API generator)::

    tokenizer, model = load_default_model()
    [completion] = generate_chat(model, tokenizer, [[{"role": "user", "content": "Hi"}]],
                                 max_new_tokens=16, prefill="CalcTools.")
    completion.text, completion.logprobs

Logprobs are the model's own (log-softmax of the raw logits, before temperature and top-p), as
OpenAI-compatible servers report them.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .precision import generation_bf16
from .tool_prompt import template_renders_tools, with_tools_in_system

MAX_NEW_TOKENS_CAP = 2048
MAX_BATCH = 64
MAX_TOP_LOGPROBS = 20
_generate_lock = threading.Lock()  # torch's global RNG and the model are shared by threads


@dataclass
class Completion:
    """One generated continuation.

    Attributes:
        text: the decoded continuation (without the prefill and the end-of-turn token).
        token_ids: the generated token ids (including a final end-of-turn token if one came).
        tokens: each generated token as text.
        logprobs: the model's log-probability of each generated token.
        prompt_tokens: the length of the prompt in tokens (prefill included).
        finish_reason: ``"stop"`` (end of turn or a stop string) or ``"length"``.
        prefill: the text the assistant turn was started with.
        top_logprobs: per generated token, the most likely tokens and their log-probabilities
            (empty unless asked for with ``generate(top_logprobs=k)``).
    """

    text: str
    token_ids: list[int] = field(default_factory=list)
    tokens: list[str] = field(default_factory=list)
    logprobs: list[float] = field(default_factory=list)
    prompt_tokens: int = 0
    finish_reason: str = "stop"
    prefill: str = ""
    top_logprobs: list[list[tuple[str, float]]] = field(default_factory=list)

    @property
    def completion_tokens(self) -> int:
        """How many tokens were generated."""
        return len(self.token_ids)


def chat_prompt(
    tokenizer: Any,
    messages: Sequence[Mapping[str, Any]],
    *,
    prefill: str = "",
    tools: Sequence[Mapping[str, Any]] | None = None,
) -> str:
    """The prompt text for a chat, with the assistant turn opened and ``prefill`` appended.

    Message contents may be strings or OpenAI content-part lists (text parts are joined; image
    parts are dropped: the default model reads text only). ``tools`` go to the chat template, or,
    when the template drops them (SmolLM2's), into the system message in the fallback form of
    ``desktop_gym.llm.tool_prompt``.
    """
    plain = [{"role": str(m.get("role", "user")), "content": content_text(m.get("content"))} for m in messages]
    kwargs: dict[str, Any] = {"tokenize": False, "add_generation_prompt": True}
    if tools and template_renders_tools(tokenizer):
        kwargs["tools"] = list(tools)
    elif tools:
        plain = with_tools_in_system(plain, tools)
    return tokenizer.apply_chat_template(plain, **kwargs) + prefill


def content_text(content: Any) -> str:
    """The text of a chat message content (a string or a list of OpenAI content parts)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    parts = []
    for part in content:
        if isinstance(part, Mapping) and part.get("type") == "text":
            parts.append(str(part.get("text", "")))
    return "\n".join(parts)


def generate(
    model: Any,
    tokenizer: Any,
    prompts: Sequence[str],
    *,
    max_new_tokens: int = 64,
    temperature: float = 1.0,
    top_p: float = 1.0,
    seed: int | None = None,
    stop: Sequence[str] = (),
    bf16: bool | None = None,
    top_logprobs: int = 0,
) -> list[Completion]:
    """Continue each prompt; one batch, left-padded.

    Args:
        model: a transformers causal LM.
        tokenizer: its tokenizer.
        prompts: prompt texts (already templated, see ``chat_prompt``).
        max_new_tokens: the most tokens per completion (capped at ``MAX_NEW_TOKENS_CAP``).
        temperature: 0 for greedy decoding, else the sampling temperature.
        top_p: nucleus sampling mass.
        seed: seeds torch's RNG for a reproducible sample.
        stop: strings that end a completion (the text is cut before them).
        bf16: run under bfloat16 autocast; None: where it pays (``precision.generation_bf16``: on a
            CPU only with bf16 instructions and a prompt over ``BF16_PROMPT_TOKENS`` tokens; on an
            AVX2-only CPU autocast emulates bf16 and a long prefill is ~5x slower than float32).
        top_logprobs: also keep the ``top_logprobs`` most likely tokens at each step (0..``MAX_TOP_LOGPROBS``).

    Returns:
        One ``Completion`` per prompt, in order.
    """
    import torch

    if not prompts:
        return []
    if len(prompts) > MAX_BATCH:
        raise ValueError(f"prompts: at most {MAX_BATCH} per batch, got {len(prompts)}")
    if not 1 <= max_new_tokens <= MAX_NEW_TOKENS_CAP:
        raise ValueError(f"max_new_tokens must be in 1..{MAX_NEW_TOKENS_CAP}, got {max_new_tokens}")
    if temperature < 0:
        raise ValueError(f"temperature must be >= 0, got {temperature}")
    if not 0 < top_p <= 1:
        raise ValueError(f"top_p must be in (0, 1], got {top_p}")
    if not 0 <= top_logprobs <= MAX_TOP_LOGPROBS:
        raise ValueError(f"top_logprobs must be in 0..{MAX_TOP_LOGPROBS}, got {top_logprobs}")
    pad_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id
    previous_side = tokenizer.padding_side
    tokenizer.padding_side = "left"
    try:
        batch = tokenizer(list(prompts), return_tensors="pt", padding=True, add_special_tokens=False)
    finally:
        tokenizer.padding_side = previous_side
    if bf16 is None:
        bf16 = generation_bf16(model.device, batch["input_ids"].shape[1])
    sampling: dict[str, Any] = {"do_sample": False}
    if temperature > 0:
        sampling = {"do_sample": True, "temperature": temperature, "top_p": top_p, "top_k": 0}
    with _generate_lock, torch.inference_mode():
        if seed is not None:
            torch.manual_seed(seed)
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
            output = model.generate(
                **batch,
                max_new_tokens=max_new_tokens,
                pad_token_id=pad_id,
                return_dict_in_generate=True,
                output_logits=True,
                **sampling,
            )
    prompt_length = batch["input_ids"].shape[1]
    generated = output.sequences[:, prompt_length:]
    logprobs = torch.stack(output.logits, dim=1).float().log_softmax(dim=-1)
    chosen = logprobs.gather(-1, generated.unsqueeze(-1)).squeeze(-1)
    best = torch.topk(logprobs, top_logprobs, dim=-1) if top_logprobs else None
    end_ids = _end_token_ids(tokenizer)
    completions = []
    for row in range(len(prompts)):
        ids: list[int] = []
        finish = "length"
        for token in generated[row].tolist():
            ids.append(token)
            if token in end_ids:
                finish = "stop"
                break
        kept = len(ids)
        text = tokenizer.decode([t for t in ids if t not in end_ids], skip_special_tokens=True)
        cut = _stop_index(text, stop)
        if cut is not None:
            text, finish = text[:cut], "stop"
        completions.append(
            Completion(
                text=text,
                token_ids=ids,
                tokens=[tokenizer.decode([t]) for t in ids],
                logprobs=[float(v) for v in chosen[row, :kept].tolist()],
                prompt_tokens=int(batch["attention_mask"][row].sum()),
                finish_reason=finish,
                top_logprobs=_top_tokens(tokenizer, best, row, kept) if best is not None else [],
            )
        )
    return completions


def _top_tokens(tokenizer: Any, best: Any, row: int, kept: int) -> list[list[tuple[str, float]]]:
    """The ``(token text, logprob)`` alternatives of ``row``'s first ``kept`` steps, most likely first."""
    values, indices = best.values[row, :kept].tolist(), best.indices[row, :kept].tolist()
    return [
        [(tokenizer.decode([token]), float(value)) for token, value in zip(ids, logs, strict=True)]
        for ids, logs in zip(indices, values, strict=True)
    ]


def generate_chat(
    model: Any,
    tokenizer: Any,
    conversations: Sequence[Sequence[Mapping[str, Any]]],
    *,
    prefill: str = "",
    tools: Sequence[Mapping[str, Any]] | None = None,
    **options: Any,
) -> list[Completion]:
    """``generate`` over chats: each conversation templated, the assistant turn opened with ``prefill``.

    The returned ``Completion.text`` excludes the prefill; ``prefill + text`` is the full answer.
    """
    prompts = [chat_prompt(tokenizer, messages, prefill=prefill, tools=tools) for messages in conversations]
    completions = generate(model, tokenizer, prompts, **options)
    for completion in completions:
        completion.prefill = prefill
    return completions


def _end_token_ids(tokenizer: Any) -> set[int]:
    ids = {tokenizer.eos_token_id}
    end_of_turn = tokenizer.convert_tokens_to_ids("<|im_end|>")
    if isinstance(end_of_turn, int) and end_of_turn != tokenizer.unk_token_id:
        ids.add(end_of_turn)
    return {i for i in ids if i is not None}


def _stop_index(text: str, stop: Sequence[str]) -> int | None:
    found = [text.find(s) for s in stop if s and s in text]
    return min(found) if found else None
