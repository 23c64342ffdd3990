"""An X authority cookie per local desktop: only holders of the session's Xauthority file connect.

Xvfb starts with ``-auth <file>``; the file (mode 0600, in the session's private workdir) holds a
random MIT-MAGIC-COOKIE-1, and every process of the session gets ``XAUTHORITY=<file>``. Other
local users, who cannot read the workdir, can no longer read the screen or inject keys. The file
format is libXau's: records of (family, address, display number, auth name, auth data).
"""

from __future__ import annotations

import os
import secrets
import socket
import struct
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

COOKIE_NAME = b"MIT-MAGIC-COOKIE-1"
FAMILY_LOCAL = 256  # matched by address (the host name) and display number: python-xlib and libXau
FAMILY_WILD = 65535  # any address: libXau clients in a container whose host name differs
_ENVIRON_LOCK = threading.Lock()


def new_cookie() -> bytes:
    """16 random bytes."""
    return secrets.token_bytes(16)


def _field(value: bytes) -> bytes:
    return struct.pack(">H", len(value)) + value


def write_xauthority(path: Path, cookie: bytes, display_number: str = "") -> None:
    """Write an Xauthority file (mode 0600) granting ``cookie`` on display ``display_number``.

    An empty number matches any display (Xvfb reads the file before it has chosen its number).
    """
    number = display_number.encode()
    records = b"".join(
        struct.pack(">H", family) + _field(address) + _field(number) + _field(COOKIE_NAME) + _field(cookie)
        for family, address in ((FAMILY_LOCAL, socket.gethostname().encode()), (FAMILY_WILD, b""))
    )
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(records)


@contextmanager
def x_authority(path: str | Path | None) -> Iterator[None]:
    """Let this process's python-xlib connections use ``path`` (it reads ``$XAUTHORITY`` at connect)."""
    if path is None:
        yield
        return
    with _ENVIRON_LOCK:
        previous = os.environ.get("XAUTHORITY")
        os.environ["XAUTHORITY"] = str(path)
        try:
            yield
        finally:
            if previous is None:
                os.environ.pop("XAUTHORITY", None)
            else:
                os.environ["XAUTHORITY"] = previous


def connect_display(display: str, xauthority: str | Path | None) -> Any:
    """A python-xlib connection to ``display`` authorized by the session's Xauthority file."""
    from Xlib import display as xdisplay

    with x_authority(xauthority):
        return xdisplay.Display(display)
