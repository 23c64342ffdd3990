"""A DesktopEnv on the test session's shared desktop, for module fixtures that need no cold desktop."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from desktop_gym import DesktopEnv
from desktop_gym.backends.local import LocalBackend
from desktop_gym.guest.client import GuestClient


def env_on_session_desktop(
    desktop: LocalBackend, guest: GuestClient, *args: Any, **kwargs: Any
) -> Iterator[DesktopEnv]:
    """Yield ``DesktopEnv(*args, backend=desktop, **kwargs)``; close it and kill its apps afterwards.

    Each reset wipes the session home and restarts the task's apps, so episodes do not see what
    earlier tests left; killing the apps at the end keeps later tests on the desktop from seeing
    this module's windows. (Saves a cold desktop start and a cold office launch per module.)

    Args:
        desktop: the session's ``desktop`` fixture.
        guest: the session's guest client (``_session_guest``), used to kill the apps.
        *args: passed to ``DesktopEnv``.
        **kwargs: passed to ``DesktopEnv`` (not ``backend``).
    """
    environment = DesktopEnv(*args, backend=desktop, **kwargs)
    try:
        yield environment
    finally:
        environment.close()
        guest.kill_apps()
