"""What every backend provides: a desktop with a guest agent, and its address."""

from __future__ import annotations

import atexit
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..errors import BackendError, GuestNeverAnsweredError, GuestUnavailableError
from ..polling import poll_until

#: Connection attempts while a guest starts: 20 ms apart at first, at most 250 ms (not gRPC's ~1 s
#: after a first attempt made before the guest's socket existed; ``bench/bench_guest_fork.py``).
READINESS_BACKOFF_MS = (20, 250)

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

    _handle: DesktopHandle | None = None

    def start(self) -> DesktopHandle:
        """Start the desktop (or return the running one) once its guest answers.

        The lifecycle shared by every backend: a live handle is reused, a dead one closed first;
        ``close`` runs at interpreter exit; a failed start closes whatever it began and re-raises.
        Subclasses write :meth:`_start` only.

        Raises:
            BackendError: a component failed to start (its log tail is in the message).
            GuestNeverAnsweredError: the guest agent did not answer within the startup timeout.
        """
        if self._handle is not None:
            if self.is_alive():
                return self._handle
            self.close()
        atexit.register(self.close)
        try:
            self._handle = self._start()
        except BaseException:
            self.close()
            raise
        return self._handle

    @abstractmethod
    def _start(self) -> DesktopHandle:
        """Bring up a fresh desktop and return its handle once its guest answers."""

    def close(self, timeout: float = 10.0) -> None:
        """Kill everything this backend started; safe to call twice, and at interpreter exit.

        The lifecycle shared by every backend: the handle and the exit hook go first (a failed
        close is never retried at exit), then :meth:`_close` does the backend's own work.
        Subclasses write :meth:`_close` only.

        Args:
            timeout: How long processes may take to die.

        Raises:
            BackendError: something survived (the message names it); any other failure is wrapped
                in one, naming this backend.
        """
        atexit.unregister(self.close)
        self._handle = None
        try:
            self._close(timeout)
        except BackendError:
            raise
        except Exception as error:  # noqa: BLE001 - one error type leaves close
            raise BackendError(f"closing the {self.name} desktop failed: {error}") from error

    @abstractmethod
    def _close(self, timeout: float) -> None:
        """Tear down what ``_start`` began (called with no handle held; may run after a failed start)."""

    def wipe_session(self) -> None:
        """Kill the running desktop's apps and empty its home, so the next env finds a fresh session
        (an env server's pool calls this between envs)."""
        from ..guest.client import GuestClient

        handle = self.start()
        with GuestClient(handle.address, token=handle.token, timeout=30.0) as client:
            client.clear_session()

    @property
    def env_class(self) -> type:
        """The env class an env server builds on this backend (``DesktopEnv``; a stand-in may differ)."""
        from ..env import DesktopEnv

        return DesktopEnv

    def _new_handle(
        self,
        address: str,
        token: str | None,
        info: dict[str, Any],
        alive_check: Callable[[], bool] | None = None,
    ) -> DesktopHandle:
        """The handle ``_start`` returns: this backend's screen size, its name first in ``info``."""
        return DesktopHandle(address, token, self.width, self.height, {"backend": self.name, **info}, alive_check)

    def is_alive(self) -> bool:
        """Whether the running desktop still answers for its processes."""
        return self._handle is not None and self._handle.is_alive()

    def logs(self) -> str:
        """The desktop's recent log output, for error messages and debugging ("" when none)."""
        return ""

    def wait_for_guest(
        self,
        address: str,
        token: str | None,
        timeout: float,
        why_dead: Callable[[], str | None],
        ping_timeout: float = 0.5,
    ) -> None:
        """Poll the guest agent at ``address`` until it answers.

        Args:
            address: the guest's gRPC target.
            token: its session token.
            timeout: the longest wait.
            why_dead: says why the desktop can no longer answer (an exited process, with its log),
                or None while it may still come up.
            ping_timeout: How long one ping may take (a VM under TCG answers slowly).

        Raises:
            BackendError: ``why_dead`` reported a reason.
            GuestNeverAnsweredError: no answer within ``timeout`` (the one "guest never answered" type).
        """
        from ..guest.client import GuestClient

        client = GuestClient(address, token=token, timeout=2 * ping_timeout, reconnect_backoff_ms=READINESS_BACKOFF_MS)

        def answered() -> bool:
            try:
                client.wait_ready(timeout=ping_timeout)
                return True
            except GuestUnavailableError:
                reason = why_dead()
                if reason is not None:
                    raise BackendError(reason) from None
                return False

        def never_answered(message: str) -> GuestNeverAnsweredError:
            tail = self.logs()[-800:]
            return GuestNeverAnsweredError(
                f"the {self.name} guest agent at {address}: {message}" + (f"; log: {tail!r}" if tail else "")
            )

        try:
            # Backing off to 0.25 s: why_dead may be an engine round trip (container status).
            what = f"the guest agent to answer at {address}"
            poll_until(answered, timeout, what, backoff=1.5, error=never_answered)
        finally:
            client.close()

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
