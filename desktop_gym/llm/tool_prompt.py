"""Tools in the prompt for chat templates that drop them: the fallback tool template.

Some chat templates ignore ``tools`` (SmolLM2-Instruct's renders the same prompt with or without
them), so a model served through them never learns what it may call. For those, the tools go
into the system message as text, in the Hermes / Qwen2.5 function-calling form, which
``parse_tool_calls`` reads back::

    # Tools

    You may call one or more functions to assist with the user query.

    You are provided with function signatures within <tools></tools> XML tags:
    <tools>
    {"type": "function", "function": {"name": "click", ...}}
    </tools>

    For each function call, return a json object with function name and arguments within
    <tool_call></tool_call> XML tags:
    <tool_call>
    {"name": <function-name>, "arguments": <args-json-object>}
    </tool_call>

The block follows the first system message (or becomes the system message when there is none).
Past assistant tool calls are written as ``<tool_call>`` blocks in that same form. A template that
renders tools itself is left alone: :func:`template_renders_tools` finds out by rendering a probe
chat with and without a probe tool.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

TOOL_CALL_START = '<tool_call>\n{"name": "'
"""How a tool call opens in the fallback form (a prefill that forces a call)."""
_HEADER = (
    "# Tools\n\nYou may call one or more functions to assist with the user query.\n\n"
    "You are provided with function signatures within <tools></tools> XML tags:\n<tools>\n"
)
_FOOTER = (
    "\n</tools>\n\nFor each function call, return a json object with function name and arguments within "
    "<tool_call></tool_call> XML tags:\n<tool_call>\n"
    '{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call>'
)
_PROBE_TOOL = {
    "type": "function",
    "function": {
        "name": "desktop_gym_probe_tool",
        "description": "probe",
        "parameters": {"type": "object", "properties": {}},
    },
}
_renders: dict[str, bool] = {}  # chat template text -> whether it renders tools (templates are few)


def template_renders_tools(tokenizer: Any) -> bool:
    """Whether ``tokenizer``'s chat template puts ``tools`` into the prompt (probed once per template)."""
    template = str(getattr(tokenizer, "chat_template", None) or "")
    if template not in _renders:
        chat = [{"role": "user", "content": "hi"}]
        try:
            plain = tokenizer.apply_chat_template(chat, tokenize=False, add_generation_prompt=True)
            with_tool = tokenizer.apply_chat_template(
                chat, tools=[_PROBE_TOOL], tokenize=False, add_generation_prompt=True
            )
        except Exception:  # noqa: BLE001 - a template that chokes on tools does not render them
            _renders[template] = False
        else:
            _renders[template] = plain != with_tool and _PROBE_TOOL["function"]["name"] in with_tool
    return _renders[template]


def tools_block(tools: Sequence[Mapping[str, Any]]) -> str:
    """The fallback text that describes ``tools`` (one JSON schema a line, as Qwen2.5 writes them)."""
    return _HEADER + "\n".join(json.dumps(tool, ensure_ascii=False) for tool in tools) + _FOOTER


def tool_call_text(calls: Sequence[Mapping[str, Any]]) -> str:
    """Past tool calls (OpenAI shape, or ``{"name", "arguments"}``) as fallback ``<tool_call>`` blocks."""
    blocks = []
    for call in calls:
        function = call.get("function", call)
        arguments = function.get("arguments", {})
        if isinstance(arguments, str):
            try:
                arguments = json.loads(arguments)
            except json.JSONDecodeError:
                pass  # kept as the string the caller sent
        body = json.dumps({"name": function.get("name"), "arguments": arguments}, ensure_ascii=False)
        blocks.append(f"<tool_call>\n{body}\n</tool_call>")
    return "\n".join(blocks)


def with_tools_in_system(messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]]) -> list[dict]:
    """``messages`` with :func:`tools_block` after the first system message's text (or as one)."""
    block = tools_block(tools)
    result = [dict(message) for message in messages]
    if result and result[0].get("role") == "system":
        text = str(result[0].get("content") or "")
        result[0]["content"] = f"{text}\n\n{block}" if text else block
        return result
    return [{"role": "system", "content": block}, *result]
