"""Why an episode cannot go on (a crashed desktop or app), and what its verification waits for.

``DesktopEnv.step`` asks :func:`crash_reason` after every action; before the verifier reads the
documents, :func:`wait_for_pending_saves` gives a save the agent started the time to land.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import TYPE_CHECKING

from .apps.spec import document_apps
from .polling import wait_while

if TYPE_CHECKING:
    from .backends import DesktopHandle
    from .guest.client import GuestClient

OFFICE_APPS = document_apps()  # apps whose documents the agent saves (AppSpec.saves_documents)
SAVE_GRACE_S = 3.0  # how long verification waits for a save the agent started to be written


def crash_reason(handle: DesktopHandle, client: GuestClient, task_apps: Iterable[str]) -> str | None:
    """Why the episode cannot go on (the desktop or one of the task's apps died), or None."""
    from .guest.client import GuestUnavailableError

    if not handle.is_alive():
        return "the desktop died (display server or guest agent exited)"
    try:
        apps = client.apps()
    except GuestUnavailableError as error:
        return f"the guest agent stopped answering: {error}"
    wanted = set(task_apps)
    dead = sorted({info.app for info in apps if info.app in wanted and not info.alive})
    if dead and not any(info.alive for info in apps if info.app in dead):
        if not display_answers(handle, client):  # the apps died because the display went away under them
            return "the desktop died (display server or guest agent exited)"
        return f"app {', '.join(dead)} exited during the episode"
    return None


def display_answers(handle: DesktopHandle, client: GuestClient) -> bool:
    """Whether the X server answers a round trip now (through the guest's own connection).

    Deterministic where the X server's process state is not: its clients see the display
    close before the process can be seen to exit.
    """
    from .guest.client import GuestError

    if not handle.is_alive():
        return False
    try:
        client.windows()
        return True
    except GuestError:
        return False


def wait_for_pending_saves(client: GuestClient, grace: float = SAVE_GRACE_S) -> None:
    """Give a save in flight the time to land: wait while an office document has unsaved changes.

    LibreOffice writes the file up to ~1.5 s after ctrl+s (measured under load), after it looks
    idle; its modified flag clears when the file is written. An episode whose document was never
    saved pays at most ``grace`` here.
    """
    from .guest.client import GuestError

    deadline = time.monotonic() + grace
    try:
        offices = sorted({info.app for info in client.apps() if info.alive and info.app in OFFICE_APPS})
        for app in offices:
            modified = lambda app=app: client.document_modified(app)  # noqa: E731
            if not wait_while(modified, deadline - time.monotonic(), interval=0.05):
                return
    except GuestError:
        return  # an app that died or hangs: the verifier reads whatever was written
