"""One source for an app API: typed, documented tool methods -> prompt text, schemas, validation.

An app's tool class (``CalcTools``, ...) is a plain class whose public methods are the agent-facing
API: full type hints and a Google docstring each. From those methods come the prompt lines
(signature + the docstring's first line), the OpenAI function-calling schemas (named
``CalcTools__set_cell_value``: tool names allow no dots, and ``ActionSet`` reads the double
underscore back as ``CalcTools.set_cell_value``) and the argument check run before a call reaches
the app. Annotations and docstrings are read with the action specs' helpers
(:mod:`desktop_gym.signatures`), so GUI actions and app APIs check values alike.

Public methods that are not tools (``summary`` for the observation) are marked with :func:`not_a_tool`.
"""

from __future__ import annotations

import difflib
import functools
import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar, get_type_hints

from desktop_gym.errors import ApiArgumentError, ApiCallError, UnknownApiMethodError  # noqa: F401 - the tools' errors
from desktop_gym.signatures import (  # one docstring reader, one schema, for actions and app APIs
    Param,
    check_arguments,
    function_tool_schema,
    parse_docstring,
    signature_line,
)

F = TypeVar("F", bound=Callable[..., Any])

TOOL_NAME_SEPARATOR = "__"
_NOT_A_TOOL = "__desktop_gym_not_a_tool__"
_EMPTY = inspect.Parameter.empty


DEFAULT_CALL_TIMEOUT_S = 10.0
"""Seconds the guest lets one API call run unless its class or method says otherwise (``AppTools.call_timeout_s``)."""
_CALL_TIMEOUT = "_desktop_gym_call_timeout_s"


def not_a_tool(method: F) -> F:
    """Mark a public method of a tool class as internal: not offered to the agent, not callable by it."""
    setattr(method, _NOT_A_TOOL, True)
    return method


def slow(seconds: float) -> Callable[[F], F]:
    """Let one tool method run ``seconds`` under the guest's watchdog instead of its class's ``call_timeout_s``.

    For a method that waits on purpose (a command with its own timeout, a download, a save): the
    watchdog's limit must exceed the method's own wait, or the guest reports the app as hung first.
    """

    def mark(method: F) -> F:
        setattr(method, _CALL_TIMEOUT, float(seconds))
        return method

    return mark


def call_limit(tools_class: type, method_name: str) -> float:
    """Seconds the guest lets ``tools_class.method_name`` run: its ``@slow`` limit, else the class's."""
    default = float(getattr(tools_class, "call_timeout_s", DEFAULT_CALL_TIMEOUT_S))
    return float(getattr(getattr(tools_class, method_name, None), _CALL_TIMEOUT, default))


@dataclass(frozen=True)
class ToolMethod:
    """One agent-facing method of a tool class.

    Attributes:
        class_name: The tool class (``"CalcTools"``).
        name: The method name (``"set_cell_value"``).
        params: Its parameters without ``self``, in order.
        summary: The docstring's first line.
        returns: The annotation of the return value.
    """

    class_name: str
    name: str
    params: tuple[Param, ...]
    summary: str
    returns: Any

    @property
    def qualified_name(self) -> str:
        """``CalcTools.set_cell_value``, as the agent writes it in Python syntax."""
        return f"{self.class_name}.{self.name}"

    @property
    def tool_name(self) -> str:
        """``CalcTools__set_cell_value``, the name in function-calling schemas."""
        return f"{self.class_name}{TOOL_NAME_SEPARATOR}{self.name}"

    def signature(self) -> str:
        """The prompt line, e.g. ``CalcTools.set_cell_value(cell: str, value: str | float)``."""
        return signature_line(self.qualified_name, self.params)

    def tool_schema(self) -> dict[str, Any]:
        """The OpenAI function-calling schema (same shape as the GUI actions' schemas)."""
        return function_tool_schema(self.tool_name, self.summary, self.params)

    def validate(self, arguments: Mapping[str, Any]) -> dict[str, Any]:
        """Check ``arguments`` (by name) against the signature; return them converted and complete.

        Raises:
            ApiArgumentError: an unknown or missing argument, or a value of the wrong type; the
                message starts with the qualified method name and names the argument.
        """
        if not isinstance(arguments, Mapping):
            raise ApiArgumentError(
                f"{self.qualified_name}(): arguments must be an object of name -> value, got {arguments!r}"
            )
        names = [param.name for param in self.params]
        for given in arguments:
            if given not in names:
                close = difflib.get_close_matches(str(given), names, n=1, cutoff=0.5)
                hint = f" (did you mean {close[0]!r}?)" if close else ""
                raise ApiArgumentError(
                    f"{self.qualified_name}() got an unknown argument {given!r}{hint}; "
                    f"it takes: {', '.join(names) or 'no arguments'}"
                )
        return check_arguments(
            self.params, arguments, self.qualified_name, ApiArgumentError, missing="is missing the required argument"
        )


def _build(tool_class: type, name: str, function: Callable[..., Any]) -> ToolMethod:
    doc = inspect.getdoc(function) or ""
    summary, arg_docs = parse_docstring(doc)
    if not summary:
        raise TypeError(f"tool method {tool_class.__name__}.{name} needs a docstring")
    hints = get_type_hints(function)
    params = []
    for param in list(inspect.signature(function).parameters.values())[1:]:  # skip self
        if param.kind not in (param.POSITIONAL_OR_KEYWORD, param.KEYWORD_ONLY):
            raise TypeError(f"tool method {tool_class.__name__}.{name}: *args/**kwargs are not allowed")
        if param.name not in hints:
            raise TypeError(f"tool method {tool_class.__name__}.{name}: argument {param.name!r} has no type hint")
        params.append(Param(param.name, hints[param.name], param.default, arg_docs.get(param.name, "")))
    return ToolMethod(tool_class.__name__, name, tuple(params), summary, hints.get("return", Any))


@functools.cache
def tool_methods(tool_class: type) -> dict[str, ToolMethod]:
    """The agent-facing methods of ``tool_class`` by name, alphabetically (cached per class).

    Raises:
        TypeError: a public method lacks a docstring or a type hint (a bug in the tool class).
    """
    methods = {}
    for name in sorted(dir(tool_class)):
        function = getattr(tool_class, name)
        if name.startswith("_") or not inspect.isfunction(function) or getattr(function, _NOT_A_TOOL, False):
            continue
        methods[name] = _build(tool_class, name, function)
    return methods


def find_method(tool_class: type, name: str) -> ToolMethod:
    """The tool method ``name`` of ``tool_class``.

    Raises:
        UnknownApiMethodError: naming the closest method names.
    """
    methods = tool_methods(tool_class)
    if name in methods:
        return methods[name]
    close = difflib.get_close_matches(name, list(methods), n=3, cutoff=0.5)
    hint = f" (did you mean {' or '.join(repr(c) for c in close)}?)" if close else ""
    raise UnknownApiMethodError(
        f"{tool_class.__name__} has no method {name!r}{hint}; {len(methods)} methods exist, "
        f"e.g. {', '.join(list(methods)[:6])}"
    )


def prompt_text(tool_class: type) -> str:
    """The API as prompt lines: each method's signature, then its summary indented."""
    lines = []
    for method in tool_methods(tool_class).values():
        lines += [method.signature(), f"    {method.summary}"]
    return "\n".join(lines)


def tool_schemas(tool_class: type) -> list[dict[str, Any]]:
    """OpenAI function-calling schemas of every tool method of ``tool_class``."""
    return [method.tool_schema() for method in tool_methods(tool_class).values()]


def api_namespace(tool_class: type) -> object:
    """An object exposing only the tool methods, for ``ActionSet(api_classes={name: ...})``.

    ``ActionSet`` lists every public callable of what it is given; the tool class itself also has
    internal public methods (``summary``), so hand it this view instead.
    """
    namespace = type(tool_class.__name__, (), {})()
    for name in tool_methods(tool_class):
        setattr(namespace, name, getattr(tool_class, name))
    return namespace
