"""Action specs: one typed function per agent-facing action, the single source of truth.

A spec is a plain function with type hints and a Google docstring, registered with
:func:`action`. From it come the argument checking done by the parser, the prompt line
(:meth:`ActionSpec.signature`) and the OpenAI function-calling schema
(:meth:`ActionSpec.tool_schema`), so the prompt, the schema and the parser cannot drift apart.
The function's first parameter is a :class:`ParseContext`; the others are what the agent passes.
"""

from __future__ import annotations

import dataclasses
import difflib
import inspect
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, get_type_hints

from desktop_gym.actions.types import ACTION_TYPES, Action, ActionParseError
from desktop_gym.signatures import (
    ArgumentError,
    Param,
    Point,
    check_arguments,
    function_tool_schema,
    parse_docstring,
    signature_line,
)

__all__ = [
    "NORMALIZED_MAX",
    "STYLES",
    "ActionSpec",
    "ArgumentError",
    "ParseContext",
    "Point",
    "action",
    "custom_action",
    "registered_specs",
]

STYLES = ("computerrl", "computer_13", "pyautogui")
NORMALIZED_MAX = 1000

_REQUIRED = inspect.Parameter.empty
#: What the built-in actions' common arguments mean, written once; an ``Args:`` entry of the spec
#: function overrides it (a caller's custom action documents all of its own).
COMMON_ARG_DOCS = {
    "x": "Horizontal position.",
    "y": "Vertical position.",
    "button": "The mouse button.",
    "interval": "Ignored.",
    "duration": "Ignored.",
}
_REGISTRY: list[ActionSpec] = []


@dataclass(frozen=True)
class ParseContext:
    """What a spec needs to know about the action set it is parsed for.

    Attributes:
        normalized: Coordinates are on the 0-1000 scale instead of screen pixels.
    """

    normalized: bool = False

    def coordinate(self, name: str, value: float) -> float:
        """Check one coordinate against the coordinate mode; the screen size is checked at execution."""
        if value < 0:
            raise ArgumentError(f"{name} must not be negative, got {value:g}")
        if self.normalized and value > NORMALIZED_MAX:
            raise ArgumentError(f"{name}={value:g} is outside the normalized 0-{NORMALIZED_MAX} range")
        return value

    def point(self, name: str, value: Point) -> tuple[float, float]:
        """Check an ``[x, y]`` pair (already type-checked) against the coordinate mode."""
        x, y = value
        if x < 0 or y < 0:
            raise ArgumentError(f"{name} must not be negative, got [{x:g}, {y:g}]")
        if self.normalized and (x > NORMALIZED_MAX or y > NORMALIZED_MAX):
            raise ArgumentError(f"{name} [{x:g}, {y:g}] is outside the normalized 0-{NORMALIZED_MAX} range")
        return x, y

    def optional_xy(self, x: float | None, y: float | None) -> tuple[float | None, float | None]:
        """Check an optional ``x``/``y`` pair: both or neither."""
        if (x is None) != (y is None):
            raise ArgumentError("give both x and y, or neither (to act where the pointer is)")
        if x is None or y is None:
            return None, None
        return self.coordinate("x", x), self.coordinate("y", y)


@dataclass(frozen=True)
class ActionSpec:
    """An agent-facing action: name, styles, parameters, one-line doc, and how to build it.

    Attributes:
        name: The name as written in Python syntax (``"click"``, ``"CLICK"``, ``"pyautogui.click"``).
        styles: Which vocabularies offer it (subset of :data:`STYLES`).
        params: The agent-facing parameters, in order.
        summary: The docstring's first line.
        aliases: Other names that call it (``"move_to"`` for ``"MOVE_TO"``).
        build: The spec function; takes a :class:`ParseContext` and the checked arguments.
        schema_name: Its name in tool schemas when two specs share ``name`` (``"click_element"``
            beside ``click(coordinates)``: schema names must differ); "" for ``name`` without dots.
    """

    name: str
    styles: frozenset[str]
    params: tuple[Param, ...]
    summary: str
    aliases: tuple[str, ...]
    build: Callable[..., Action | list[Action]]
    schema_name: str = ""

    @property
    def tool_name(self) -> str:
        """The name in tool schemas (OpenAI names allow no dots)."""
        return self.schema_name or self.name.replace(".", "_")

    @property
    def names(self) -> tuple[str, ...]:
        """Every name that calls this spec."""
        return tuple(dict.fromkeys((self.name, self.tool_name, *self.aliases)))

    def signature(self) -> str:
        """The prompt line, e.g. ``click(coordinates: [x, y], num_clicks: int = 1)``."""
        return signature_line(self.name, self.params)

    def tool_schema(self) -> dict[str, Any]:
        """The OpenAI function-calling schema of this action."""
        return function_tool_schema(self.tool_name, self.summary, self.params)

    def accepts_keywords(self, keywords: Iterable[str]) -> bool:
        """Whether every keyword is one of this spec's parameter names."""
        known = {p.name for p in self.params}
        return all(k in known for k in keywords)

    def bind(self, called_as: str, args: list[Any], kwargs: dict[str, Any]) -> dict[str, Any]:
        """Match positional and keyword arguments to parameters and check their types.

        Args:
            called_as: The name the agent used, for messages.
            args: Positional argument values.
            kwargs: Keyword argument values.

        Returns:
            Checked, converted values for every parameter (defaults filled in).

        Raises:
            ActionParseError: Too many, unknown, duplicate, missing or ill-typed arguments.
        """
        positional = [p for p in self.params if not p.variadic and not p.keyword_only]
        variadic = next((p for p in self.params if p.variadic), None)
        if len(args) > len(positional) and variadic is None:
            raise ActionParseError(
                f"{called_as}() takes at most {len(positional)} positional argument"
                f"{'' if len(positional) == 1 else 's'}, got {len(args)}"
            )
        values: dict[str, Any] = {p.name: v for p, v in zip(positional, args, strict=False)}
        if variadic is not None and len(args) > len(positional):
            values[variadic.name] = list(args[len(positional) :])
        by_name = {p.name: p for p in self.params}
        for key, value in kwargs.items():
            if key not in by_name:
                close = difflib.get_close_matches(key, list(by_name), n=1, cutoff=0.5)
                hint = f" (did you mean {close[0]!r}?)" if close else ""
                known = ", ".join(by_name) or "none"
                raise ActionParseError(
                    f"{called_as}() got an unexpected argument {key!r}{hint}; its arguments are: {known}"
                )
            if key in values:
                raise ActionParseError(f"{called_as}() got multiple values for argument {key!r}")
            values[key] = value
        return check_arguments(self.params, values, called_as, ActionParseError)

    def make(self, ctx: ParseContext, called_as: str, args: list[Any], kwargs: dict[str, Any]) -> list[Action]:
        """Bind the arguments and build the typed actions."""
        checked = self.bind(called_as, args, kwargs)
        variadic = [checked.pop(p.name) for p in self.params if p.variadic]
        try:
            built = self.build(ctx, *(variadic[0] if variadic else ()), **checked)
        except ArgumentError as exc:
            raise ActionParseError(f"{called_as}(): {exc}") from None
        return list(built) if isinstance(built, list) else [built]


def action(
    name: str | None = None, *, styles: Iterable[str], aliases: Iterable[str] = (), schema_name: str = ""
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register a spec function as an agent-facing action.

    Args:
        name: The action's name; defaults to the function's name.
        styles: Vocabularies that offer it (see :data:`STYLES`).
        aliases: Other names that call it.
        schema_name: Its tool-schema name where another spec of its styles has the same ``name``.

    Returns:
        A decorator that registers the function and returns it unchanged.
    """

    def register(func: Callable[..., Any]) -> Callable[..., Any]:
        spec = spec_from_function(func, name or func.__name__, styles, aliases)
        if schema_name:
            spec = dataclasses.replace(spec, schema_name=schema_name)
        _REGISTRY.append(spec)
        return func

    return register


def registered_specs() -> tuple[ActionSpec, ...]:
    """Every registered spec, ordered by style (as in :data:`STYLES`), then by registration.

    The order is the preference order when two styles share a name.
    """
    return tuple(sorted(_REGISTRY, key=lambda spec: min(STYLES.index(s) for s in spec.styles)))


def spec_from_function(
    func: Callable[..., Any],
    name: str,
    styles: Iterable[str],
    aliases: Iterable[str],
    takes_context: bool = True,
) -> ActionSpec:
    """Build an :class:`ActionSpec` from a typed spec function and its docstring.

    Args:
        func: The spec function.
        name: The action's name.
        styles: Vocabularies that offer it (see :data:`STYLES`; empty for a custom action).
        aliases: Other names that call it.
        takes_context: The first parameter is the :class:`ParseContext` (built-in specs); a
            custom action's function takes only what the agent passes.

    Raises:
        ValueError: unknown styles, no docstring, or a parameter without a type hint.
    """
    unknown = set(styles) - set(STYLES)
    if unknown:
        raise ValueError(f"action {name!r}: unknown styles {sorted(unknown)}; known: {STYLES}")
    hints = get_type_hints(func)
    summary, arg_docs = parse_docstring(inspect.getdoc(func) or "")
    if not summary:
        raise ValueError(f"action {name!r}: the spec function {func.__qualname__} needs a docstring")
    params = []
    for param in list(inspect.signature(func).parameters.values())[1 if takes_context else 0 :]:
        if param.name not in hints:
            raise ValueError(f"action {name!r}: parameter {param.name!r} has no type hint")
        annotation = hints[param.name]
        variadic = param.kind is inspect.Parameter.VAR_POSITIONAL
        if variadic:
            annotation = list[annotation]  # type: ignore[valid-type]
        params.append(
            Param(
                name=param.name,
                annotation=annotation,
                default=param.default,
                doc=arg_docs.get(param.name) or (COMMON_ARG_DOCS.get(param.name, "") if takes_context else ""),
                variadic=variadic,
                keyword_only=param.kind is inspect.Parameter.KEYWORD_ONLY,
            )
        )
    build = func if takes_context else _without_context(func, name)
    return ActionSpec(name, frozenset(styles), tuple(params), summary, tuple(aliases), build)


def custom_action(func: Callable[..., Any], name: str | None = None) -> ActionSpec:
    """An :class:`ActionSpec` for a caller's action, built from a plain typed function.

    The function takes what the agent passes (type hints and an ``Args:`` docstring give the
    prompt line, the schema and the argument checks) and returns the built-in actions to run,
    as one :class:`Action` or a list.

    Args:
        func: The function; its name is the action's name unless ``name`` is given.
        name: The action's name, a Python identifier.

    Raises:
        ValueError: the name is not an identifier, or the function lacks a docstring or hints.
    """
    name = name or func.__name__
    if not name.isidentifier():
        raise ValueError(f"custom action name {name!r} must be a Python identifier")
    return spec_from_function(func, name, (), (), takes_context=False)


def _without_context(func: Callable[..., Any], name: str) -> Callable[..., list[Action]]:
    """Wrap a custom action's function: drop the context, check that it returns actions."""

    def build(_ctx: ParseContext, *args: Any, **kwargs: Any) -> list[Action]:
        built = func(*args, **kwargs)
        actions = list(built) if isinstance(built, list | tuple) else [built]
        wrong = [a for a in actions if not isinstance(a, ACTION_TYPES)]
        if wrong or not actions:
            got = type(wrong[0]).__name__ if wrong else "no action"
            raise TypeError(f"custom action {name!r} must return actions, got {got}")
        return actions

    return build
