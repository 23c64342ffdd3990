"""Plain data types and errors shared by the guest agent and its client."""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import GuestError, GuestUnavailableError

__all__ = ["AppInfo", "ExecResult", "GuestError", "GuestUnavailableError", "WindowInfo"]


@dataclass(frozen=True)
class WindowInfo:
    """A top-level window managed by the window manager.

    Attributes:
        window_id: X window id.
        title: ``_NET_WM_NAME`` (or ``WM_NAME``).
        app: WM_CLASS class, lowercased (e.g. ``"libreoffice-calc"``, ``"xterm"``).
        pid: ``_NET_WM_PID`` when the client sets it.
        x: Left edge in root coordinates.
        y: Top edge in root coordinates.
        width: Width in pixels.
        height: Height in pixels.
        focused: Whether it is ``_NET_ACTIVE_WINDOW``.
    """

    window_id: int
    title: str
    app: str
    pid: int | None
    x: int
    y: int
    width: int
    height: int
    focused: bool


@dataclass(frozen=True)
class ExecResult:
    """The outcome of a command run in the desktop session."""

    returncode: int
    stdout: str
    stderr: str
    timed_out: bool


@dataclass(frozen=True)
class AppInfo:
    """An application started by the guest's launcher.

    Attributes:
        app: ``"calc"``, ``"writer"``, ``"impress"``, ``"terminal"`` or ``"editor"``.
        pid: Process id of the launched process (leader of its own process group).
        alive: Whether the process is still running.
        window_id: Its main window, once seen.
        file: Absolute path (inside the guest) of the file it opened, if any.
    """

    app: str
    pid: int
    alive: bool
    window_id: int | None
    file: str | None
