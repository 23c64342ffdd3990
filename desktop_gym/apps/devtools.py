"""A minimal client for Chromium's DevTools protocol: one WebSocket to the browser, standard library only.

Chromium started with ``--remote-debugging-port=0`` writes the port it chose and the browser's
WebSocket path into ``DevToolsActivePort`` in its profile folder; :func:`connect` reads that file,
so a caller needs only the profile. Commands are JSON messages ``{"id", "method", "params"}``;
page-level commands go to a target through a flat session (``Target.attachToTarget`` with
``flatten``), so one connection drives every tab. Every read has a deadline and every message a
size cap: a browser that stops answering raises :class:`DevToolsError`, never hangs the guest.
"""

from __future__ import annotations

import base64
import itertools
import json
import os
import socket
import struct
import time
from pathlib import Path
from typing import Any

from ..errors import DevToolsError

#: The biggest message accepted from the browser (a page's text, a screenshot is never asked for).
MAX_MESSAGE_BYTES = 16 * 1024 * 1024
#: Events kept while waiting for a command's answer (older ones are dropped).
MAX_PENDING_EVENTS = 1000


def active_port(profile: Path) -> tuple[int, str]:
    """The ``(port, browser WebSocket path)`` a running Chromium wrote into ``profile``.

    Raises:
        DevToolsError: no browser is running on this profile (the file is missing or malformed).
    """
    try:
        lines = (Path(profile) / "DevToolsActivePort").read_text().split()
        return int(lines[0]), lines[1]
    except (OSError, ValueError, IndexError) as error:
        raise DevToolsError(f"no Chromium is running with the profile {profile} ({error})") from None


class DevTools:
    """One WebSocket connection to the browser endpoint.

    Args:
        port: The DevTools port (loopback only).
        path: The browser's WebSocket path (``/devtools/browser/<id>``).
        timeout: Seconds each command waits for its answer.
    """

    def __init__(self, port: int, path: str, timeout: float = 10.0) -> None:
        self.timeout = timeout
        self._ids = itertools.count(1)
        self._buffer = b""
        self.events: list[dict[str, Any]] = []
        try:
            self._sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        except OSError as error:
            raise DevToolsError(f"cannot reach the browser's DevTools port {port}: {error}") from None
        self._handshake(port, path)

    def _handshake(self, port: int, path: str) -> None:
        key = base64.b64encode(os.urandom(16)).decode()
        request = (
            f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
        )
        self._sock.sendall(request.encode())
        deadline = time.monotonic() + self.timeout
        while b"\r\n\r\n" not in self._buffer:
            self._fill(deadline)
            if len(self._buffer) > 65536:
                raise DevToolsError("the DevTools handshake answer is too long")
        head, _, self._buffer = self._buffer.partition(b"\r\n\r\n")
        if b" 101 " not in head.split(b"\r\n", 1)[0]:
            raise DevToolsError(f"the browser refused the DevTools connection: {head[:200]!r}")

    def close(self) -> None:
        """Close the connection (the browser keeps running)."""
        try:
            self._sock.close()
        except OSError:
            pass

    def __enter__(self) -> DevTools:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ framing
    def _fill(self, deadline: float) -> None:
        left = deadline - time.monotonic()
        if left <= 0:
            raise DevToolsError(f"the browser did not answer within {self.timeout:.0f}s")
        self._sock.settimeout(left)
        try:
            chunk = self._sock.recv(65536)
        except TimeoutError:
            raise DevToolsError(f"the browser did not answer within {self.timeout:.0f}s") from None
        except OSError as error:
            raise DevToolsError(f"the DevTools connection broke: {error}") from None
        if not chunk:
            raise DevToolsError("the browser closed the DevTools connection (did it exit?)")
        self._buffer += chunk

    def _take(self, size: int, deadline: float) -> bytes:
        while len(self._buffer) < size:
            self._fill(deadline)
        data, self._buffer = self._buffer[:size], self._buffer[size:]
        return data

    def _send_frame(self, payload: bytes, opcode: int = 1) -> None:
        header = bytes([0x80 | opcode])
        size = len(payload)
        if size < 126:
            header += bytes([0x80 | size])
        elif size < 65536:
            header += bytes([0x80 | 126]) + struct.pack(">H", size)
        else:
            header += bytes([0x80 | 127]) + struct.pack(">Q", size)
        mask = os.urandom(4)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self._sock.sendall(header + mask + masked)

    def _read_message(self, deadline: float) -> bytes:
        message = b""
        while True:
            first, second = self._take(2, deadline)
            opcode, size = first & 0x0F, second & 0x7F
            if size == 126:
                size = struct.unpack(">H", self._take(2, deadline))[0]
            elif size == 127:
                size = struct.unpack(">Q", self._take(8, deadline))[0]
            if second & 0x80:
                raise DevToolsError("the browser sent a masked frame")
            if len(message) + size > MAX_MESSAGE_BYTES:
                raise DevToolsError(f"a DevTools message is over {MAX_MESSAGE_BYTES} bytes")
            payload = self._take(size, deadline)
            if opcode == 8:
                raise DevToolsError("the browser closed the DevTools connection")
            if opcode == 9:  # ping
                self._send_frame(payload, opcode=10)
                continue
            if opcode in (0, 1, 2):
                message += payload
                if first & 0x80:
                    return message

    # ------------------------------------------------------------------ commands
    def send(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        session: str | None = None,
        timeout: float | None = None,
    ) -> dict[str, Any]:
        """Run one command and return its ``result``; events that arrive meanwhile go to :attr:`events`.

        Raises:
            DevToolsError: the browser answered with an error, or not within the timeout.
        """
        command_id = next(self._ids)
        message: dict[str, Any] = {"id": command_id, "method": method, "params": params or {}}
        if session is not None:
            message["sessionId"] = session
        self._send_frame(json.dumps(message).encode())
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        while True:
            answer = json.loads(self._read_message(deadline))
            if answer.get("id") == command_id:
                if "error" in answer:
                    error = answer["error"]
                    raise DevToolsError(f"{method}: {error.get('message', error)}")
                return answer.get("result", {})
            if "method" in answer:
                self.events.append(answer)
                del self.events[:-MAX_PENDING_EVENTS]

    def wait_event(
        self,
        method: str,
        session: str | None = None,
        timeout: float | None = None,
    ) -> dict[str, Any]:
        """The next event ``method`` (from ``session`` if given), including one already received.

        Raises:
            DevToolsError: none came within the timeout.
        """
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)

        def matches(event: dict[str, Any]) -> bool:
            return event.get("method") == method and (session is None or event.get("sessionId") == session)

        while True:
            for index, event in enumerate(self.events):
                if matches(event):
                    del self.events[: index + 1]
                    return event
            self.events.clear()
            try:
                event = json.loads(self._read_message(deadline))
            except DevToolsError:
                raise DevToolsError(f"no {method} event within {self.timeout:.0f}s") from None
            if matches(event):
                return event
            if "method" in event:
                self.events.append(event)

    def attach(self, target_id: str) -> str:
        """A flat session on ``target_id`` (a tab), for page-level commands."""
        return self.send("Target.attachToTarget", {"targetId": target_id, "flatten": True})["sessionId"]


def connect(profile: Path, timeout: float = 10.0) -> DevTools:
    """A connection to the Chromium running with ``profile``.

    Raises:
        DevToolsError: no browser runs on it, or it does not answer.
    """
    port, path = active_port(profile)
    return DevTools(port, path, timeout=timeout)
