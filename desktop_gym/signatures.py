"""The one signature core: typed function + docstring -> prompt text, JSON schema, argument checks.

Shared by GUI actions (``actions.spec``) and app APIs (``guest.apps.tool_schema``); the guest
imports it, so it needs only the standard library and :mod:`desktop_gym.errors`.

The supported annotations are ``int``, ``float``, ``str``, ``bool``, ``Literal[...]``,
:data:`Point`, ``list[X]``, ``dict``, ``Any`` and unions of these (``X | None`` = optional).
"""

from __future__ import annotations

import difflib
import inspect
import re
import types
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Union, get_args, get_origin

from desktop_gym.errors import ArgumentError

Point = tuple[float, float]
"""An ``[x, y]`` pair: pixels, or 0-1000 when the action set uses normalized coordinates."""


@dataclass(frozen=True)
class Param:
    """One agent-facing argument of a GUI action or an app API method.

    Attributes:
        name: The argument's name.
        annotation: Its type (one of the supported annotations above).
        default: Its default, or ``inspect.Parameter.empty`` when required.
        doc: Its text from the docstring's ``Args:`` section.
        variadic: A ``*args`` parameter (actions only).
        keyword_only: Given by name only.
    """

    name: str
    annotation: Any
    default: Any
    doc: str
    variadic: bool = False
    keyword_only: bool = False

    @property
    def required(self) -> bool:
        """Whether the argument has no default."""
        return self.default is inspect.Parameter.empty


def signature_line(name: str, params: Sequence[Param]) -> str:
    """The prompt line of a call, e.g. ``click(coordinates: [x, y], num_clicks: int = 1)``."""
    parts = []
    for param in params:
        if param.variadic:
            parts.append(f"*{param.name}: {type_text(get_args(param.annotation)[0])}")
            continue
        text = f"{param.name}: {type_text(param.annotation)}"
        if not param.required:
            text += f" = {param.default!r}"
        parts.append(text)
    return f"{name}({', '.join(parts)})"


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _is_union(tp: Any) -> bool:
    return get_origin(tp) in (Union, types.UnionType)


def check_value(tp: Any, value: Any, name: str) -> Any:
    """Check one argument against its annotation and convert it (lists of keys, points, ints).

    Raises:
        ArgumentError: The value does not fit; the message names the argument.
    """
    if tp is Any:
        return value
    if _is_union(tp):
        options = [a for a in get_args(tp) if a is not type(None)]
        if value is None and len(options) < len(get_args(tp)):
            return None
        errors = []
        for option in options:
            try:
                return check_value(option, value, name)
            except ArgumentError as exc:
                errors.append(exc)
        if len(errors) == 1:
            raise errors[0]
        raise ArgumentError(f"{name} must be {type_text(tp)}, got {value!r}")
    origin = get_origin(tp)
    if origin is Literal:
        choices = get_args(tp)
        folded = value.lower() if isinstance(value, str) else value
        if folded in choices and not isinstance(folded, bool):
            return folded
        close = difflib.get_close_matches(str(value), [str(c) for c in choices], n=1, cutoff=0.5)
        hint = f" (did you mean {close[0]!r}?)" if close and isinstance(value, str) else ""
        raise ArgumentError(f"{name} must be one of {', '.join(repr(c) for c in choices)}, got {value!r}{hint}")
    if tp == Point:
        if isinstance(value, list | tuple) and len(value) == 2 and all(_is_number(v) for v in value):
            return (float(value[0]), float(value[1]))
        raise ArgumentError(f"{name} must be [x, y] numbers, got {value!r}")
    if origin in (list, tuple):
        if not isinstance(value, list | tuple):
            raise ArgumentError(f"{name} must be a list of {type_text(get_args(tp)[0])}, got {value!r}")
        return [check_value(get_args(tp)[0], item, f"{name}[{i}]") for i, item in enumerate(value)]
    if origin is dict or tp is dict:
        if not isinstance(value, dict):
            raise ArgumentError(f"{name} must be a dict, got {value!r}")
        return value
    if tp is bool:
        if not isinstance(value, bool):
            raise ArgumentError(f"{name} must be True or False, got {value!r}")
        return value
    if tp is int:
        if isinstance(value, float) and value.is_integer():
            return int(value)
        if not isinstance(value, int) or isinstance(value, bool):
            raise ArgumentError(f"{name} must be an integer, got {value!r}")
        return value
    if tp is float:
        if not _is_number(value):
            raise ArgumentError(f"{name} must be a number, got {value!r}")
        return float(value)
    if tp is str:
        if not isinstance(value, str):
            raise ArgumentError(f"{name} must be a string, got {value!r}")
        return value
    raise TypeError(f"spec annotation {tp!r} of {name!r} is not supported")


def type_text(tp: Any) -> str:
    """How an annotation reads in the prompt."""
    if tp is type(None):
        return "None"
    if tp == Point:
        return "[x, y]"
    if _is_union(tp):
        return " | ".join(type_text(a) for a in get_args(tp))
    origin = get_origin(tp)
    if origin is Literal:
        return " | ".join(repr(c) for c in get_args(tp))
    if origin in (list, tuple):
        return f"list[{type_text(get_args(tp)[0])}]"
    if origin is dict or tp is dict:
        return "dict"
    return getattr(tp, "__name__", str(tp))


def json_schema(tp: Any) -> dict[str, Any]:
    """The JSON schema of an annotation (``None`` in a union means "optional", not a type)."""
    if tp is Any:
        return {}
    if _is_union(tp):
        options = [a for a in get_args(tp) if a is not type(None)]
        if len(options) == 1:
            return json_schema(options[0])
        return {"anyOf": [json_schema(a) for a in options]}
    origin = get_origin(tp)
    if origin is Literal:
        choices = list(get_args(tp))
        kind = "string" if all(isinstance(c, str) for c in choices) else "integer"
        return {"type": kind, "enum": choices}
    if tp == Point:
        return {"type": "array", "items": {"type": "number"}, "minItems": 2, "maxItems": 2}
    if origin in (list, tuple):
        return {"type": "array", "items": json_schema(get_args(tp)[0])}
    if origin is dict or tp is dict:
        return {"type": "object"}
    simple = {bool: "boolean", int: "integer", float: "number", str: "string"}
    if tp in simple:
        return {"type": simple[tp]}
    raise TypeError(f"spec annotation {tp!r} has no JSON schema")


def parse_docstring(doc: str) -> tuple[str, dict[str, str]]:
    """Return the first line and the ``Args:`` descriptions of a Google-style docstring."""
    lines = doc.splitlines()
    summary = lines[0].strip() if lines else ""
    args: dict[str, str] = {}
    in_args = False
    current = None
    for line in lines[1:]:
        if line.strip() in ("Args:", "Arguments:"):
            in_args = True
            continue
        if in_args:
            match = re.match(r"^\s{2,}\*{0,2}(\w+)(?: \(.*?\))?:\s*(.*)$", line)
            if match and (len(line) - len(line.lstrip())) <= 4:
                current = match.group(1)
                args[current] = match.group(2).strip()
            elif line.strip() and current and line.startswith(" "):
                args[current] = f"{args[current]} {line.strip()}"
            elif line.strip() and not line.startswith(" "):
                in_args = False
    return summary, args


def function_tool_schema(name: str, description: str, params: Sequence[Any]) -> dict[str, Any]:
    """An OpenAI function-calling schema from parameters with name, annotation, doc, required, default.

    Shared by the GUI action specs and the app API tool specs, so both read the same to a model.
    """
    properties: dict[str, Any] = {}
    for param in params:
        schema = json_schema(param.annotation)
        if param.doc:
            schema["description"] = param.doc
        if not param.required and param.default is not None:
            schema["default"] = param.default
        properties[param.name] = schema
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {
                "type": "object",
                "properties": properties,
                "required": [p.name for p in params if p.required],
                "additionalProperties": False,
            },
        },
    }


def check_arguments(
    params: Sequence[Any],
    values: Mapping[str, Any],
    called_as: str,
    error: Callable[[str], Exception],
    missing: str = "missing required argument",
) -> dict[str, Any]:
    """Every parameter's checked, converted value (defaults filled in): the part both parsers share.

    Args:
        params: Parameters with ``name``, ``annotation``, ``default`` and ``required``.
        values: The given values by parameter name (unknown names already refused).
        called_as: The action or method name that starts each message.
        error: The exception type raised (``ActionParseError``, ``ApiArgumentError``).
        missing: How a message says a required argument is missing.

    Raises:
        Exception: ``error`` for a missing required argument or a value that does not fit.
    """
    checked: dict[str, Any] = {}
    for param in params:
        if param.name not in values:
            if param.required:
                raise error(f"{called_as}() {missing} {param.name!r}")
            checked[param.name] = param.default
            continue
        try:
            checked[param.name] = check_value(param.annotation, values[param.name], param.name)
        except ArgumentError as exc:
            raise error(f"{called_as}(): {exc}") from None
    return checked
