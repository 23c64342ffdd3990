"""What every backend provides: a desktop with a guest agent, and its address."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..errors import BackendError

__all__ = ["Backend", "BackendError", "DesktopHandle"]


@dataclass
class DesktopHandle:
    """A running desktop: where its guest agent listens and how big its screen is.

    Attributes:
        address: gRPC target of the guest agent (e.g. ``"unix:///tmp/.../guest.sock"``).
        token: Token the guest expects in ``x-desktop-gym-token`` metadata, if any.
        width: Screen width in pixels.
        height: Screen height in pixels.
    """

    address: str
    token: str | None
    width: int
    height: int
    info: dict[str, Any] = field(default_factory=dict)
    alive_check: Callable[[], bool] | None = field(default=None, repr=False, compare=False)

    def is_alive(self) -> bool:
        """Whether the desktop's processes (X server, guest agent) are still running."""
        return self.alive_check() if self.alive_check is not None else True

    def describe(self) -> dict:
        """A JSON-friendly summary (address, size, backend details)."""
        return {
            "address": self.address,
            "width": self.width,
            "height": self.height,
            "alive": self.is_alive(),
            **self.info,
        }


class Backend(ABC):
    """Brings a desktop + guest agent to life and tears it down."""

    name: str = "base"
    width: int = 1280
    height: int = 720
    #: ``"restart_apps"``: between episodes the env kills the apps and empties the home through the
    #: guest. Any other mode (``"recreate"`` a container, load a VM ``"snapshot"``) makes the env call
    #: :meth:`reset_desktop` first.
    reset_mode: str = "restart_apps"

    @property
    def screen_size(self) -> tuple[int, int]:
        """``(width, height)`` of the desktops this backend starts, known before ``start``."""
        return (self.width, self.height)

    @abstractmethod
    def start(self) -> DesktopHandle:
        """Start (or reuse) the desktop and return once its guest answers."""

    @abstractmethod
    def close(self) -> None:
        """Kill everything this backend started."""

    def reset_desktop(self) -> DesktopHandle:
        """Restore the desktop's initial state and return its (possibly new) handle.

        The default restarts it; backends with a cheaper full restore override this.
        """
        self.close()
        return self.start()

    def __enter__(self) -> Backend:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()
