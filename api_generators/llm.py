"""LLM backends for API generation: an OpenAI-compatible endpoint, the offline model, a recording.

Every backend answers :meth:`LLMClient.complete` (chat messages -> :class:`LLMReply`). Each call
carries a ``key`` (``"implement/append_line/0"``: stage, function, round) so a recording can be
replayed by position in the pipeline, and :class:`CachedClient` stores every reply under the
SHA-256 of (backend, model, messages): a rerun with the same prompts costs nothing.

:class:`RecordingClient` replays a saved transcript and says so in its name: it is not a model.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Protocol

from desktop_gym.errors import LLMError, RecordingMissError

Messages = list[dict[str, str]]
DEFAULT_MAX_TOKENS = 1500
OFFLINE_MAX_NEW_TOKENS = 400
REQUEST_TIMEOUT_S = 120.0


@dataclass(frozen=True)
class LLMReply:
    """One completion.

    Attributes:
        text: The reply text.
        prompt_tokens: Tokens in the prompt (0 when the backend cannot tell, e.g. a recording).
        completion_tokens: Tokens in the reply.
        seconds: Wall time of the call (0 when served from the cache).
        cached: Whether the reply came from the content-hash cache.
    """

    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0
    cached: bool = False


class LLMClient(Protocol):
    """What every backend offers."""

    name: str
    """Shown in the report, e.g. ``openai:http://localhost:8000/v1 (model x)``."""

    def complete(self, messages: Messages, key: str, prefill: str = "") -> LLMReply:
        """Answer the chat ``messages``; ``key`` names the pipeline step (stage/function/round).

        ``prefill`` is how the answer should start: a backend that can open the assistant turn
        with it does (small models need it); the reply text is always the whole answer.
        """
        ...


def prompt_sha256(messages: Messages) -> str:
    """The content hash of a prompt (its messages as canonical JSON)."""
    return hashlib.sha256(json.dumps(messages, sort_keys=True, ensure_ascii=False).encode("utf-8")).hexdigest()


class OpenAIClient:
    """Any OpenAI-compatible chat endpoint, through the ``openai`` client.

    Args:
        base_url: The endpoint, e.g. ``http://127.0.0.1:8000/v1`` (default: ``OPENAI_BASE_URL``).
        model: The model name (default: ``DESKTOP_GYM_APIGEN_MODEL``, else the endpoint's first model).
        api_key: The key (default: ``OPENAI_API_KEY``, else ``"none"`` for local endpoints).
        max_tokens: The longest reply.
        temperature: Sampling temperature (0 = greedy).
    """

    def __init__(
        self,
        base_url: str | None = None,
        model: str | None = None,
        api_key: str | None = None,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        temperature: float = 0.0,
    ) -> None:
        try:
            import openai
        except ImportError:
            raise LLMError(
                "an OpenAI-compatible endpoint needs the openai package (pip install 'desktop-gym[llm]')"
            ) from None
        self.base_url = base_url or os.environ.get("OPENAI_BASE_URL") or ""
        if not self.base_url:
            raise LLMError("--llm: no endpoint URL given and OPENAI_BASE_URL is not set")
        key = api_key or os.environ.get("OPENAI_API_KEY") or "none"
        self._client = openai.OpenAI(base_url=self.base_url, api_key=key, timeout=REQUEST_TIMEOUT_S, max_retries=1)
        self.model = model or os.environ.get("DESKTOP_GYM_APIGEN_MODEL") or self._first_model()
        self.max_tokens, self.temperature = max_tokens, temperature
        self.name = f"openai:{self.base_url} (model {self.model})"

    def _first_model(self) -> str:
        try:
            models = list(self._client.models.list())
        except Exception as exc:
            raise LLMError(f"--llm {self.base_url}: could not list models ({exc}); pass a model name") from None
        if not models:
            raise LLMError(f"--llm {self.base_url}: the endpoint serves no models")
        return models[0].id

    def complete(self, messages: Messages, key: str, prefill: str = "") -> LLMReply:
        started = time.monotonic()  # chat endpoints cannot be prefilled portably: prefill is ignored
        try:
            response = self._client.chat.completions.create(
                model=self.model, messages=messages, max_tokens=self.max_tokens, temperature=self.temperature
            )
        except Exception as exc:
            raise LLMError(f"{self.name}: {key}: {type(exc).__name__}: {exc}") from None
        usage = response.usage
        return LLMReply(
            text=response.choices[0].message.content or "",
            prompt_tokens=getattr(usage, "prompt_tokens", 0) or 0,
            completion_tokens=getattr(usage, "completion_tokens", 0) or 0,
            seconds=time.monotonic() - started,
        )


class OfflineClient:
    """The offline default model (SmolLM2-135M-Instruct, greedy), through :mod:`desktop_gym.llm`.

    A real run of a very small model: expect few or no accepted functions. The model is loaded on
    the first call, so a fully cached rerun never loads it.

    Args:
        max_new_tokens: The longest reply (``DESKTOP_GYM_APIGEN_MAX_TOKENS`` overrides the default).
        threads: torch CPU threads (``DESKTOP_GYM_LLM_THREADS``; default torch's). On 2 shared
            cores 1 thread generated 7x faster than 2 (measured: 16 tokens in 4.9 s vs 35.6 s).
        bf16: bfloat16 autocast (off by default: 2x slower than float32 on this machine's CPU).
    """

    def __init__(self, max_new_tokens: int | None = None, threads: int | None = None, bf16: bool = False) -> None:
        env_tokens = os.environ.get("DESKTOP_GYM_APIGEN_MAX_TOKENS")
        self.max_new_tokens = max_new_tokens or (int(env_tokens) if env_tokens else OFFLINE_MAX_NEW_TOKENS)
        env_threads = os.environ.get("DESKTOP_GYM_LLM_THREADS")
        self.threads = threads or (int(env_threads) if env_threads else None)
        self.bf16 = bf16
        self.name = "offline:SmolLM2-135M-Instruct (greedy)"

    def complete(self, messages: Messages, key: str, prefill: str = "") -> LLMReply:
        try:
            from desktop_gym.llm import generate_chat, shared_default_model

            tokenizer, model = shared_default_model()
        except (ImportError, RuntimeError) as exc:
            raise LLMError(f"--llm offline: the offline model is not available ({exc})") from None
        if self.threads:
            import torch

            torch.set_num_threads(self.threads)
        started = time.monotonic()
        completion = generate_chat(
            model,
            tokenizer,
            [messages],
            prefill=prefill,
            max_new_tokens=self.max_new_tokens,
            temperature=0.0,
            bf16=self.bf16,
        )[0]
        return LLMReply(
            text=prefill + completion.text,
            prompt_tokens=completion.prompt_tokens,
            completion_tokens=completion.completion_tokens,
            seconds=time.monotonic() - started,
        )


class RecordingClient:
    """Replays a recorded transcript: a JSON file of ``{"entries": [{"key", "prompt_sha256", "response"}]}``.

    Not a model. Its ``source`` field says who wrote the responses (the committed editor
    recording: "responses written by the developing model (Claude) for these prompts, replayed").
    An entry's ``prompt_sha256`` pins the prompt it answers. A different prompt under the same key
    (the registry listing in the analysis prompt grew, a prompt file was edited) is listed in
    :attr:`drifted` and shown in the report; with ``strict`` it raises :class:`RecordingMissError`.

    Args:
        path: The recording file.
        seal: Fill in missing ``prompt_sha256``/``prompt`` fields from this run and write them back.
        strict: Refuse to replay a response recorded for another prompt.
    """

    def __init__(self, path: str | Path, seal: bool = False, strict: bool = False) -> None:
        self.path = Path(path)
        try:
            self.data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise LLMError(f"--llm recording:{path}: no such file") from None
        except json.JSONDecodeError as exc:
            raise LLMError(f"--llm recording:{path}: not JSON ({exc})") from None
        entries = self.data.get("entries") if isinstance(self.data, dict) else None
        if not isinstance(entries, list):
            raise LLMError(f"recording {path}: needs an 'entries' list")
        self.entries: dict[str, dict[str, Any]] = {}
        for index, entry in enumerate(entries):
            if not isinstance(entry, dict) or not isinstance(entry.get("key"), str) or "response" not in entry:
                raise LLMError(f"recording {path}: entries[{index}] needs 'key' and 'response'")
            self.entries[entry["key"]] = entry
        self.seal, self.strict = seal, strict
        self.drifted: list[str] = []
        self.name = f"recording:{self.path.name} ({self.data.get('source', 'source not stated')})"

    def complete(self, messages: Messages, key: str, prefill: str = "") -> LLMReply:
        entry = self.entries.get(key)  # a recorded response is already the whole answer
        if entry is None:
            raise RecordingMissError(f"recording {self.path}: no response recorded for {key!r}")
        digest = prompt_sha256(messages)
        if entry.get("prompt_sha256") is None and self.seal:
            entry["prompt_sha256"], entry["prompt"] = digest, messages
            self.path.write_text(json.dumps(self.data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        elif entry.get("prompt_sha256") not in (None, digest):
            if self.strict:
                raise RecordingMissError(
                    f"recording {self.path}: {key!r} was recorded for another prompt (the prompt changed; "
                    "check its response, then re-seal the recording with --seal-recording)"
                )
            self.drifted.append(key)
        response = entry["response"]
        text = "\n".join(response) if isinstance(response, list) else str(response)
        return LLMReply(text=text)  # a recording has no tokenizer: tokens stay 0


class CachedClient:
    """Wraps a backend; every reply is stored under the content hash of (backend, messages).

    Args:
        inner: The backend.
        cache_dir: One JSON file per reply (``<sha256>.json``).
    """

    def __init__(self, inner: LLMClient, cache_dir: str | Path) -> None:
        self.inner, self.cache_dir = inner, Path(cache_dir)
        self.cache_dir.mkdir(parents=True, exist_ok=True)
        self.name = inner.name
        self.hits = 0

    def _path(self, messages: Messages, key: str, prefill: str) -> Path:
        content = json.dumps(
            {"backend": self.inner.name, "key": key, "messages": messages, "prefill": prefill}, sort_keys=True
        )
        return self.cache_dir / f"{hashlib.sha256(content.encode('utf-8')).hexdigest()}.json"

    def complete(self, messages: Messages, key: str, prefill: str = "") -> LLMReply:
        path = self._path(messages, key, prefill)
        if path.exists():
            try:
                stored = json.loads(path.read_text(encoding="utf-8"))
                self.hits += 1
                return LLMReply(**{**stored, "seconds": 0.0, "cached": True})
            except (json.JSONDecodeError, TypeError):
                path.unlink()  # a torn write: ask again
        reply = self.inner.complete(messages, key, prefill)
        temporary = path.with_suffix(".tmp")
        temporary.write_text(json.dumps(asdict(reply)), encoding="utf-8")
        temporary.replace(path)
        return reply


def make_client(
    spec: str, cache_dir: str | Path | None = None, seal_recording: bool = False, strict_recording: bool = False
) -> LLMClient:
    """The backend named by ``--llm``: ``offline``, ``recording:PATH``, or an endpoint URL.

    Args:
        spec: ``offline``, ``recording:PATH``, ``http(s)://HOST/v1`` (model from ``#MODEL`` suffix or env).
        cache_dir: Where replies are cached by content hash (None = no cache; recordings are never cached).
        seal_recording: See :class:`RecordingClient` (``seal``).
        strict_recording: See :class:`RecordingClient` (``strict``).

    Raises:
        LLMError: an unknown spec, naming the accepted forms.
    """
    if spec.startswith("recording:"):
        return RecordingClient(spec.removeprefix("recording:"), seal=seal_recording, strict=strict_recording)
    if spec == "offline":
        client: LLMClient = OfflineClient()
    elif spec.startswith(("http://", "https://")):
        url, _, model = spec.partition("#")
        client = OpenAIClient(base_url=url, model=model or None)
    else:
        raise LLMError(f"--llm {spec!r}: expected 'offline', 'recording:PATH' or an endpoint URL (http://.../v1)")
    return CachedClient(client, cache_dir) if cache_dir is not None else client
