"""A synchronous QMP connection (``qemu.qmp``) on its own event-loop thread.

``qemu.qmp`` is asyncio; its legacy sync shim runs on the caller's thread event loop, which breaks
inside a running loop (an async env server) and across threads. This wrapper owns a private loop
in a daemon thread, so any thread may call it.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Coroutine
from typing import Any

from desktop_gym.errors import QmpError


class QmpConnection:
    """QEMU connects to us: :meth:`listen` on a unix socket, start QEMU with
    ``-chardev socket,id=qmp,path=<socket> -mon chardev=qmp,mode=control``, then :meth:`accept`.
    """

    def __init__(self, name: str = "desktop-gym") -> None:
        try:
            from qemu.qmp import QMPClient
        except ImportError:
            raise QmpError("the qemu backend needs qemu.qmp: pip install 'desktop-gym[qemu]'") from None
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name=f"qmp-{name}", daemon=True)
        self._thread.start()

        async def create() -> Any:
            return QMPClient(name)

        self._client = self._run(create(), 5.0)

    def _run(self, coro: Coroutine, timeout: float | None) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result(timeout)

    def listen(self, path: str) -> None:
        """Bind the unix socket QEMU will connect to."""
        self._run(self._client.start_server(path), 5.0)

    def accept(self, timeout: float, alive: Callable[[], bool]) -> None:
        """Wait for QEMU to connect and negotiate; give up when ``alive()`` turns false or after ``timeout``.

        Raises:
            QmpError: QEMU exited or did not connect in time.
        """
        future = asyncio.run_coroutine_threadsafe(self._client.accept(), self._loop)
        waited = 0.0
        while True:
            try:
                future.result(0.05)
                return
            except TimeoutError:
                waited += 0.05
                if not alive() or waited > timeout:
                    future.cancel()
                    reason = "QEMU exited before connecting to QMP" if not alive() else "QMP accept timed out"
                    raise QmpError(reason) from None
            except Exception as exc:  # noqa: BLE001 - ConnectError and friends: QEMU hung up
                raise QmpError(f"QMP negotiation with QEMU failed: {exc}") from None

    def execute(self, command: str, arguments: dict[str, Any] | None = None, timeout: float = 120.0) -> Any:
        """Run one QMP command and return its ``return`` value.

        Raises:
            QmpError: QEMU answered with an error (its message is included).
        """
        from qemu.qmp import ExecuteError

        try:
            return self._run(self._client.execute(command, arguments), timeout)
        except ExecuteError as exc:
            raise QmpError(f"QMP {command} failed: {exc}") from None

    def hmp(self, line: str, timeout: float = 120.0) -> str:
        """Run a human-monitor command (``savevm``, ``loadvm``, ...); its output, which is empty on success."""
        return str(self.execute("human-monitor-command", {"command-line": line}, timeout))

    def close(self) -> None:
        """Disconnect and stop the loop thread."""
        if not self._loop.is_closed():
            try:
                self._run(self._client.disconnect(), 5.0)
            except Exception:  # noqa: BLE001 - QEMU may be gone already
                pass
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(5.0)
            self._loop.close()
