"""GIMP's Script-Fu server: its wire protocol, safe Scheme literals, and a client for one request.

GIMP 2.10 runs ``plug-in-script-fu-server`` (started at launch with ``-b``) on a loopback port. A request
is ``'G'``, the script's length as 2 bytes (big-endian) and the script (UTF-8); the reply is a magic byte
``'G'``, an error byte (0: success), the text's length as 2 bytes and the text: the printed value of the
script's last expression, or the error message. Every value an agent gives enters a script only
through :func:`scheme_string` or :func:`scheme_number`, never as Scheme source. Standard library only.
"""

from __future__ import annotations

import math
import socket
import struct
from dataclasses import dataclass

from .sexp import SexpError, parse_sexp

MAGIC = b"G"
#: The longest script (and reply) the 2-byte length can frame.
MAX_SCRIPT_BYTES = 65535
#: The longest string value an agent may put into a script.
MAX_STRING_CHARS = 4000
_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t"}


class ScriptFuError(Exception):
    """The server is unreachable, broke the protocol, or the script failed (``script_failed``)."""

    def __init__(self, message: str, *, script_failed: bool = False) -> None:
        super().__init__(message)
        self.script_failed = script_failed


@dataclass(frozen=True)
class Reply:
    """One reply: whether the script failed, and the text GIMP sent."""

    failed: bool
    text: str


def scheme_string(value: str) -> str:
    """``value`` as a Scheme string literal (quotes, backslashes, newlines and tabs escaped).

    Raises:
        ValueError: it is not a string, is longer than ``MAX_STRING_CHARS``, or holds another control
            character (NUL, escape sequences, ...).
    """
    if not isinstance(value, str):
        raise ValueError(f"expected text, got {type(value).__name__}")
    if len(value) > MAX_STRING_CHARS:
        raise ValueError(f"text is longer than {MAX_STRING_CHARS} characters")
    bad = [ch for ch in value if (ord(ch) < 32 or 0x7F <= ord(ch) < 0xA0) and ch not in _ESCAPES]
    if bad:
        raise ValueError(f"text holds the control character {bad[0]!r}")
    return '"' + "".join(_ESCAPES.get(ch, ch) for ch in value) + '"'


def scheme_number(value: float, low: float, high: float, *, integer: bool = False, name: str = "value") -> str:
    """``value`` as a Scheme number literal, after checking it is finite and in ``[low, high]``.

    Raises:
        ValueError: not a number, not finite, out of range, or not whole when ``integer`` (names ``name``).
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{name} must be a number, got {value!r}")
    if not math.isfinite(value) or not low <= value <= high:
        raise ValueError(f"{name} must be between {low:g} and {high:g}, got {value!r}")
    if integer:
        if value != int(value):
            raise ValueError(f"{name} must be a whole number, got {value!r}")
        return str(int(value))
    text = f"{float(value):.6f}".rstrip("0")
    return text + "0" if text.endswith(".") else text


def encode_request(script: str) -> bytes:
    """The framed request for ``script``.

    Raises:
        ValueError: the script is over ``MAX_SCRIPT_BYTES`` bytes in UTF-8.
    """
    data = script.encode("utf-8")
    if len(data) > MAX_SCRIPT_BYTES:
        raise ValueError(f"a script may have at most {MAX_SCRIPT_BYTES} bytes, this one has {len(data)}")
    return MAGIC + struct.pack(">H", len(data)) + data


def decode_header(header: bytes) -> tuple[bool, int]:
    """``(failed, length)`` from a reply's 4-byte header.

    Raises:
        ScriptFuError: not 4 bytes, or the magic byte is wrong.
    """
    if len(header) != 4 or header[:1] != MAGIC:
        raise ScriptFuError(f"the Script-Fu server sent a malformed reply header {header[:8]!r}")
    return header[1] != 0, struct.unpack(">H", header[2:4])[0]


def decode_reply(data: bytes) -> Reply:
    """A whole reply (header and text) as a :class:`Reply`.

    Raises:
        ScriptFuError: the header is malformed or the text's length does not match it.
    """
    failed, length = decode_header(data[:4])
    body = data[4:]
    if len(body) != length:
        raise ScriptFuError(f"the Script-Fu reply announced {length} bytes but held {len(body)}")
    return Reply(failed=failed, text=body.decode("utf-8", errors="replace"))


def _read_exactly(sock: socket.socket, count: int) -> bytes:
    chunks = bytearray()
    while len(chunks) < count:
        chunk = sock.recv(count - len(chunks))
        if not chunk:
            raise ScriptFuError("the Script-Fu server closed the connection mid-reply")
        chunks += chunk
    return bytes(chunks)


def run_script(port: int, script: str, timeout: float = 30.0) -> str:
    """Run ``script`` on the server at ``127.0.0.1:port``; returns the printed value of its result.

    Raises:
        ScriptFuError: the server cannot be reached or broke the protocol, or the script failed
            (``script_failed`` set, the message is GIMP's).
    """
    request = encode_request(script)
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
            sock.sendall(request)
            failed, length = decode_header(_read_exactly(sock, 4))
            text = _read_exactly(sock, length).decode("utf-8", errors="replace")
    except OSError as error:
        raise ScriptFuError(f"the Script-Fu server on port {port} does not answer: {error}") from None
    if failed:
        raise ScriptFuError(text.strip().removeprefix("Error:").strip() or "the script failed", script_failed=True)
    return text


def evaluate(port: int, script: str, timeout: float = 30.0) -> object:
    """Run ``script`` and parse its printed result (numbers, strings, booleans, lists; see :mod:`.sexp`).

    Raises:
        ScriptFuError: as :func:`run_script`, or the result is not a value :mod:`.sexp` reads.
    """
    text = run_script(port, script, timeout)
    try:
        return parse_sexp(text)
    except SexpError as error:
        raise ScriptFuError(f"cannot read GIMP's reply {text[:200]!r}: {error}") from None
