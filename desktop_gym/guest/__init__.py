"""The in-desktop guest agent (server) and its client."""

from .client import GuestClient
from .types import AppInfo, ExecResult, GuestError, GuestUnavailableError, WindowInfo

__all__ = ["AppInfo", "ExecResult", "GuestClient", "GuestError", "GuestUnavailableError", "WindowInfo"]
