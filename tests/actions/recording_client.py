"""RecordingGuestClient: a test double of GuestClient for executor unit tests.

It is NOT a desktop: it records the calls the executor makes, in order, so tests can check the
mapping from typed actions to guest calls without starting X. It implements the executor's
``ActionTarget`` Protocol, whose signatures ``test_action_target.py`` checks against GuestClient.
End-to-end behaviour (that a click really clicks) is tested against a live desktop elsewhere.
"""

from __future__ import annotations

from typing import Any

from desktop_gym.actions.target import ActionTarget
from desktop_gym.apps.spec import launchable_apps
from desktop_gym.guest.types import AppInfo, GuestError


class RecordingGuestClient(ActionTarget):
    """Records the executor's calls (:class:`ActionTarget`) as ``(method, {argument: value})`` tuples.

    Args:
        screen: What ``screen_size()`` answers.
        failures: Method name -> error to raise when that method is called (e.g. a GuestError).
    """

    def __init__(self, screen: tuple[int, int] = (1280, 720), failures: dict[str, Exception] | None = None):
        self.screen = screen
        self.failures = dict(failures or {})
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.api_results: dict[str, str] = {}  # API method -> the JSON result call_api answers

    def _record(self, method: str, **arguments: Any) -> None:
        self.calls.append((method, arguments))
        if method in self.failures:
            raise self.failures[method]

    def screen_size(self) -> tuple[int, int]:
        return self.screen

    def move(self, x: int, y: int) -> None:
        self._record("move", x=x, y=y)

    def click(self, x: int | None = None, y: int | None = None, button: str = "left", count: int = 1) -> None:
        self._record("click", x=x, y=y, button=button, count=count)

    def mouse_down(self, x: int | None = None, y: int | None = None, button: str = "left") -> None:
        self._record("mouse_down", x=x, y=y, button=button)

    def mouse_up(self, x: int | None = None, y: int | None = None, button: str = "left") -> None:
        self._record("mouse_up", x=x, y=y, button=button)

    def drag(self, x1: int, y1: int, x2: int, y2: int, button: str = "left") -> None:
        self._record("drag", x1=x1, y1=y1, x2=x2, y2=y2, button=button)

    def scroll(self, x: int | None = None, y: int | None = None, dx: int = 0, dy: int = 0) -> None:
        self._record("scroll", x=x, y=y, dx=dx, dy=dy)

    def key_down(self, key: str) -> None:
        self._record("key_down", key=key)

    def key_up(self, key: str) -> None:
        self._record("key_up", key=key)

    def press(self, key: str, presses: int = 1) -> None:
        self._record("press", key=key, presses=presses)

    def hotkey(self, keys: list[str]) -> None:
        self._record("hotkey", keys=list(keys))

    def type_text(self, text: str) -> None:
        self._record("type_text", text=text)

    def activate_window(self, window_id: int) -> None:
        self._record("activate_window", window_id=window_id)

    def launch_app(self, app: str, file: str | None = None, timeout: float = 30.0) -> AppInfo:
        self._record("launch_app", app=app)
        if app not in launchable_apps():
            raise GuestError(f"unknown app {app!r}")
        return AppInfo(app=app, pid=4242, alive=True, window_id=0x3A00007, file=file)

    def call_api(self, app: str, method: str, args_json: str = "{}", timeout: float | None = None) -> str:
        self._record("call_api", app=app, api_method=method, args_json=args_json)
        return self.api_results.get(method, "null")
