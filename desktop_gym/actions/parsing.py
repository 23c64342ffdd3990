"""Reading agent output into call sites: Python-call lines (by ``ast``) and JSON tool calls.

Nothing here runs agent text. Python input is parsed with :func:`ast.parse`; each statement
must be a call of a plain name (``click(...)``) or of ``Name.attr`` (``pyautogui.click(...)``,
``CalcTools.set_cell_value(...)``), and each argument is read with :func:`ast.literal_eval`
on its own node, so only literals (numbers, strings, lists, tuples, dicts, True/False/None)
get through. Which action a call site names is decided by the action set, not here.
"""

from __future__ import annotations

import ast
import json
import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from desktop_gym.actions.types import ActionParseError

MAX_NESTING = 32
"""Deepest list/dict nesting an action value may have (tool calls need ~8)."""
MAX_VALUES = 100_000
"""Most scalars and containers one action's values may hold in all."""
MAX_TEXT_CHARS = 64 * 1024
"""Longest agent text ``ActionSet.parse`` reads by default (``DesktopEnv``'s action space too)."""
MAX_CALL_SITES = 1_000
"""Most action calls one text may hold (20 times ``ActionLimits.max_actions_per_step``): more are
refused before any is resolved, so a long run of short calls cannot hold the parser."""
INT_RANGE = (-(2**63), 2**63 - 1)
"""Integers an action may carry: what the guest protocol (int64) can hold."""
_FENCE = "```"
_PREFIX_NOISE = frozenset("#*>")

_STATEMENT_KINDS = {
    ast.Assign: "an assignment",
    ast.AugAssign: "an assignment",
    ast.AnnAssign: "an assignment",
    ast.For: "a for loop",
    ast.While: "a while loop",
    ast.If: "an if statement",
    ast.With: "a with statement",
    ast.FunctionDef: "a function definition",
    ast.AsyncFunctionDef: "a function definition",
    ast.ClassDef: "a class definition",
    ast.ImportFrom: "a from-import",
    ast.Try: "a try statement",
    ast.Return: "a return statement",
    ast.Delete: "a del statement",
    ast.Raise: "a raise statement",
    ast.Global: "a global statement",
    ast.Pass: "a pass statement",
}

_EXPRESSION_KINDS = {
    ast.Lambda: "a lambda",
    ast.ListComp: "a comprehension",
    ast.SetComp: "a comprehension",
    ast.DictComp: "a comprehension",
    ast.GeneratorExp: "a generator expression",
    ast.Call: "a function call",
    ast.Attribute: "an attribute access",
    ast.Name: "a variable",
    ast.BinOp: "an expression",
    ast.BoolOp: "an expression",
    ast.Compare: "an expression",
    ast.IfExp: "an expression",
    ast.JoinedStr: "an f-string",
    ast.Subscript: "a subscript",
    ast.NamedExpr: "an assignment expression",
    ast.Await: "an await expression",
}


@dataclass(frozen=True)
class CallSite:
    """One action call as the agent wrote it, before it is matched to an action.

    Attributes:
        name: The called name (``"click"``, ``"pyautogui.click"``, ``"CalcTools.set_cell_value"``).
        args: Positional argument values (literals).
        kwargs: Keyword argument values (literals).
        where: Where it came from, for messages (``"line 2"``, ``"tool call 1"``); may be empty.
    """

    name: str
    args: list[Any] = field(default_factory=list)
    kwargs: dict[str, Any] = field(default_factory=dict)
    where: str = ""


def extract_code(text: str) -> str:
    """Return the part of an agent's answer that holds its action(s).

    Fenced blocks (```python ... ```, ``` ... ```, ```json ... ```) win when present: their
    contents are joined. Otherwise, when a line starts with ``Action:``, everything before the
    first such line (the agent's reasoning) is dropped along with the prefixes.

    Args:
        text: The agent's raw answer.

    Returns:
        The code or JSON to parse, stripped.
    """
    # Hand-written scanning, not regexes: every pass is linear in the length of the answer, so
    # no input (runs of spaces, backticks, fences) can make extraction slow.
    blocks = _fenced_blocks(text)
    if blocks:
        text = "\n".join(block.strip("\n") for block in blocks)
    lines = text.strip().splitlines()
    first = next((i for i, line in enumerate(lines) if _after_action_prefix(line) is not None), None)
    if first is not None:
        lines = [_after_action_prefix(line) or line for line in lines[first:]]
        lines = [_inline_code(line.strip()) for line in lines]
    return "\n".join(lines).strip()


def _fenced_blocks(text: str) -> list[str]:
    """Bodies of ```-fenced blocks, info strings dropped; an unclosed last block runs to the end."""
    blocks = []
    position = 0
    while True:
        opening = text.find(_FENCE, position)
        if opening < 0:
            return blocks
        body_start = text.find("\n", opening + len(_FENCE))
        if body_start < 0:
            return blocks
        closing = text.find(_FENCE, body_start + 1)
        if closing < 0:
            blocks.append(text[body_start + 1 :])
            return blocks
        blocks.append(text[body_start + 1 : closing])
        position = closing + len(_FENCE)


def _skip(line: str, index: int, allowed: frozenset[str] | None = None) -> int:
    """The index after whitespace (and ``allowed`` characters) starting at ``index``."""
    while index < len(line) and (line[index].isspace() or (allowed is not None and line[index] in allowed)):
        index += 1
    return index


def _after_action_prefix(line: str) -> str | None:
    """The rest of a line that starts with ``Action:`` (markdown noise such as ``**`` or ``> `` allowed), else None."""
    index = _skip(line, 0, _PREFIX_NOISE)
    if line[index : index + 6].lower() != "action":
        return None
    index = _skip(line, _skip(line, index + 6), frozenset("*"))
    if index >= len(line) or line[index] != ":":
        return None
    return line[_skip(line, index + 1, frozenset("*")) :]


def _inline_code(line: str) -> str:
    """```click(...)``` written as inline code -> its content."""
    if len(line) > 2 and line[0] == "`" and line[-1] == "`" and "`" not in line[1:-1]:
        return line[1:-1]
    return line


def looks_structured(code: str) -> bool:
    """Whether the code is a JSON (or Python literal) object or list rather than call lines."""
    return code[:1] in ("{", "[")


def load_structured(code: str) -> Any:
    """Read JSON, falling back to a Python literal (single quotes, True/False) via literal_eval.

    Raises:
        ActionParseError: Neither JSON nor a literal; the message gives the JSON error position.
    """
    try:
        return json.loads(code)
    except json.JSONDecodeError as exc:
        try:
            return ast.literal_eval(code)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError, OverflowError):
            raise ActionParseError(f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    except RecursionError:
        raise ActionParseError(f"the JSON is nested too deeply (at most {MAX_NESTING} levels)") from None
    except ValueError as exc:  # an integer with more digits than Python converts
        raise ActionParseError(f"invalid JSON: {exc}") from None


def short_repr(value: Any, limit: int = 60) -> str:
    """``repr(value)`` cut to ``limit`` characters; never raises (huge ints, odd objects)."""
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001 - a message must not fail on the value it reports
        text = f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def plain_value(value: Any, what: str) -> Any:
    """``value`` as plain JSON data (tuples become lists), or an error naming ``what``.

    Only what JSON and the guest protocol can carry gets through: ``None``, booleans, int64
    integers, finite floats, strings of valid Unicode (no lone surrogates), lists and dicts
    with string keys, at most :data:`MAX_NESTING` deep and :data:`MAX_VALUES` in all.

    Raises:
        ActionParseError: naming ``what`` and the part of the value at fault.
    """
    budget = [MAX_VALUES]
    return _plain(value, what, 0, budget)


def _plain(value: Any, what: str, depth: int, budget: list[int]) -> Any:
    budget[0] -= 1
    if budget[0] < 0:
        raise ActionParseError(f"{what}: too many values (at most {MAX_VALUES})")
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, int):
        if not INT_RANGE[0] <= value <= INT_RANGE[1]:
            raise ActionParseError(f"{what}: the integer is out of range (at most 64 bits)")
        return int(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ActionParseError(f"{what}: numbers must be finite, got {value!r}")
        return float(value)
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise ActionParseError(
                f"{what}: the text is not valid Unicode (lone surrogate at character {exc.start})"
            ) from None
        return str(value)
    if depth >= MAX_NESTING:
        raise ActionParseError(f"{what}: nested too deeply (at most {MAX_NESTING} levels)")
    if isinstance(value, list | tuple):
        return [_plain(item, f"{what}[{index}]", depth + 1, budget) for index, item in enumerate(value)]
    if isinstance(value, dict):
        plain: dict[str, Any] = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise ActionParseError(f"{what}: dict keys must be strings, got {short_repr(key)}")
            plain[_plain(key, what, depth + 1, budget)] = _plain(item, f"{what}[{key[:30]!r}]", depth + 1, budget)
        return plain
    kinds = {bytes: "bytes", set: "a set", frozenset: "a set", complex: "a complex number"}
    kind = kinds.get(type(value), f"a {type(value).__name__}")
    raise ActionParseError(f"{what}: {kind} is not allowed (use numbers, strings, lists, dicts, True, False or None)")


def python_call_sites(code: str, allowed_imports: Iterable[str] = ()) -> list[CallSite]:
    """Parse Python-call lines into call sites, without running anything.

    Args:
        code: One or more statements, each a call (or a bare name such as ``DONE``).
        allowed_imports: Modules whose plain ``import`` lines are skipped (``pyautogui``, ``time``).

    Returns:
        The calls, in order.

    Raises:
        ActionParseError: A syntax error, a statement that is not a call, a call target that
            is not ``name`` or ``Name.attr``, or an argument that is not a literal.
    """
    try:
        tree = ast.parse(code, mode="exec")
    except SyntaxError as exc:
        raise ActionParseError(f"line {exc.lineno}: syntax error at column {exc.offset}: {exc.msg}") from None
    except (ValueError, MemoryError, RecursionError, OverflowError) as exc:
        raise ActionParseError(f"could not parse the action text: {short_repr(str(exc), 200)}") from None
    _check_call_count(len(tree.body))
    allowed = set(allowed_imports)
    many = len(tree.body) > 1
    sites = []
    for statement in tree.body:
        where = f"line {statement.lineno}"
        prefix = f"{where}: " if many else ""
        if isinstance(statement, ast.Import):
            names = [alias.name for alias in statement.names]
            bad = [n for n in names if n not in allowed] + [a.asname for a in statement.names if a.asname]
            if bad:
                allowed_text = ", ".join(sorted(allowed)) or "none"
                raise ActionParseError(f"{prefix}import of {bad[0]!r} is not allowed (allowed imports: {allowed_text})")
            continue
        if not isinstance(statement, ast.Expr):
            kind = _STATEMENT_KINDS.get(type(statement), f"a {type(statement).__name__} statement")
            raise ActionParseError(f"{prefix}only action calls are allowed, got {kind}")
        node = statement.value
        if isinstance(node, ast.Name):
            sites.append(CallSite(node.id, where=where))
            continue
        if not isinstance(node, ast.Call):
            raise ActionParseError(f"{prefix}only action calls are allowed, got {_expression_kind(node)}")
        sites.append(_call_site(node, where, prefix))
    if not sites:
        raise ActionParseError("no action found")
    return sites


def _check_call_count(count: int) -> None:
    if count > MAX_CALL_SITES:
        raise ActionParseError(f"the answer holds {count:,} calls; at most {MAX_CALL_SITES:,} action calls are read")


def _call_site(node: ast.Call, where: str, prefix: str) -> CallSite:
    func = node.func
    if isinstance(func, ast.Name):
        name = func.id
    elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        name = f"{func.value.id}.{func.attr}"
    else:
        raise ActionParseError(
            f"{prefix}cannot call {_source(func)!r}: call an action by name, e.g. click(...) or "
            "CalcTools.set_cell_value(...)"
        )
    args = []
    for index, arg in enumerate(node.args):
        if isinstance(arg, ast.Starred):
            raise ActionParseError(f"{prefix}{name}(): *-unpacking of arguments is not allowed")
        what = f"{prefix}{name}(): argument {index + 1}"
        args.append(plain_value(_literal(arg, what), what))
    kwargs: dict[str, Any] = {}
    for keyword in node.keywords:
        if keyword.arg is None:
            raise ActionParseError(f"{prefix}{name}(): **-unpacking of arguments is not allowed")
        if keyword.arg in kwargs:
            raise ActionParseError(f"{prefix}{name}() got multiple values for argument {keyword.arg!r}")
        what = f"{prefix}{name}(): argument {keyword.arg!r}"
        kwargs[keyword.arg] = plain_value(_literal(keyword.value, what), what)
    return CallSite(name, args, kwargs, where)


def _literal(node: ast.expr, what: str) -> Any:
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError, OverflowError):
        raise ActionParseError(
            f"{what} must be a literal (number, string, list, tuple, dict, True, False or None), "
            f"got {_expression_kind(node)} {_source(node)!r}"
        ) from None


def _expression_kind(node: ast.AST) -> str:
    for node_type, kind in _EXPRESSION_KINDS.items():
        if isinstance(node, node_type):
            return kind
    return f"a {type(node).__name__} expression"


def _source(node: ast.AST, limit: int = 60) -> str:
    try:
        text = ast.unparse(node)
    except (ValueError, RecursionError, MemoryError, OverflowError):  # huge ints, deep nesting
        return f"<{type(node).__name__}>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def structured_call_sites(data: Any) -> list[CallSite]:
    """Turn JSON-shaped actions into call sites.

    Accepted shapes, alone or in a list: ``{"name": ..., "arguments": {...} | "<json>"}``,
    ``{"type": "function", "function": {"name": ..., "arguments": ...}}``,
    ``{"tool_calls": [...]}`` (an OpenAI message), ``{"action_type": "CLICK", "parameters": {...}}``
    (OSWorld) and bare OSWorld codes such as ``"DONE"``.

    Raises:
        ActionParseError: An unknown shape, or arguments that are not an object.
    """
    data = plain_value(data, "the action")
    sites = _structured_sites(data)
    _check_call_count(len(sites))
    return sites


def _structured_sites(data: Any) -> list[CallSite]:
    items = data if isinstance(data, list) else [data]
    if not items:
        raise ActionParseError("no action found: the list of tool calls is empty")
    sites: list[CallSite] = []
    for index, item in enumerate(items, start=1):
        where = f"tool call {index}" if len(items) > 1 else ""
        if isinstance(item, dict) and isinstance(item.get("tool_calls"), list):
            sites.extend(_structured_sites(item["tool_calls"]))
        else:
            sites.append(_structured_site(item, where))
    return sites


def _structured_site(item: Any, where: str) -> CallSite:
    prefix = f"{where}: " if where else ""
    if isinstance(item, str) and item.strip().isidentifier():
        return CallSite(item.strip(), where=where)
    if not isinstance(item, dict):
        raise ActionParseError(f"{prefix}an action must be an object, got {short_repr(item)}")
    if "action_type" in item:
        name = item["action_type"]
        arguments: Any = item.get("parameters") or {}
    else:
        call = item.get("function") if isinstance(item.get("function"), dict) else item
        if "name" not in call:
            raise ActionParseError(
                f"{prefix}cannot read an action from an object with keys {short_repr(sorted(item)[:10], 200)}; "
                "expected "
                '{"name": ..., "arguments": {...}}, {"type": "function", "function": {...}} or '
                '{"action_type": ..., "parameters": {...}}'
            )
        name = call["name"]
        arguments = next((call[k] for k in ("arguments", "parameters", "input") if k in call), {})
    if not isinstance(name, str) or not name:
        raise ActionParseError(f"{prefix}the action name must be a non-empty string, got {short_repr(name)}")
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments) if arguments.strip() else {}
        except json.JSONDecodeError as exc:
            raise ActionParseError(
                f"{prefix}{name}(): arguments are not valid JSON (line {exc.lineno} column {exc.colno}: {exc.msg})"
            ) from None
        except (ValueError, RecursionError) as exc:  # digit limit, deep nesting
            problem = short_repr(str(exc), 120)
            raise ActionParseError(f"{prefix}{name}(): arguments are not usable JSON: {problem}") from None
        arguments = plain_value(arguments, f"{prefix}{name}(): arguments")
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        raise ActionParseError(f"{prefix}{name}(): arguments must be an object, got {short_repr(arguments)}")
    return CallSite(name, [], dict(arguments), where)
