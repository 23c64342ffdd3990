"""ActionSet: the vocabulary offered to an agent, which both describes and parses it."""

from __future__ import annotations

import copy
import difflib
import inspect
import json
import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Any

# The vocabulary modules register their specs on import.
from desktop_gym.actions import computer13, computerrl, element_actions, pyautogui_calls  # noqa: F401
from desktop_gym.actions.parsing import (
    MAX_TEXT_CHARS,
    CallSite,
    extract_code,
    load_structured,
    looks_structured,
    python_call_sites,
    structured_call_sites,
)
from desktop_gym.actions.spec import STYLES, ActionSpec, ParseContext, custom_action, registered_specs
from desktop_gym.actions.types import ACTION_TYPES, Action, ActionParseError, ApiCall, Done, Exit, Fail

COORDINATE_MODES = ("pixel", "normalized")
#: What GUI actions aim at: screen coordinates, element ids of the observation, or either.
TARGET_MODES = ("both", "coordinates", "elements")
#: Parameters that take a screen position: an action with one is a coordinate action.
ELEMENTS_NOTE = (
    'An element id is a number in brackets in the accessibility tree ([17] push button "Save") and on the '
    "set-of-marks screenshot; it holds for the latest observation."
)
_COORDINATE_PARAMS = frozenset({"coordinates", "x", "y", "drag_from_coordinates", "drop_on_coordinates"})
_STYLE_TITLES = {
    "computerrl": "GUI actions (ComputerRL)",
    "computer_13": "GUI actions (OSWorld computer_13)",
    "pyautogui": "pyautogui calls (a short script of these calls; `import pyautogui` lines are fine)",
}
_PYAUTOGUI_MODULES = ("pyautogui", "time")
log = logging.getLogger(__name__)


class ActionSet:
    """The actions an agent may use: parses its output and describes the actions for a prompt.

    Args:
        style: ``"computerrl"``, ``"computer_13"``, ``"pyautogui"`` or ``"all"`` (every style; the
            default). Actions of other styles are rejected with a message that says so.
        coordinates: ``"pixel"`` (screen pixels) or ``"normalized"`` (0-1000 on both axes).
        api_classes: App API classes the agent may call as ``Class.method(...)``, by name. A
            value may be the class (or an instance), used to check method names and to read
            signatures for the prompt, or ``None`` when only the name is known.
        custom_actions: This set's own actions, parsed and described like the built-in ones
            (BrowserGym's ``HighLevelActionSet(custom_actions=...)``): plain functions with type
            hints and a docstring that return the built-in actions to run (see
            :func:`~desktop_gym.actions.spec.custom_action`), or ready ``ActionSpec``s.
        max_chars: The longest agent text :meth:`parse` reads (64 KiB, as ``DesktopEnv``'s action
            space); longer text is an ``ActionParseError`` at once. One text also holds at most
            :data:`~desktop_gym.actions.parsing.MAX_CALL_SITES` calls.
        targets: What GUI actions aim at: ``"both"`` (default: ``click(coordinates=[x, y])`` and
            ``click(element=17)``), ``"coordinates"`` (no element actions) or ``"elements"`` (element
            ids only; actions that take a screen position are left out). Element ids are the numbers
            of the observation's accessibility tree and set-of-marks screenshot.

    Raises:
        ValueError: an unknown style or coordinate mode, a custom action whose name is taken, or
            ``max_chars`` below 1.

    Example:
        >>> actions = ActionSet(style="computerrl")
        >>> actions.parse("click(coordinates=[10, 20])")
        [Click(x=10.0, y=20.0, button='left', num_clicks=1, normalized=False)]
    """

    def __init__(
        self,
        style: str = "all",
        coordinates: str = "pixel",
        api_classes: Mapping[str, object] | None = None,
        custom_actions: Sequence[Callable[..., Any] | ActionSpec] = (),
        max_chars: int = MAX_TEXT_CHARS,
        targets: str = "both",
    ) -> None:
        if max_chars < 1:
            raise ValueError(f"max_chars must be at least 1, got {max_chars}")
        if targets not in TARGET_MODES:
            raise ValueError(f"unknown targets {targets!r}; choose one of {TARGET_MODES}")
        self.max_chars = max_chars
        self.targets = targets
        if style != "all" and style not in STYLES:
            raise ValueError(f"unknown action style {style!r}; choose one of {(*STYLES, 'all')}")
        if coordinates not in COORDINATE_MODES:
            raise ValueError(f"unknown coordinate mode {coordinates!r}; choose one of {COORDINATE_MODES}")
        self.style = style
        self.coordinates = coordinates
        self.api_classes: dict[str, object] = dict(api_classes or {})
        self._context = ParseContext(normalized=coordinates == "normalized")
        styles = set(STYLES) if style == "all" else {style}
        built_in = tuple(s for s in registered_specs() if s.styles & styles and _aims_at(s, targets))
        self.custom_actions = _custom_specs(custom_actions, _index(built_in))
        self._specs = built_in + self.custom_actions
        self._by_name = _index(self._specs)
        self._other_styles = _index(s for s in registered_specs() if s not in built_in)
        pyautogui_on = "pyautogui" in styles
        self._allowed_imports = _PYAUTOGUI_MODULES if pyautogui_on else ()

    def __repr__(self) -> str:
        apis = f", api_classes={sorted(self.api_classes)}" if self.api_classes else ""
        custom = f", custom_actions={[s.name for s in self.custom_actions]}" if self.custom_actions else ""
        targets = f", targets={self.targets!r}" if self.targets != "both" else ""
        return f"ActionSet(style={self.style!r}, coordinates={self.coordinates!r}{targets}{apis}{custom})"

    @property
    def offers_elements(self) -> bool:
        """Whether actions may name element ids (the env then numbers the observation's elements)."""
        return any(_is_element_spec(s) for s in self._specs)

    def with_api_classes(self, api_classes: Mapping[str, object]) -> ActionSet:
        """This set (same style, coordinates and custom actions) with other API classes.

        The copy shares the action index, which is built once per set (not once per copy).
        """
        other = copy.copy(self)
        other.api_classes = dict(api_classes)
        return other

    @property
    def specs(self) -> tuple[ActionSpec, ...]:
        """The agent-facing actions of this set, in prompt order."""
        return self._specs

    def parse(self, text: str) -> list[Action]:
        """Parse an agent's answer into typed actions.

        Args:
            text: One or more Python-call lines (optionally in ``` fences or after ``Action:``),
                or JSON tool calls / OSWorld action dicts.

        Returns:
            The actions, in order (a pyautogui script or ``write([...])`` may give several).

        Raises:
            ActionParseError: The message names the line, the action and the argument at fault,
                or the cap the text is over (``max_chars`` characters, ``MAX_CALL_SITES`` calls).
        """
        return _only_parse_errors(lambda: self._parse(text))

    def _parse(self, text: str) -> list[Action]:
        if not isinstance(text, str):
            raise ActionParseError(f"expected agent text (str), got {type(text).__name__}")
        if len(text) > self.max_chars:
            raise ActionParseError(
                f"the action text is {len(text):,} characters long; at most {self.max_chars:,} are read "
                "(ActionSet(max_chars=...))"
            )
        code = extract_code(text)
        if not code:
            raise ActionParseError("no action found in an empty answer")
        if looks_structured(code):
            sites = structured_call_sites(load_structured(code))
        else:
            sites = python_call_sites(code, self._allowed_imports)
        many = len(sites) > 1
        actions: list[Action] = []
        for site in sites:
            try:
                actions.extend(self._resolve(site))
            except ActionParseError as exc:
                if many and site.where:
                    raise ActionParseError(f"{site.where}: {exc}") from None
                raise
        return actions

    def coerce(self, action: Any) -> list[Action]:
        """Turn anything an env accepts as an action into typed actions.

        Args:
            action: Agent text, a typed action, a tool-call / OSWorld dict, or a list of these.

        Returns:
            The typed actions (``Exit`` becomes ``Done`` or ``Fail``).

        Raises:
            ActionParseError: The value cannot be read as actions.
        """
        return _only_parse_errors(lambda: self._coerce(action))

    def _coerce(self, action: Any) -> list[Action]:
        if isinstance(action, Exit):
            return [Done() if action.success else Fail()]
        if isinstance(action, ACTION_TYPES):
            return [action]
        if isinstance(action, str):
            return self._parse(action)
        if isinstance(action, dict):
            return [a for site in structured_call_sites(action) for a in self._resolve(site)]
        if isinstance(action, list | tuple):
            if not action:
                raise ActionParseError("no action found: the list is empty")
            return [a for item in action for a in self._coerce(item)]
        raise ActionParseError(
            f"cannot use a {type(action).__name__} as an action; pass agent text, a dict or an Action"
        )

    def describe(self, fmt: str = "python") -> str:
        """Prompt text that lists every action of this set.

        Args:
            fmt: ``"python"`` (signatures and one-line docs) or ``"json"`` (the tool schemas).

        Returns:
            The text to put in the agent's prompt.
        """
        if fmt == "json":
            return json.dumps(self.tool_schemas(), indent=2, ensure_ascii=False)
        if fmt != "python":
            raise ValueError(f"unknown description format {fmt!r}; choose 'python' or 'json'")
        if self._context.normalized:
            coords = (
                "Coordinates are normalized to 0-1000 on both axes: (0, 0) is the top-left corner "
                "and (1000, 1000) the bottom-right corner of the screen."
            )
        else:
            coords = "Coordinates are screen pixels from the top-left corner."
        if self.targets == "elements":
            coords = ELEMENTS_NOTE
        elif self.offers_elements:
            coords += " " + ELEMENTS_NOTE
        lines = [f"Answer with one action call per line, in Python syntax. {coords}"]
        shown: set[str] = set()
        for style in STYLES:
            specs = [s for s in self._specs if style in s.styles and s.name not in shown]
            if not specs:
                continue
            lines += ["", f"## {_STYLE_TITLES[style]}"]
            for spec in specs:
                shown.add(spec.name)
                lines += [spec.signature(), f"    {spec.summary}"]
        if self.custom_actions:
            lines += ["", "## Custom actions"]
            for spec in self.custom_actions:
                lines += [spec.signature(), f"    {spec.summary}"]
        if self.api_classes:
            lines += ["", "## App APIs (call as Class.method(name=value, ...))"]
            for class_name, api in sorted(self.api_classes.items()):
                methods = _public_methods(api)
                if not methods:
                    lines.append(f"{class_name}.<method>(...)")
                for method_name, method in methods.items():
                    doc = (inspect.getdoc(method) or "").strip().splitlines()
                    lines += [
                        f"{class_name}.{method_name}{_api_signature(method)}",
                        f"    {doc[0] if doc else ''}",
                    ]
        return "\n".join(lines)

    def tool_schemas(self) -> list[dict[str, Any]]:
        """OpenAI function-calling schemas of this set's GUI actions, in prompt order."""
        return [spec.tool_schema() for spec in self._specs]

    def _resolve(self, site: CallSite) -> list[Action]:
        candidates = self._by_name.get(site.name)
        if candidates:
            return self._make(candidates, site)
        api = self._split_api_name(site.name)
        if api is not None:
            return [self._api_call(api[0], api[1], site)]
        if site.name in self._other_styles:
            other = sorted(self._other_styles[site.name][0].styles)
            raise ActionParseError(
                f"action {site.name!r} belongs to the {'/'.join(other)} style, not to this {self.style!r} action set"
            )
        close = difflib.get_close_matches(site.name, list(self._by_name), n=1, cutoff=0.6)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise ActionParseError(f"unknown action {site.name!r}{hint}")

    def _make(self, candidates: list[ActionSpec], site: CallSite) -> list[Action]:
        # Two styles may share a name (ComputerRL's click(coordinates) and computer_13's
        # click(x, y)). Keyword names pick the candidates; a call without arguments goes to the
        # preferred one, otherwise the first that accepts the values wins.
        fitting = [s for s in candidates if s.accepts_keywords(site.kwargs)] or candidates[:1]
        if not site.args and not site.kwargs:
            fitting = fitting[:1]
        first_error: ActionParseError | None = None
        for spec in fitting:
            try:
                return spec.make(self._context, site.name, site.args, site.kwargs)
            except ActionParseError as exc:
                first_error = first_error or exc
        assert first_error is not None
        raise first_error

    def _split_api_name(self, name: str) -> tuple[str, str] | None:
        """``Class.method`` (or ``Class__method``, the tool-schema spelling) -> (class, method)."""
        head, dot, tail = name.partition(".")
        if dot and head and tail and "." not in tail and head not in _PYAUTOGUI_MODULES:
            return head, tail
        head, sep, tail = name.partition("__")
        if sep and head in self.api_classes and tail:
            return head, tail
        return None

    def _api_call(self, class_name: str, method_name: str, site: CallSite) -> ApiCall:
        if class_name not in self.api_classes:
            known = ", ".join(sorted(self.api_classes)) or "none are available here"
            close = difflib.get_close_matches(class_name, list(self.api_classes), n=1, cutoff=0.6)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise ActionParseError(f"unknown API class {class_name!r}{hint}; known API classes: {known}")
        api = self.api_classes[class_name]
        display = f"{class_name}.{method_name}"
        kwargs = dict(site.kwargs)
        if api is None:
            if site.args:
                raise ActionParseError(f"{display}(): pass arguments by name, e.g. {display}(name=value)")
            return ApiCall(class_name, method_name, kwargs)
        methods = _public_methods(api)
        if method_name not in methods:
            close = difflib.get_close_matches(method_name, list(methods), n=3, cutoff=0.5)
            hint = f" (did you mean {' or '.join(repr(c) for c in close)}?)" if close else ""
            raise ActionParseError(f"{class_name} has no method {method_name!r}{hint}")
        if site.args:
            names = _api_parameter_names(methods[method_name])
            if len(site.args) > len(names):
                raise ActionParseError(
                    f"{display}() takes at most {len(names)} positional arguments, got {len(site.args)}"
                )
            for name, value in zip(names, site.args, strict=False):
                if name in kwargs:
                    raise ActionParseError(f"{display}() got multiple values for argument {name!r}")
                kwargs[name] = value
        return ApiCall(class_name, method_name, kwargs)


def _is_element_spec(spec: ActionSpec) -> bool:
    return any(p.name == "element" for p in spec.params)


def _aims_at(spec: ActionSpec, targets: str) -> bool:
    """Whether ``spec`` belongs in a set whose GUI actions aim at ``targets``."""
    if targets == "coordinates":
        return not _is_element_spec(spec)
    if targets == "elements":
        return not any(p.name in _COORDINATE_PARAMS for p in spec.params)
    return True


def _only_parse_errors(parse: Any) -> list[Action]:
    """Run ``parse``; any other exception than ``ActionParseError`` becomes one (agent text is hostile)."""
    try:
        return parse()
    except ActionParseError:
        raise
    except RecursionError:
        raise ActionParseError("the action is nested too deeply") from None
    except MemoryError:
        raise ActionParseError("the action is too large to read") from None
    except Exception as exc:  # noqa: BLE001 - nothing but ActionParseError may reach env.step
        log.warning("action parsing failed unexpectedly", exc_info=True)
        raise ActionParseError(f"the action could not be read ({type(exc).__name__}: {str(exc)[:200]})") from None


def _custom_specs(
    custom_actions: Sequence[Callable[..., Any] | ActionSpec], built_in: Mapping[str, list[ActionSpec]]
) -> tuple[ActionSpec, ...]:
    """The custom actions as specs; a name may not shadow a built-in action or another custom one."""
    specs: list[ActionSpec] = []
    for item in custom_actions:
        spec = item if isinstance(item, ActionSpec) else custom_action(item)
        taken = [name for name in spec.names if name in built_in or any(name in s.names for s in specs)]
        if taken:
            raise ValueError(f"custom_actions: {spec.name!r} is already an action of this set ({', '.join(taken)})")
        specs.append(spec)
    return tuple(specs)


def _index(specs: Any) -> dict[str, list[ActionSpec]]:
    index: dict[str, list[ActionSpec]] = {}
    for spec in specs:
        for name in spec.names:
            index.setdefault(name, []).append(spec)
    return index


def _public_methods(api: object) -> dict[str, Any]:
    if api is None:
        return {}
    return {
        name: getattr(api, name) for name in dir(api) if not name.startswith("_") and callable(getattr(api, name, None))
    }


def _api_parameter_names(method: Any) -> list[str]:
    try:
        params = list(inspect.signature(method).parameters.values())
    except (TypeError, ValueError):
        return []
    if params and params[0].name in ("self", "cls"):
        params = params[1:]
    return [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]


def _api_signature(method: Any) -> str:
    try:
        signature = inspect.signature(method)
    except (TypeError, ValueError):
        return "(...)"
    parts = []
    for param in signature.parameters.values():
        if param.name in ("self", "cls"):
            continue
        text = param.name
        if param.annotation is not inspect.Parameter.empty:
            # Annotations are strings under `from __future__ import annotations`; show them as written.
            annotation = param.annotation
            text += f": {annotation if isinstance(annotation, str) else inspect.formatannotation(annotation)}"
        if param.default is not inspect.Parameter.empty:
            text += f" = {param.default!r}"
        parts.append(text)
    return f"({', '.join(parts)})"
