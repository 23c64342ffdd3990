"""What an env offers the agent: GUI actions, app APIs or both, and which app APIs right now.

``action_mode`` picks the vocabulary: ``"gui"`` (GUI actions only; API calls are refused),
``"api"`` (app APIs plus ``done``/``fail``/``wait``; other GUI actions are refused) or
``"hybrid"`` (both). ``api_scope="focused"`` offers the API of the app whose window has the
focus plus the always-available ``OSTools``; ``"all"`` offers every app API. A refused action
is not an exception: the env returns its message as ``last_action_error`` and the episode goes
on. The prompt text and tool schemas are built from the same tool classes the guest runs, so
what the agent is told and what it may call never drift apart.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .actions import Action, ActionSet, ApiCall, Done, Exit, Fail, Wait
from .actions.executor import action_name
from .guest.apps import registry
from .guest.client import GuestClient, GuestError
from .guest.types import AppFocus

ACTION_MODES = ("gui", "api", "hybrid")
API_SCOPES = ("focused", "all")
API_MODE_ACTIONS = (Done, Fail, Exit, Wait)
"""The GUI-side actions ``action_mode="api"`` still allows (ending the episode, pacing)."""
_API_MODE_SPECS = {"wait", "exit", "WAIT", "DONE", "FAIL", "time.sleep"}


class ApiExposure:
    """The actions and app APIs offered under an action mode and an API scope.

    Args:
        action_set: The GUI vocabulary (style, coordinates, custom actions), kept as given; its
            ``api_classes`` are parsed too.
        action_mode: ``"gui"``, ``"api"`` or ``"hybrid"``.
        api_scope: ``"focused"`` or ``"all"``.

    Raises:
        ValueError: an unknown mode or scope (names the choices).
    """

    def __init__(self, action_set: ActionSet, action_mode: str = "hybrid", api_scope: str = "focused") -> None:
        if action_mode not in ACTION_MODES:
            raise ValueError(f"unknown action_mode {action_mode!r}; choose one of {ACTION_MODES}")
        if api_scope not in API_SCOPES:
            raise ValueError(f"unknown api_scope {api_scope!r}; choose one of {API_SCOPES}")
        self.action_mode = action_mode
        self.api_scope = api_scope
        # The caller's set itself (custom actions included); its own API classes are parsed but
        # described with the offered app APIs, so the GUI part of the prompt leaves them out.
        self.gui_actions = action_set.with_api_classes({}) if action_set.api_classes else action_set
        # The parser knows every API, so a call to an API not offered now gets a precise refusal.
        # It shares the caller's action index: the index is built once per env.
        self.parser = action_set.with_api_classes({**registry.api_classes(), **action_set.api_classes})

    # ------------------------------------------------------------------ what is offered
    @property
    def follows_focus(self) -> bool:
        """Whether the offered APIs change with the focused app."""
        return self.action_mode != "gui" and self.api_scope == "focused"

    def offered_apps(self, focused_app: str) -> list[str]:
        """The app keys whose APIs are offered while ``focused_app`` has the focus."""
        if self.action_mode == "gui":
            return []
        if self.api_scope == "all":
            return list(registry.TOOL_CLASSES)
        focused = [focused_app] if focused_app in registry.TOOL_CLASSES else []
        return [*focused, *(app for app in registry.always_offered() if app not in focused)]

    def api_prompt(self, apps: Sequence[str]) -> str:
        """The prompt text of the offered APIs (the observation's ``api`` part)."""
        return "\n".join(registry.api_prompt(app) for app in apps)

    def describe(self, apps: Sequence[str], fmt: str = "python") -> str:
        """Prompt text for the offered actions and APIs.

        Args:
            apps: The offered app APIs (see :meth:`offered_apps`).
            fmt: ``"python"`` (signatures and one-line docs), ``"brief"`` (the same without the
                docs: every action and API, at about 60% of the tokens, for small models) or
                ``"json"`` (the tool schemas).
        """
        if fmt == "json":
            return json.dumps(self.tool_schemas(apps), indent=2, ensure_ascii=False)
        if fmt == "brief":
            return "\n".join(line for line in self.describe(apps, "python").splitlines() if not line.startswith("    "))
        if fmt != "python":
            raise ValueError(f"unknown description format {fmt!r}; choose 'python', 'brief' or 'json'")
        if self.action_mode == "api":
            lines = ["Answer with one call per line, in Python syntax. Besides the app APIs you may use:"]
            for spec in self._gui_specs():
                lines += [spec.signature(), f"    {spec.summary}"]
        else:
            lines = [self.gui_actions.describe()]
        if apps:
            lines += ["", "## App APIs (call as Class.method(name=value, ...))", self.api_prompt(apps)]
        return "\n".join(lines)

    def tool_schemas(self, apps: Sequence[str]) -> list[dict[str, Any]]:
        """OpenAI function-calling schemas: the allowed GUI actions, then the offered APIs."""
        schemas = [spec.tool_schema() for spec in self._gui_specs()]
        for app in apps:
            schemas += registry.api_tool_schemas(app)
        return schemas

    def _gui_specs(self) -> list[Any]:
        specs = list(self.gui_actions.specs)
        if self.action_mode == "api":
            specs = [spec for spec in specs if spec.name in _API_MODE_SPECS]
        return specs

    # ------------------------------------------------------------------ refusals
    def refusal(self, action: Action, client: GuestClient, focused: AppFocus | None) -> str | None:
        """Why the action mode or the API scope refuses ``action`` (None: it may run).

        Args:
            action: The parsed action.
            client: The guest, asked for the focus when ``focused`` is None and for the running apps.
            focused: The focused app as the agent observed it, or None.
        """
        refusal = self.mode_refusal(action)
        if refusal is None and isinstance(action, ApiCall) and self.needs_focus_check(action):
            try:
                refusal = self.focus_refusal(action, focused or client.focused_app(), client.apps)
            except GuestError:
                return None  # the call itself reports what is wrong with the desktop
        return refusal

    def mode_refusal(self, action: Action) -> str | None:
        """Why ``action`` is refused under the action mode, or None when it may run."""
        name = action_name(action)
        if isinstance(action, ApiCall) and self.action_mode == "gui":
            return f"{name}: app API calls are disabled in action_mode='gui'; use GUI actions"
        if self.action_mode == "api" and not isinstance(action, (ApiCall, *API_MODE_ACTIONS)):
            return (
                f"{name}: GUI actions are disabled in action_mode='api'; call the app APIs "
                f"(see the observation's 'api' part) or end with done()/fail(), or wait()"
            )
        return None

    def needs_focus_check(self, action: Action) -> bool:
        """Whether ``action`` is an API call whose app must have the focus (scope ``"focused"``)."""
        if not isinstance(action, ApiCall) or self.api_scope == "all":
            return False
        try:
            return registry.resolve_app(action.app_class) not in registry.always_offered()
        except registry.UnknownAppApiError:
            return False  # not one of ours: the guest's error names it

    def focus_refusal(
        self, action: ApiCall, focused: AppFocus | Mapping[str, Any], running: Callable[[], list[Any]]
    ) -> str | None:
        """Why an API call is refused because its app is not focused, or None when it is.

        Args:
            action: The API call.
            focused: The focused app (``GuestClient.focused_app()``; a dict with ``app``/``tool_class`` too).
            running: Returns ``GuestClient.apps()``, to say how to switch (called only on refusal).
        """
        app = registry.resolve_app(action.app_class)
        if focused.get("app") == app:
            return None
        focused_name = focused.get("app") or "no launched app"
        if focused.get("tool_class"):
            focused_name += f" ({focused['tool_class']})"
        window = next((info.window_id for info in reversed(running()) if info.app == app and info.alive), None)
        if window is not None:
            how = f"switch to it first with switch_window(window_id={window})"
        else:
            how = f"{app} is not running; start it with open_app(app_name={app!r})"
        if self.action_mode == "api":
            how += " (action_mode='api' refuses those GUI actions: use api_scope='all' there)"
        return (
            f"{action_name(action)}: only the focused app's API (and OSTools) can be called; the focused "
            f"app is {focused_name}. To call {action.app_class}, {how}"
        )
