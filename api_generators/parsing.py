"""Reading LLM replies: fenced code blocks, the analysis JSON, and checked Python sources.

Agent and LLM text is never executed here: code is parsed with ``ast`` and only ever runs in the
sandbox (:mod:`desktop_gym.api_generators.sandbox`).
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Callable
from typing import Any, TypeVar

from desktop_gym.errors import ReplyFormatError

T = TypeVar("T")

MAX_REPLY_CHARS = 60_000
MAX_FUNCTIONS = 20
MAX_REPORTED_REPLY_CHARS = 2000
_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_+-]*)[^\n]*\n(.*?)(?:```|\Z)", re.DOTALL)
_IDENTIFIER = re.compile(r"^[a-z_][a-z0-9_]*$")


def parse_reply(parse: Callable[[str], T], text: str) -> T:
    """``parse(text)``; a :class:`ReplyFormatError` it raises carries the reply's text."""
    try:
        return parse(text)
    except ReplyFormatError as exc:
        exc.reply = text[:MAX_REPORTED_REPLY_CHARS]
        raise


def code_blocks(text: str, language: str | None = None) -> list[str]:
    """The fenced blocks of ``text`` (an unclosed last fence runs to the end), optionally of one language."""
    blocks = []
    for match in _FENCE.finditer(text[:MAX_REPLY_CHARS]):
        tag, body = match.group(1).lower(), match.group(2)
        if language is None or tag == language or (language == "python" and tag in ("", "py")):
            blocks.append(body.strip("\n"))
    return blocks


def first_json_object(text: str) -> Any:
    """The first JSON value in a ```json block, else the first ``{...}``/``[...]`` that parses.

    Raises:
        ReplyFormatError: no JSON found.
    """
    text = text[:MAX_REPLY_CHARS]
    for block in code_blocks(text, "json"):
        try:
            return json.loads(block)
        except json.JSONDecodeError:
            continue
    decoder = json.JSONDecoder()
    for start, char in enumerate(text):
        if char in "{[":
            try:
                value, _ = decoder.raw_decode(text, start)
                return value
            except json.JSONDecodeError:
                continue
    raise ReplyFormatError("the reply contains no JSON object")


def _text_field(item: dict[str, Any], name: str, index: int, default: str | None = None) -> str:
    value = item.get(name, default)
    if not isinstance(value, str) or (default is None and not value.strip()):
        raise ReplyFormatError(f"functions[{index}].{name} must be a non-empty string, got {value!r}")
    return value.strip()


def function_specs(value: Any) -> list[dict[str, Any]]:
    """Check the analysis JSON (``{"functions": [{name, signature, returns, docstring, tasks, reuse}]}``).

    Returns:
        The function entries, cleaned (at most :data:`MAX_FUNCTIONS`).

    Raises:
        ReplyFormatError: naming the entry and field at fault.
    """
    items = value.get("functions") if isinstance(value, dict) else value
    if not isinstance(items, list):
        raise ReplyFormatError("the analysis must be an object with a 'functions' list")
    cleaned = []
    for index, item in enumerate(items[:MAX_FUNCTIONS]):
        if not isinstance(item, dict):
            raise ReplyFormatError(f"functions[{index}] must be an object, got {type(item).__name__}")
        name = _text_field(item, "name", index)
        if not _IDENTIFIER.match(name) or name.startswith("_"):
            raise ReplyFormatError(f"functions[{index}].name {name!r} is not a public snake_case identifier")
        signature = _text_field(item, "signature", index, default="")
        try:
            ast.parse(f"def f(self, {signature}): pass" if signature else "def f(self): pass")
        except SyntaxError:
            raise ReplyFormatError(
                f"functions[{index}].signature {signature!r} is not a Python parameter list"
            ) from None
        tasks = item.get("tasks", [])
        if not isinstance(tasks, list) or not all(isinstance(task, str) for task in tasks):
            raise ReplyFormatError(f"functions[{index}].tasks must be a list of task ids")
        cleaned.append(
            {
                "name": name,
                "signature": signature,
                "returns": _text_field(item, "returns", index, default="str") or "str",
                "docstring": _text_field(item, "docstring", index),
                "tasks": tuple(tasks),
                "reuse": _text_field(item, "reuse", index, default="") if item.get("reuse") else "",
            }
        )
    return cleaned


def method_source(text: str, name: str) -> str:
    """The method ``name`` from a reply: the first Python block (or the whole text) holding ``def name``.

    Returns:
        The ``def`` (with any ``import`` lines the block put before it, moved inside), dedented to
        column 0.

    Raises:
        ReplyFormatError: no parsable block defines ``name`` with ``self`` first and a docstring.
    """
    for block in [*code_blocks(text, "python"), text]:
        parsed = _parse_salvaging(_dedent_def(block))
        if parsed is None:
            continue
        tree, source = parsed
        imports = [node for node in tree.body if isinstance(node, ast.Import | ast.ImportFrom)]
        for node in tree.body:
            if isinstance(node, ast.ClassDef):
                node = next((n for n in node.body if isinstance(n, ast.FunctionDef) and n.name == name), node)
            if isinstance(node, ast.FunctionDef) and node.name == name:
                if not node.args.args or node.args.args[0].arg != "self":
                    raise ReplyFormatError(f"{name}: the method's first parameter must be self")
                if ast.get_docstring(node) is None:
                    raise ReplyFormatError(f"{name}: the method needs a docstring")
                if not imports:
                    return _dedent_def(ast.get_source_segment(source, node, padded=True) or ast.unparse(node))
                node.body[1:1] = imports  # module-level imports of the reply go after the docstring
                return ast.unparse(node)
    raise ReplyFormatError(f"the reply has no Python code defining {name}(self, ...)")


MAX_SALVAGED_LINES = 400


def _parse_salvaging(source: str) -> tuple[ast.Module, str] | None:
    """Parse ``source``; if it does not parse (a reply cut at the token limit), the longest
    parsable prefix of whole lines, or None."""
    lines = source.splitlines()[:MAX_SALVAGED_LINES]
    for end in range(len(lines), 0, -1):
        prefix = "\n".join(lines[:end])
        try:
            return ast.parse(prefix), prefix
        except (SyntaxError, ValueError):
            continue
    return None


def _dedent_def(block: str) -> str:
    lines = block.splitlines()
    indents = [len(line) - len(line.lstrip()) for line in lines if line.strip()]
    cut = min(indents, default=0)
    return "\n".join(line[cut:] for line in lines)


def parse_test_functions(text: str) -> tuple[str, list[str]]:
    """The tests from a reply: every ``def test_*`` of its Python blocks, with their imports.

    Returns:
        (module source, test function names).

    Raises:
        ReplyFormatError: no parsable block defines a ``test_`` function.
    """
    for block in [*code_blocks(text, "python"), text]:
        parsed = _parse_salvaging(_dedent_def(block))
        if parsed is None:
            continue
        tree, source = parsed
        names = [n.name for n in tree.body if isinstance(n, ast.FunctionDef) and n.name.startswith("test_")]
        if names:
            return source.strip("\n"), names
    raise ReplyFormatError("the reply has no Python test functions (def test_...(editor): ...)")
