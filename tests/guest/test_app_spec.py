"""The app table: every layer reads it, and a tiny app added through it launches and serves its API."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from desktop_gym.actions import APP_ALIASES, ActionSet, ApiCall, resolve_app_name
from desktop_gym.api_exposure import ApiExposure
from desktop_gym.apps.spec import (
    APP_SPECS,
    AppSpec,
    app_aliases,
    document_apps,
    launchable_apps,
    register_app,
    unregister_app,
)
from desktop_gym.backends.xauth import x_authority
from desktop_gym.env import OFFICE_APPS
from desktop_gym.errors import TaskFileError
from desktop_gym.guest.apps import registry
from desktop_gym.guest.apps.launcher import APPS, AppLauncher
from desktop_gym.guest.processes import session_env
from desktop_gym.guest.windows import WindowManager
from desktop_gym.tasks.loader import SCHEMA_PATH, task_schema, validate_definition

HELLO_TASK = {
    "id": "mysuite.hello_token",
    "instruction": "In the open terminal, write {token} into ~/hello.txt",
    "params": {"token": {"words": {"count": 2, "sep": "-"}}},
    "setup": [{"type": "launch", "app": "terminal"}],
    "verifier": {"name": "text_file", "file": "~/hello.txt", "args": {"expected": "{token}"}},
    "oracles": {"gui": ["type(text='echo {token} > ~/hello.txt\\n')"]},
    "perturb": {"param": "token", "value": "{token}x"},
}


def test_every_layer_agrees_with_the_table() -> None:
    assert task_schema()["$defs"]["app"]["enum"] == list(launchable_apps()) == list(APPS)
    published = json.loads(SCHEMA_PATH.read_text())["$defs"]["app"]["enum"]
    assert published == list(launchable_apps()), "the published schema file lists the built-in apps"
    assert list(registry.TOOL_CLASSES) == [key for key, spec in APP_SPECS.items() if spec.tools is not None]
    assert all(
        registry.TOOL_CLASSES[app].__name__ == APP_SPECS[app].tools.split(":")[1] for app in registry.TOOL_CLASSES
    )
    assert registry.ALWAYS_OFFERED == ("os",)
    assert OFFICE_APPS == document_apps() == ("calc", "impress", "writer")
    assert APP_ALIASES == app_aliases()
    assert resolve_app_name("LibreOffice  Calc") == "calc" and resolve_app_name("Mousepad") == "editor"


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"key": "Hello", "launch": "command", "command": ("x",), "window_class": "x"}, "key"),
        ({"key": "hello", "launch": "flatpak", "command": ("x",), "window_class": "x"}, "launch"),
        ({"key": "hello", "launch": "command", "window_class": "x"}, "command"),
        ({"key": "hello", "launch": "none", "tools": "hello.HelloTools"}, "tools"),
    ],
)
def test_a_bad_spec_names_its_field(kwargs: dict, field: str) -> None:
    with pytest.raises(ValueError, match=field):
        AppSpec(**kwargs)


def test_keys_and_aliases_stay_unique() -> None:
    with pytest.raises(ValueError, match="already registered"):
        register_app(AppSpec(key="calc", launch="none"))
    with pytest.raises(ValueError, match=r"\['excel'\] already belong"):
        register_app(AppSpec(key="sheets", launch="none", aliases=("excel",)))
    assert "sheets" not in APP_SPECS


class HelloTools:
    """A greeting app: says hello (the tool module of the README's "Adding an app" example)."""

    uses_uno = False

    def __init__(self, home: str | None = None) -> None:
        self.home = home

    def greeting(self, name: str, excited: bool = False) -> str:
        """Greet someone.

        Args:
            name: Who to greet.
            excited: End with "!" instead of ".".
        """
        return f"Hello, {name}{'!' if excited else '.'}"


@pytest.fixture
def hello_app() -> Iterator[AppSpec]:
    spec = register_app(
        AppSpec(
            key="hello",
            launch="command",
            command=("xmessage", "-center", "hello from desktop-gym"),
            window_class="xmessage",
            aliases=("greeter", "hello app"),
            opens_files=False,
            tools=HelloTools,  # a tool module names it "module:Class", e.g. tools="hello:HelloTools"
        )
    )
    yield spec
    unregister_app("hello")


def test_an_app_added_through_the_table_joins_the_apis_and_the_task_schema(hello_app: AppSpec) -> None:
    assert registry.TOOL_CLASSES["hello"] is HelloTools and registry.resolve_app("HelloTools") == "hello"
    assert "hello" in task_schema()["$defs"]["app"]["enum"]
    task = {**HELLO_TASK, "apps": ["terminal", "hello"]}
    assert validate_definition(task, "hello.json")["apps"] == ["terminal", "hello"]
    unregister_app("hello")
    assert "hello" not in registry.TOOL_CLASSES
    with pytest.raises(TaskFileError, match=r"apps\[1\]: 'hello' is not one of"):
        validate_definition(task, "hello.json")


def test_an_always_offered_app_registered_after_import_is_offered_with_every_focus() -> None:
    assert "hello" not in registry.always_offered()
    exposure = ApiExposure(ActionSet(), action_mode="hybrid", api_scope="focused")
    register_app(AppSpec(key="hello", launch="none", always_offered=True, opens_files=False, tools=HelloTools))
    try:
        assert registry.always_offered() == registry.ALWAYS_OFFERED == ("os", "hello")
        assert exposure.offered_apps("calc") == ["calc", "os", "hello"]
        assert not exposure.needs_focus_check(ApiCall("HelloTools", "greeting", {"name": "Ada"}))
    finally:
        unregister_app("hello")
    assert registry.ALWAYS_OFFERED == ("os",) and exposure.offered_apps("calc") == ["calc", "os"]


def test_a_tiny_app_added_through_the_table(hello_app: AppSpec, desktop, tmp_path: Path) -> None:
    handle = desktop.start()
    env = {**session_env(tmp_path), "DISPLAY": handle.info["display"], "XAUTHORITY": handle.info["xauthority"]}
    with x_authority(handle.info["xauthority"]):
        windows = WindowManager(handle.info["display"])
    launcher = AppLauncher(tmp_path, windows, env, tmp_path / "launches")
    try:
        assert resolve_app_name("Hello App") == "hello"
        launched = launcher.launch(resolve_app_name("greeter"), timeout=20)
        assert launched.alive and launched.window_id
        window = next(w for w in windows.list_windows() if w.window_id == launched.window_id)
        assert "xmessage" in window.app
        (tmp_path / "x.txt").write_text("x")
        with pytest.raises(ValueError, match="does not open files"):
            launcher.launch("hello", file=str(tmp_path / "x.txt"))

        assert "greeting(name: str, excited: bool = False)" in registry.api_prompt("hello")
        assert registry.call_api(None, "greeting", '{"name": "Ada", "excited": true}', app="HelloTools") == json.dumps(
            "Hello, Ada!"
        )
        with pytest.raises(registry.ApiArgumentError, match="name"):
            registry.call_api(None, "greeting", '{"name": 5}', app="hello")
    finally:
        launcher.close()
