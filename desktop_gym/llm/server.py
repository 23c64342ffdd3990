"""A local OpenAI-compatible endpoint over a local model: ``desktop-gym llm serve``.

Serves ``GET /v1/models`` and ``POST /v1/chat/completions`` (plain answers, tool calls in the
OpenAI shape, token ``logprobs`` with ``top_logprobs`` alternatives, ``n`` choices, ``stream`` as
one delta chunk per choice, then a usage chunk when ``stream_options.include_usage`` is set). A
request ending in an assistant message is continued from it (a prefill, as vLLM's
``continue_final_message``). Any model name is accepted and answered by the one served model.

Tool calls: when the request offers ``tools``, the chat template renders them, or, for templates
that drop them (SmolLM2's), the fallback tool template of ``desktop_gym.llm.tool_prompt`` writes
them into the system message. An answer that is a JSON tool call (``{"name": ..., "arguments":
{...}}``, bare or in ``<tool_call>`` tags) or a Python call of an offered tool
(``CalcTools.set_cell_value(cell="A1", value=5)`` for ``CalcTools__set_cell_value``) comes back as
``message.tool_calls``; anything else stays ``message.content``. ``tool_choice``: ``"auto"``
(default), ``"none"`` (never a call), ``"required"`` or ``{"type": "function", "function":
{"name": ...}}`` (the answer is opened as a call, of that function when named; an answer that
still is not a call of an offered tool is answered 400, never passed off as content).

Every request is bounded (``ServerLimits``); a request over a bound is answered 400 naming it.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from ..actions.parsing import python_call_sites
from ..actions.types import ActionParseError
from .generation import MAX_TOP_LOGPROBS, Completion, content_text, generate_chat
from .model import DEFAULT_MODEL_NAME
from .tool_prompt import TOOL_CALL_START, template_renders_tools, tool_call_text


@dataclass(frozen=True)
class ServerLimits:
    """Bounds on one request."""

    max_messages: int = 256
    max_prompt_chars: int = 256_000
    max_tokens: int = 1024
    max_choices: int = 8
    max_tools: int = 256


class RequestError(ValueError):
    """A request outside the API or the limits (answered 400, naming the field)."""


def create_app(
    model: Any, tokenizer: Any, *, served_name: str = DEFAULT_MODEL_NAME, limits: ServerLimits | None = None
) -> Any:
    """The ASGI app (Starlette) serving ``model``.

    Args:
        model: a transformers causal LM.
        tokenizer: its tokenizer.
        served_name: the model id listed by ``/v1/models`` and echoed in answers.
        limits: request bounds.
    """
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse, StreamingResponse
    from starlette.routing import Route

    bounds = limits or ServerLimits()

    async def list_models(request: Request) -> JSONResponse:
        return JSONResponse(
            {"object": "list", "data": [{"id": served_name, "object": "model", "owned_by": "desktop-gym"}]}
        )

    async def health(request: Request) -> JSONResponse:
        return JSONResponse({"status": "ok"})

    async def chat_completions(request: Request) -> Any:
        raw = await request.body()
        if len(raw) > bounds.max_prompt_chars * 4:
            return _error(f"request body: at most {bounds.max_prompt_chars * 4} bytes, got {len(raw)}")
        try:
            body = json.loads(raw)
            if not isinstance(body, dict):
                raise RequestError("the request body must be a JSON object")
            answer = await _run_in_thread(lambda: complete(model, tokenizer, body, served_name, bounds))
        except (RequestError, json.JSONDecodeError, UnicodeDecodeError) as error:
            return _error(str(error))
        if body.get("stream"):
            include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
            return StreamingResponse(_stream(answer, include_usage), media_type="text/event-stream")
        return JSONResponse(answer)

    def _error(message: str) -> JSONResponse:
        return JSONResponse(
            {"error": {"message": message, "type": "invalid_request_error", "code": None}}, status_code=400
        )

    return Starlette(
        routes=[
            Route("/v1/models", list_models, methods=["GET"]),
            Route("/health", health, methods=["GET"]),
            Route("/v1/chat/completions", chat_completions, methods=["POST"]),
        ]
    )


async def _run_in_thread(call: Any) -> Any:
    from starlette.concurrency import run_in_threadpool

    return await run_in_threadpool(call)


def complete(
    model: Any, tokenizer: Any, body: Mapping[str, Any], served_name: str, limits: ServerLimits
) -> dict[str, Any]:
    """Answer one chat completions request body (the OpenAI response as a dict).

    Raises:
        RequestError: the body is malformed or over a limit (the message names the field).
    """
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise RequestError("messages: a non-empty list of {role, content} objects is required")
    if len(messages) > limits.max_messages:
        raise RequestError(f"messages: at most {limits.max_messages}, got {len(messages)}")
    chat = [_chat_message(m, i) for i, m in enumerate(messages)]
    if sum(len(m["content"]) for m in chat) > limits.max_prompt_chars:
        raise RequestError(f"messages: at most {limits.max_prompt_chars} characters of content in all")
    max_tokens = body.get("max_completion_tokens") or body.get("max_tokens") or 256
    n = body.get("n") or 1
    temperature = body.get("temperature", 1.0)
    top_p = body.get("top_p", 1.0)
    _check_number("max_tokens", max_tokens, 1, limits.max_tokens, integer=True)
    _check_number("n", n, 1, limits.max_choices, integer=True)
    _check_number("temperature", 1.0 if temperature is None else temperature, 0, 2)
    _check_number("top_p", 1.0 if top_p is None else top_p, 1e-6, 1)
    tools = body.get("tools") or []
    if not isinstance(tools, list) or len(tools) > limits.max_tools:
        raise RequestError(f"tools: a list of at most {limits.max_tools} function schemas")
    tool_names = [_tool_name(tool, i) for i, tool in enumerate(tools)]
    choice_mode, forced_name = _tool_choice(body.get("tool_choice"), tool_names)
    if choice_mode == "none":
        tool_names = []
    with_logprobs = bool(body.get("logprobs"))
    top_logprobs = body.get("top_logprobs")
    if top_logprobs is not None:
        _check_number("top_logprobs", top_logprobs, 0, MAX_TOP_LOGPROBS, integer=True)
        if not with_logprobs:
            raise RequestError("top_logprobs: needs logprobs set to true")
    stream_options = body.get("stream_options")
    if stream_options is not None and (not isinstance(stream_options, Mapping) or not body.get("stream")):
        raise RequestError("stream_options: an object, and only with stream set to true")
    stop = body.get("stop") or []
    stop = [stop] if isinstance(stop, str) else stop
    if not isinstance(stop, list) or len(stop) > 4 or not all(isinstance(s, str) for s in stop):
        raise RequestError("stop: a string or a list of at most 4 strings")
    prefill = ""
    if chat[-1]["role"] == "assistant":
        prefill = chat.pop()["content"]
    if choice_mode == "required" and not prefill and not template_renders_tools(tokenizer):
        # The fallback template's call form, opened for the model (and named when tool_choice names one).
        prefill = TOOL_CALL_START + (_named_call_start(tools, forced_name) if forced_name else "")
    seed = body.get("seed")
    if seed is not None and not isinstance(seed, int):
        raise RequestError(f"seed: an integer, got {seed!r}")
    completions = generate_chat(
        model,
        tokenizer,
        [chat] * int(n),
        prefill=prefill,
        tools=tools or None,
        max_new_tokens=int(max_tokens),
        temperature=float(1.0 if temperature is None else temperature),
        top_p=float(1.0 if top_p is None else top_p),
        seed=seed,
        stop=stop,
        top_logprobs=int(top_logprobs or 0),
    )
    choices = [_choice(i, c, tool_names, with_logprobs) for i, c in enumerate(completions)]
    if choice_mode == "required":
        for choice, completion in zip(choices, completions, strict=True):
            calls = choice["message"].get("tool_calls") or []
            if not calls or (forced_name and any(c["function"]["name"] != forced_name for c in calls)):
                wanted = f"a call of {forced_name!r}" if forced_name else "a call of an offered tool"
                raise RequestError(
                    f"tool_choice: {wanted} was required, but the model answered "
                    f"{(completion.prefill + completion.text)[:300]!r}"
                )
    prompt_tokens = completions[0].prompt_tokens
    completion_tokens = sum(c.completion_tokens for c in completions)
    return {
        "id": f"chatcmpl-{uuid.uuid4().hex[:24]}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": served_name,
        "choices": choices,
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


def _check_number(field: str, value: Any, low: float, high: float, integer: bool = False) -> None:
    kinds = (int,) if integer else (int, float)
    if isinstance(value, bool) or not isinstance(value, kinds) or not low <= value <= high:
        kind = "an integer" if integer else "a number"
        raise RequestError(f"{field}: {kind} in {low}..{high}, got {value!r}")


def _tool_choice(value: Any, tool_names: Sequence[str]) -> tuple[str, str | None]:
    """``(mode, function name or None)`` of a request's ``tool_choice``; mode is auto, none or required.

    Raises:
        RequestError: an unknown value, a name not among ``tools``, or a call required with no tools.
    """
    if value is None or value in ("auto", "none"):
        return value or "auto", None
    if value == "required":
        name = None
    elif isinstance(value, Mapping) and isinstance(value.get("function"), Mapping):
        name = value["function"].get("name")
        if not isinstance(name, str) or name not in tool_names:
            raise RequestError(f"tool_choice: function {name!r} is not among tools ({', '.join(tool_names)})")
    else:
        raise RequestError(
            "tool_choice: 'auto', 'none', 'required' or {'type': 'function', 'function': {'name': ...}}, "
            f"got {value!r}"
        )
    if not tool_names:
        raise RequestError("tool_choice: a tool call is required but the request offers no tools")
    return "required", name


def _named_call_start(tools: Sequence[Mapping[str, Any]], name: str) -> str:
    """The rest of the forced opening of a call of ``name``: up to the first argument's key (or the end)."""
    (function,) = [tool["function"] for tool in tools if tool["function"]["name"] == name][:1]
    parameters = function.get("parameters")
    has_arguments = isinstance(parameters, Mapping) and bool(parameters.get("properties"))
    return f'{name}", "arguments": ' + ('{"' if has_arguments else "{}}")


def _chat_message(message: Any, index: int) -> dict[str, str]:
    if not isinstance(message, Mapping) or message.get("role") not in (
        "system",
        "user",
        "assistant",
        "tool",
        "developer",
    ):
        raise RequestError(f"messages[{index}]: an object with role system|user|assistant|tool and content")
    role = "system" if message["role"] == "developer" else str(message["role"])
    content = message.get("content")
    if content is not None and not isinstance(content, str | list):
        raise RequestError(f"messages[{index}].content: a string or a list of content parts")
    text = content_text(content)
    calls = message.get("tool_calls")
    if calls:
        if not isinstance(calls, list) or not all(isinstance(call, Mapping) for call in calls):
            raise RequestError(f"messages[{index}].tool_calls: a list of tool call objects")
        text = (text + "\n" if text else "") + tool_call_text(calls)
    return {"role": role, "content": text}


def _tool_name(tool: Any, index: int) -> str:
    function = tool.get("function") if isinstance(tool, Mapping) else None
    if not isinstance(function, Mapping) or not isinstance(function.get("name"), str):
        raise RequestError(f"tools[{index}]: {{'type': 'function', 'function': {{'name': ..., 'parameters': ...}}}}")
    return function["name"]


def _choice(index: int, completion: Completion, tool_names: Sequence[str], with_logprobs: bool) -> dict[str, Any]:
    calls = parse_tool_calls(completion.prefill + completion.text, tool_names) if tool_names else []
    message: dict[str, Any] = {"role": "assistant", "content": None if calls else completion.text}
    finish = completion.finish_reason
    if calls:
        message["tool_calls"] = calls
        finish = "tool_calls"
    choice: dict[str, Any] = {"index": index, "message": message, "finish_reason": finish, "logprobs": None}
    if with_logprobs:
        choice["logprobs"] = {
            "content": [
                {
                    "token": token,
                    "logprob": logprob,
                    "bytes": list(token.encode("utf-8")),
                    "top_logprobs": [
                        {"token": alt, "logprob": alt_logprob, "bytes": list(alt.encode("utf-8"))}
                        for alt, alt_logprob in (completion.top_logprobs[step] if completion.top_logprobs else [])
                    ],
                }
                for step, (token, logprob) in enumerate(zip(completion.tokens, completion.logprobs, strict=True))
            ]
        }
    return choice


def parse_tool_calls(text: str, tool_names: Sequence[str]) -> list[dict[str, Any]]:
    """The OpenAI ``tool_calls`` in a model's answer, or [] when it is not a call of an offered tool."""
    known = set(tool_names)
    stripped = text.strip()
    if stripped.startswith("<tool_call>"):
        stripped = stripped.removeprefix("<tool_call>").split("</tool_call>")[0].strip()
    calls: list[tuple[str, dict[str, Any]]] = []
    try:
        data = json.loads(stripped)
    except json.JSONDecodeError:
        data = None
    if data is not None:
        items = data if isinstance(data, list) else [data]
        for item in items:
            if isinstance(item, Mapping) and isinstance(item.get("name"), str):
                arguments = item.get("arguments", item.get("parameters", {}))
                if isinstance(arguments, str):
                    try:
                        arguments = json.loads(arguments)
                    except json.JSONDecodeError:
                        return []
                if isinstance(arguments, Mapping):
                    calls.append((item["name"], dict(arguments)))
    else:
        try:
            sites = python_call_sites(stripped)
        except (ActionParseError, SyntaxError, ValueError):
            return []
        for site in sites:
            if site.args:
                return []  # positional arguments have no names to put in JSON
            calls.append((site.name, dict(site.kwargs)))
    resolved = []
    for name, arguments in calls:
        match = next((n for n in (name, name.replace(".", "__"), name.replace(".", "_")) if n in known), None)
        if match is None:
            return []
        resolved.append(
            {
                "id": f"call_{uuid.uuid4().hex[:16]}",
                "type": "function",
                "function": {"name": match, "arguments": json.dumps(arguments, ensure_ascii=False)},
            }
        )
    return resolved


def _stream(answer: Mapping[str, Any], include_usage: bool = False) -> Iterator[str]:
    """The answer as server-sent events: one chunk per choice, a usage chunk if asked, then ``[DONE]``.

    With ``include_usage`` every chunk carries ``"usage": null`` and a last chunk with no choices
    carries the request's usage (OpenAI's ``stream_options.include_usage``).
    """
    extra = {"usage": None} if include_usage else {}
    for choice in answer["choices"]:
        delta = {k: v for k, v in choice["message"].items() if v is not None}
        if "tool_calls" in delta:
            delta["tool_calls"] = [{"index": i, **call} for i, call in enumerate(delta["tool_calls"])]
        chunk = {
            "id": answer["id"],
            "object": "chat.completion.chunk",
            "created": answer["created"],
            "model": answer["model"],
            "choices": [
                {
                    "index": choice["index"],
                    "delta": delta,
                    "finish_reason": choice["finish_reason"],
                    "logprobs": choice["logprobs"],
                }
            ],
            **extra,
        }
        yield f"data: {json.dumps(chunk)}\n\n"
    if include_usage:
        head = {key: answer[key] for key in ("id", "created", "model")}
        usage = {**head, "object": "chat.completion.chunk", "choices": [], "usage": answer["usage"]}
        yield f"data: {json.dumps(usage)}\n\n"
    yield "data: [DONE]\n\n"


@contextmanager
def local_endpoint(
    model: Any,
    tokenizer: Any,
    *,
    host: str = "127.0.0.1",
    port: int = 0,
    served_name: str = DEFAULT_MODEL_NAME,
    startup_timeout: float = 30.0,
) -> Iterator[str]:
    """Serve ``model`` over HTTP in a background thread; yields the base URL (``http://.../v1``).

    Raises:
        TimeoutError: the server did not start listening within ``startup_timeout`` seconds.
    """
    app = create_app(model, tokenizer, served_name=served_name)
    with serving(app, host=host, port=port, startup_timeout=startup_timeout, what="the local LLM endpoint") as url:
        yield url


@contextmanager
def serving(
    app: Any, *, host: str = "127.0.0.1", port: int = 0, startup_timeout: float = 30.0, what: str = "the endpoint"
) -> Iterator[str]:
    """Run an ASGI ``app`` under uvicorn in a background thread; yields its base URL (``http://.../v1``).

    Raises:
        TimeoutError: ``what`` did not start listening within ``startup_timeout`` seconds.
    """
    import uvicorn

    server = uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, name="desktop-gym-endpoint", daemon=True)
    thread.start()
    deadline = time.monotonic() + startup_timeout
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            server.should_exit = True
            raise TimeoutError(f"{what} did not start listening on {host} within {startup_timeout}s")
        time.sleep(0.02)
    bound_port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://{host}:{bound_port}/v1"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def serve(
    model: Any, tokenizer: Any, *, host: str = "127.0.0.1", port: int = 8000, served_name: str = DEFAULT_MODEL_NAME
) -> None:
    """Serve in the foreground until interrupted (``desktop-gym llm serve``)."""
    import uvicorn

    uvicorn.run(create_app(model, tokenizer, served_name=served_name), host=host, port=port, log_level="info")
