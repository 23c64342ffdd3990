"""Serving the web app with uvicorn: in the foreground, or in a thread beside an env server."""

from __future__ import annotations

import socket
import threading
import time
from typing import Any

STARTUP_TIMEOUT_S = 20.0


class WebServer:
    """A uvicorn server for ``app`` on ``host:port`` (port 0 picks a free one), run in a thread.

    ``url`` is set once it listens; ``stop()`` shuts it down.
    """

    def __init__(self, app: Any, host: str = "127.0.0.1", port: int = 0) -> None:
        import uvicorn

        if port == 0:
            with socket.socket() as probe:
                probe.bind((host, 0))
                port = probe.getsockname()[1]
        self.host, self.port = host, port
        self.url = f"http://{host}:{port}"
        config = uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="off")
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, name="desktop-gym-web", daemon=True)

    def start(self) -> WebServer:
        """Start serving and wait until the socket answers."""
        self._thread.start()
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        while not self._server.started:
            if not self._thread.is_alive():
                raise RuntimeError(f"the web server on {self.url} did not start (port taken?)")
            if time.monotonic() > deadline:
                raise TimeoutError(f"the web server on {self.url} did not listen within {STARTUP_TIMEOUT_S:.0f} s")
            time.sleep(0.02)
        return self

    def stop(self) -> None:
        """Stop serving (open event streams are closed)."""
        self._server.should_exit = True
        self._thread.join(10.0)

    def __enter__(self) -> WebServer:
        return self.start()

    def __exit__(self, *_: object) -> None:
        self.stop()
