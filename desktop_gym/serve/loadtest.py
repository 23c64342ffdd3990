"""The load-test backend: a stand-in "desktop" that answers every guest call at once, in process.

Only for measuring the env server's own cost (1,000 sessions on one machine, see
``bench/bench_serve.py``); nothing here draws a screen or runs an app. Real desktops stay the
default and are what every other test uses. Select it with ``EnvServer(backend="loadtest")`` or
``desktop-gym serve --backend loadtest``.
"""

from __future__ import annotations

import itertools
import os
from typing import Any

import numpy as np

from ..backends import Backend, DesktopHandle, register_backend
from ..env import DesktopEnv
from ..errors import GuestFileNotFoundError
from ..guest.types import AppFocus, AppInfo, ExecResult

_PIDS = itertools.count(10_000)


class StandInGuestClient:
    """Answers the ``GuestClient`` calls a ``DesktopEnv`` makes, instantly and without a desktop.

    Files live in a dict (so task setup and file verifiers work), launched apps are remembered,
    input is dropped, the screen is black.
    """

    def __init__(self, width: int, height: int) -> None:
        self._size = (width, height)
        self._screen = np.zeros((height, width, 3), dtype=np.uint8)
        self._screen.setflags(write=False)
        self.files: dict[str, bytes] = {}
        self._apps: list[AppInfo] = []
        self.calls = 0

    # session and screen
    def wait_ready(self, timeout: float = 15.0) -> None:
        return None

    def ping(self) -> dict[str, Any]:
        return {
            "display": ":loadtest",
            "width": self._size[0],
            "height": self._size[1],
            "pid": os.getpid(),
            "home": "~",
        }

    def screen_size(self) -> tuple[int, int]:
        return self._size

    def screenshot(self) -> np.ndarray:
        self.calls += 1
        return self._screen  # read-only and shared: idle sessions cost no screen memory

    def screenshot_encoded(self, fmt: str = "png", quality: int = 80) -> bytes:
        return b""

    def a11y_tree(self, visible_only: bool = True, max_nodes: int | None = None, timeout: float = 5.0) -> str:
        return ""

    def windows(self) -> list[Any]:
        return []

    def focused_window(self) -> None:
        return None

    # input: every action "succeeds" and changes nothing
    def _drop(self, *_args: Any, **_kwargs: Any) -> None:
        self.calls += 1

    move = click = mouse_down = mouse_up = drag = scroll = key_down = key_up = press = hotkey = type_text = _drop
    activate_window = close_window = _drop

    # processes, files, apps
    def exec(self, command: Any, timeout: float = 30.0, shell: bool = False, cwd: str | None = None) -> ExecResult:
        return ExecResult(returncode=0, stdout="", stderr="", timed_out=False)

    def clear_session(self, timeout: float = 30.0) -> None:
        self.kill_apps()
        self.files.clear()

    def put_file(self, path: str, data: bytes, mode: int = 0o644) -> str:
        self.files[path] = bytes(data)
        return path

    def get_file(self, path: str) -> bytes:
        try:
            return self.files[path]
        except KeyError:
            raise GuestFileNotFoundError(f"no such file in the load-test stand-in: {path}") from None

    def launch_app(self, app: str, file: str | None = None, timeout: float = 30.0) -> AppInfo:
        info = AppInfo(app=app, pid=next(_PIDS), alive=True, window_id=None, file=file)
        self._apps.append(info)
        return info

    def apps(self) -> list[AppInfo]:
        return list(self._apps)

    def kill_apps(self) -> None:
        self._apps.clear()

    def wait_apps_idle(self, timeout: float = 10.0) -> float:
        return 0.0

    def wait_settled(self, quiet: float = 0.06, timeout: float = 1.0, busy_timeout: float = 10.0) -> bool:
        return True  # nothing is ever drawn

    def wait_settled_reading_tree(self, *_args: Any, **_kwargs: Any) -> str | None:
        return None  # no tree to read ahead: the caller asks a11y_tree

    def call_api(self, app: str, method: str, args_json: str = "{}", timeout: float | None = None) -> str:
        self.calls += 1
        return "null"

    def app_info(
        self, app: str | None = None, max_chars: int = 5000, timeout: float = 10.0, check_modified: bool = False
    ) -> AppFocus:
        return AppFocus(app="", tool_class="", summary="", window_id=None, modified=False)

    def focused_app(self, timeout: float = 10.0) -> AppFocus:
        return self.app_info(timeout=timeout)

    def app_summary(self, app: str | None = None, max_chars: int = 5000, timeout: float = 10.0) -> str:
        return ""

    def document_modified(self, app: str, timeout: float = 10.0) -> bool:
        return False

    def close(self) -> None:
        return None


@register_backend("loadtest")
class LoadTestBackend(Backend):
    """A stand-in desktop for load tests (see the module docstring); never the default.

    Args:
        width: stand-in screen width (small by default: 1,000 idle sessions should not hold 1,000 frames).
        height: stand-in screen height.
    """

    name = "loadtest"

    def __init__(self, width: int = 160, height: int = 90) -> None:
        self.width, self.height = width, height
        self.guest: StandInGuestClient | None = None

    @property
    def env_class(self) -> type[DesktopEnv]:
        """The env the server builds on this backend (it talks to the stand-in guest)."""
        return LoadTestEnv

    def _start(self) -> DesktopHandle:
        self.guest = StandInGuestClient(self.width, self.height)
        return DesktopHandle(address="loadtest:", token=None, width=self.width, height=self.height)

    def wipe_session(self) -> None:
        """Forget files and apps (the pool calls this between envs)."""
        if self.guest is not None:
            self.guest.clear_session()

    def _close(self, timeout: float) -> None:
        self.guest = None


class LoadTestEnv(DesktopEnv):
    """A ``DesktopEnv`` whose guest is the backend's in-process stand-in (load tests only)."""

    def _ensure_desktop(self) -> Any:
        if self._client is None or self._handle is None:
            self._handle = self.backend.start()
            self._client = self.backend.guest  # type: ignore[attr-defined]
        return self._client

    def _settle(self) -> None:
        return None  # the stand-in screen never changes: nothing to wait for
