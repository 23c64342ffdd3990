"""Which tool class serves which app, and running one API call against the live app.

An app's API is the tool class its spec names (``AppSpec.tools``, in the app's folder under
``desktop_gym/apps/``); :data:`TOOL_CLASSES` reads the app table.
:func:`call_api` is what the guest's ``CallApi`` RPC runs: resolve the app and method, check the
arguments against the signature *before* anything reaches the app, then run the method on a
fresh tool instance bound to the app's current document, inside ``UnoConnection.call`` (a worker
thread under a deadline), and return the result as JSON.
"""

from __future__ import annotations

import difflib
import functools
import importlib
import json
from collections.abc import Callable, Hashable, Iterator, Mapping
from pathlib import Path
from typing import Any, NoReturn

from desktop_gym.apps.spec import APP_SPECS
from desktop_gym.errors import UnknownAppApiError

from .tool_schema import (
    DEFAULT_CALL_TIMEOUT_S,
    ApiArgumentError,
    ApiCallError,
    ToolMethod,
    api_namespace,
    call_limit,
    find_method,
    prompt_text,
    tool_schemas,
)
from .uno_bridge import _run_with_deadline as run_with_deadline  # the UNO watchdog, for tools without UNO too
from .uno_document_cache import KEPT_DOCUMENTS, focused_document, is_disposed


class _ToolClasses(Mapping[str, type]):
    """App key -> its tool class, read live from :data:`~.spec.APP_SPECS` (``AppSpec.tools``)."""

    def __getitem__(self, app: str) -> type:
        spec = APP_SPECS.get(app)
        if spec is None or spec.tools is None:
            raise KeyError(app)
        return spec.tools if isinstance(spec.tools, type) else _import_tools(spec.tools)

    def __iter__(self) -> Iterator[str]:
        return iter([key for key, spec in APP_SPECS.items() if spec.tools is not None])

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def __repr__(self) -> str:
        return f"TOOL_CLASSES({', '.join(self)})"


@functools.cache
def _import_tools(entry_point: str) -> type:
    """``"package.module:Class"`` (``"desktop_gym.apps.calc.tools:CalcTools"``) -> the class."""
    module_name, _, class_name = entry_point.partition(":")
    return getattr(importlib.import_module(module_name), class_name)


TOOL_CLASSES: Mapping[str, type] = _ToolClasses()
"""App name (as in ``AppLauncher``) -> its tool class, for the apps whose ``AppSpec`` has ``tools``."""


def always_offered() -> tuple[str, ...]:
    """The apps whose APIs are offered whatever app is focused (``AppSpec.always_offered``; they need no
    app, see :func:`uses_uno`), read from the table now, so an app registered after import is seen."""
    return tuple(key for key, spec in APP_SPECS.items() if spec.always_offered and spec.tools is not None)


def __getattr__(name: str) -> Any:
    """``ALWAYS_OFFERED``: :func:`always_offered`, computed on each access."""
    if name == "ALWAYS_OFFERED":
        return always_offered()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


DEFAULT_TIMEOUT_S = DEFAULT_CALL_TIMEOUT_S
"""A call's limit when neither its tool class nor its method sets one (``AppTools.call_timeout_s``, ``@slow``)."""


def resolve_app(name: str) -> str:
    """``"calc"`` or ``"CalcTools"`` -> ``"calc"``.

    Raises:
        UnknownAppApiError: naming the apps that have an API, and the closest name.
    """
    if name in TOOL_CLASSES:
        return name
    for app, tool_class in TOOL_CLASSES.items():
        if tool_class.__name__ == name:
            return app
    known = [*TOOL_CLASSES, *(cls.__name__ for cls in TOOL_CLASSES.values())]
    close = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    raise UnknownAppApiError(
        f"no app API for {name!r}{hint}; APIs exist for: "
        + ", ".join(f"{app} ({cls.__name__})" for app, cls in TOOL_CLASSES.items())
    )


def tool_class(app: str) -> type:
    """The tool class of ``app`` (an app name or a tool class name)."""
    return TOOL_CLASSES[resolve_app(app)]


def uses_uno(app: str) -> bool:
    """Whether ``app``'s tools act on a LibreOffice document (else they run without a launched app)."""
    return bool(getattr(tool_class(app), "uses_uno", True))


def api_prompt(app: str) -> str:
    """The prompt text of ``app``'s API: one signature line and one summary line per method."""
    return prompt_text(tool_class(app))


def api_tool_schemas(app: str) -> list[dict[str, Any]]:
    """The OpenAI function-calling schemas of ``app``'s API (``CalcTools__set_cell_value``, ...)."""
    return tool_schemas(tool_class(app))


def api_classes(apps: list[str] | None = None) -> dict[str, object]:
    """``{"CalcTools": <methods view>}`` for ``ActionSet(api_classes=...)`` (all apps by default)."""
    chosen = [resolve_app(app) for app in apps] if apps is not None else list(TOOL_CLASSES)
    return {TOOL_CLASSES[app].__name__: api_namespace(TOOL_CLASSES[app]) for app in chosen}


def parse_arguments(method: ToolMethod, args_json: str) -> dict[str, Any]:
    """Decode and validate the JSON arguments of a call to ``method``.

    Raises:
        ApiArgumentError: not a JSON object, or not fitting the signature (names the arg).
    """
    try:
        arguments = json.loads(args_json) if args_json.strip() else {}
    except json.JSONDecodeError as exc:
        raise ApiArgumentError(f"{method.qualified_name}(): arguments are not valid JSON ({exc})") from None
    return method.validate(arguments)


_DOCUMENTS = KEPT_DOCUMENTS


def _document_for(connection: Any, focus_key: Hashable | None) -> Any:
    """The kept document under ``focus_key``, else the focused window's (then kept), else the last kept one.

    Without a focus key (or anything kept), ``getCurrentComponent``'s document.
    """
    document = _DOCUMENTS.kept(connection, focus_key)
    if document is not None:
        return document
    if focus_key is not None:
        components = connection.desktop.getComponents().createEnumeration()
        documents = []
        while components.hasMoreElements():
            documents.append(components.nextElement())
        document = focused_document(documents, focus_key)
        if document is not None:
            _DOCUMENTS.keep(connection, focus_key, document)
            return document
        # A dialog (or another app) has the focus: the document focused last, which
        # getCurrentComponent may not name yet right after a switch.
        document = _DOCUMENTS.last(connection)
        if document is not None:
            return document
    return _current_document(connection)


def _current_document(connection: Any) -> Any:
    current = connection.desktop.getCurrentComponent()
    if current is not None and hasattr(current, "getURL"):
        return current
    components = connection.desktop.getComponents().createEnumeration()
    while components.hasMoreElements():
        component = components.nextElement()
        if component is not None and hasattr(component, "getURL"):
            return component
    raise ApiCallError(f"no document is open in the office on pipe '{connection.pipe_name}'")


def _is_uno_exception(exc: BaseException) -> bool:
    try:
        import uno
    except ImportError:
        return False
    return isinstance(exc, uno.getClass("com.sun.star.uno.Exception"))


def run_tool(
    launched: Any,
    method_name: str,
    arguments: dict[str, Any] | None = None,
    home: str | Path | None = None,
    timeout: float | None = None,
    internal: bool = False,
    app: str | None = None,
    focus_key: Hashable | None = None,
) -> Any:
    """Run one tool method on a launched app's current document, under the UNO watchdog.

    Tool classes that do not use UNO (``OSTools``) run in a worker thread under the same deadline,
    without a launched app.

    Args:
        launched: The app's ``LaunchedApp`` (its ``uno`` connection is used); None for tools without UNO.
        method_name: The method (``"set_cell_value"``); ``internal`` allows non-tool methods.
        arguments: Already validated keyword arguments.
        home: The session home, for ``~/`` paths.
        timeout: Seconds before ``UnoTimeoutError`` (default: the method's ``@slow`` limit, else its
            class's ``call_timeout_s``).
        internal: Allow methods hidden from the agent (``summary``).
        app: The app or tool class name (default: ``launched.app``).
        focus_key: The desktop's focus key (``WindowManager.focus_key``): the call acts on the
            document whose window has the focus (by title), kept for later calls under the same
            key; with a dialog focused, on the document focused last; without a key, on
            ``getCurrentComponent``'s.

    Returns:
        The method's result (JSON-serialisable).

    Raises:
        ApiArgumentError: the method rejected a value (bad cell reference, unknown sheet, ...).
        ApiCallError: the app has no UNO connection or raised a UNO exception (its text is kept).
        UnoTimeoutError: the call did not finish within ``timeout`` (the office may be hung).
    """
    tools_class = TOOL_CLASSES[resolve_app(app or launched.app)]
    qualified = f"{tools_class.__name__}.{method_name}"
    if not internal:
        find_method(tools_class, method_name)
    limit = timeout if timeout is not None else call_limit(tools_class, method_name)
    if not getattr(tools_class, "uses_uno", True):
        tools = tools_class(home=home)
        call = lambda: getattr(tools, method_name)(**(arguments or {}))  # noqa: E731
        if getattr(tools_class, "uses_a11y", False):
            call = _holding_the_a11y_bus(call)
        return run_with_deadline(call, (), limit, qualified)
    connection = launched.uno
    if connection is None:
        raise ApiCallError(f"{qualified}: {launched.app} has no UNO connection (was it launched by the guest?)")

    def run() -> Any:
        for kept_key in (focus_key, None):  # a kept document closed meanwhile: look again, once
            document = _document_for(connection, kept_key)
            tools = tools_class(document, home=home)
            try:
                return getattr(tools, method_name)(**(arguments or {}))
            except (ApiArgumentError, ApiCallError):
                raise
            except Exception as exc:
                if kept_key is not None and is_disposed(exc):
                    _DOCUMENTS.forget(connection)
                    continue
                _raise_as_api_error(exc, qualified)
        raise AssertionError("unreachable: the second attempt resolves the document afresh")

    return connection.call(run, timeout=limit, what=qualified)


def _raise_as_api_error(exc: Exception, qualified: str) -> NoReturn:
    """Re-raise a LibreOffice exception as :class:`ApiCallError` (its text kept), anything else as is."""
    if not _is_uno_exception(exc):
        raise exc
    message = getattr(exc, "Message", "") or str(exc)
    raise ApiCallError(f"{qualified}: LibreOffice raised {type(exc).__name__}: {message}") from None


def _holding_the_a11y_bus(call: Callable[[], Any]) -> Callable[[], Any]:
    """``call``, run holding the guest's libatspi lock (no tree walk runs beside it: libatspi is not thread-safe)."""

    def locked() -> Any:
        from ..a11y import locked_bus

        with locked_bus():
            return call()

    return locked


def call_api(
    launched: Any,
    method_name: str,
    args_json: str,
    home: str | Path | None = None,
    timeout: float | None = None,
    app: str | None = None,
    focus_key: Hashable | None = None,
) -> str:
    """Validate and run one agent API call; return its result as JSON text.

    ``launched`` is None for tools without UNO (see :func:`uses_uno`); ``app`` then names them.

    Raises:
        UnknownApiMethodError: no such method (names the closest ones).
        ApiArgumentError: the arguments do not fit (names the argument).
        ApiCallError, UnoTimeoutError: see :func:`run_tool`.
    """
    method = find_method(tool_class(app or launched.app), method_name)
    arguments = parse_arguments(method, args_json)
    result = run_tool(launched, method_name, arguments, home=home, timeout=timeout, app=app, focus_key=focus_key)
    try:
        return json.dumps(result)
    except TypeError as exc:
        raise ApiCallError(f"{method.qualified_name} returned a value that is not JSON: {exc}") from None


def summarize(launched: Any, max_chars: int = 5000, timeout: float = DEFAULT_TIMEOUT_S) -> str:
    """The ``app_info`` text of a launched app with an API (its tool class's ``summary``)."""
    return run_tool(launched, "summary", {"max_chars": max_chars}, timeout=timeout, internal=True)
