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
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from desktop_gym.actions.types import ActionParseError

_FENCE = re.compile(r"```[ \t]*([\w+-]*)[^\n]*\n(.*?)(?:```|\Z)", re.DOTALL)
_ACTION_PREFIX = re.compile(r"^\s*[#*>\s]*action\s*[*]*\s*:\s*[*]*\s*", re.IGNORECASE)
_INLINE_CODE = re.compile(r"^`([^`]+)`$")

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
    blocks = [body for _lang, body in _FENCE.findall(text)]
    if blocks:
        text = "\n".join(block.strip("\n") for block in blocks)
    lines = text.strip().splitlines()
    first = next((i for i, line in enumerate(lines) if _ACTION_PREFIX.match(line)), None)
    if first is not None:
        lines = [_ACTION_PREFIX.sub("", line, count=1) for line in lines[first:]]
        lines = [_INLINE_CODE.sub(r"\1", line.strip()) for line in lines]
    return "\n".join(lines).strip()


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
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            raise ActionParseError(f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None


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
    except (ValueError, MemoryError, RecursionError) as exc:
        raise ActionParseError(f"could not parse the action text: {exc}") from None
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
        args.append(_literal(arg, f"{prefix}{name}(): argument {index + 1}"))
    kwargs: dict[str, Any] = {}
    for keyword in node.keywords:
        if keyword.arg is None:
            raise ActionParseError(f"{prefix}{name}(): **-unpacking of arguments is not allowed")
        if keyword.arg in kwargs:
            raise ActionParseError(f"{prefix}{name}() got multiple values for argument {keyword.arg!r}")
        kwargs[keyword.arg] = _literal(keyword.value, f"{prefix}{name}(): argument {keyword.arg!r}")
    return CallSite(name, args, kwargs, where)


def _literal(node: ast.expr, what: str) -> Any:
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
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
    text = ast.unparse(node)
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
    items = data if isinstance(data, list) else [data]
    if not items:
        raise ActionParseError("no action found: the list of tool calls is empty")
    sites: list[CallSite] = []
    for index, item in enumerate(items, start=1):
        where = f"tool call {index}" if len(items) > 1 else ""
        if isinstance(item, dict) and isinstance(item.get("tool_calls"), list):
            sites.extend(structured_call_sites(item["tool_calls"]))
        else:
            sites.append(_structured_site(item, where))
    return sites


def _structured_site(item: Any, where: str) -> CallSite:
    prefix = f"{where}: " if where else ""
    if isinstance(item, str) and item.strip().isidentifier():
        return CallSite(item.strip(), where=where)
    if not isinstance(item, dict):
        raise ActionParseError(f"{prefix}an action must be an object, got {item!r}")
    if "action_type" in item:
        name = item["action_type"]
        arguments: Any = item.get("parameters") or {}
    else:
        call = item.get("function") if isinstance(item.get("function"), dict) else item
        if "name" not in call:
            raise ActionParseError(
                f"{prefix}cannot read an action from an object with keys {sorted(item)}; expected "
                '{"name": ..., "arguments": {...}}, {"type": "function", "function": {...}} or '
                '{"action_type": ..., "parameters": {...}}'
            )
        name = call["name"]
        arguments = next((call[k] for k in ("arguments", "parameters", "input") if k in call), {})
    if not isinstance(name, str) or not name:
        raise ActionParseError(f"{prefix}the action name must be a non-empty string, got {name!r}")
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments) if arguments.strip() else {}
        except json.JSONDecodeError as exc:
            raise ActionParseError(
                f"{prefix}{name}(): arguments are not valid JSON (line {exc.lineno} column {exc.colno}: {exc.msg})"
            ) from None
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        raise ActionParseError(f"{prefix}{name}(): arguments must be an object, got {arguments!r}")
    bad_keys = [k for k in arguments if not isinstance(k, str)]
    if bad_keys:
        raise ActionParseError(f"{prefix}{name}(): argument names must be strings, got {bad_keys[0]!r}")
    return CallSite(name, [], dict(arguments), where)
