"""The D-Bus wire format, as far as :mod:`a11y_peer` needs it: little-endian method calls out, replies in.

Whatever bytes arrive, a reader returns a value or raises :class:`PeerError`; a message announcing
more than :data:`MAX_MESSAGE_BYTES` is refused before it is read.
"""

from __future__ import annotations

import struct
from typing import Any

MAX_MESSAGE_BYTES = 8 << 20  # a reply larger than this is refused (an app's tree is read, not its whims)


class PeerError(Exception):
    """A call on an application's socket failed: an error reply, a timeout, a closed or odd stream."""


def _pad(length: int, align: int) -> int:
    return (-length) % align


class Writer:
    """Little-endian D-Bus marshalling of the few argument types the walk sends."""

    def __init__(self) -> None:
        self.data = bytearray()

    def align(self, n: int) -> None:
        self.data += b"\0" * _pad(len(self.data), n)

    def u32(self, value: int, fmt: str = "<I") -> Writer:
        self.align(4)
        self.data += struct.pack(fmt, value)
        return self

    def i32(self, value: int) -> Writer:
        return self.u32(value, "<i")

    def string(self, text: str) -> Writer:
        raw = text.encode()
        self.u32(len(raw))
        self.data += raw + b"\0"
        return self

    def signature(self, text: str) -> Writer:
        self.data += bytes([len(text)]) + text.encode() + b"\0"
        return self


class Reader:
    """Reads the values of one message, from ``pos`` on."""

    def __init__(self, data: bytes, pos: int) -> None:
        self.data, self.pos = data, pos

    def align(self, n: int) -> None:
        self.pos += _pad(self.pos, n)

    def u32(self, fmt: str = "<I") -> int:
        self.align(4)
        if self.pos + 4 > len(self.data):
            raise PeerError("a reply ended early")
        (value,) = struct.unpack_from(fmt, self.data, self.pos)
        self.pos += 4
        return value

    def i32(self) -> int:
        return self.u32("<i")

    def string(self) -> str:
        length = self.u32()
        text = self.data[self.pos : self.pos + length].decode("utf-8", "replace")
        self.pos += length + 1
        return text

    def signature(self) -> str:
        length = self.data[self.pos] if self.pos < len(self.data) else 0
        text = self.data[self.pos + 1 : self.pos + 1 + length].decode("ascii", "replace")
        self.pos += length + 2
        return text

    def array_end(self, element_align: int) -> int:
        length = self.u32()
        self.align(element_align)
        return self.pos + length

    def reference(self) -> str:
        """An ``(so)`` object reference's path (the bus name is the application's own)."""
        self.align(8)
        self.string()
        return self.string()


def take_message(buffer: bytearray) -> tuple[bytes, int] | None:
    """Remove the first whole message from ``buffer``: ``(message, offset of its body)``, or None for more.

    Raises:
        PeerError: if the bytes are not a little-endian message, or announce one over :data:`MAX_MESSAGE_BYTES`.
    """
    if len(buffer) < 16:
        return None
    if buffer[0:1] != b"l" or buffer[3] != 1:
        raise PeerError("the application sent a big-endian or garbled message")
    body, _serial, fields = struct.unpack_from("<III", buffer, 4)
    start = 16 + fields + _pad(16 + fields, 8)
    if start + body > MAX_MESSAGE_BYTES:
        raise PeerError(f"a message of {start + body} bytes (the cap is {MAX_MESSAGE_BYTES})")
    if len(buffer) < start + body:
        return None
    message = bytes(buffer[: start + body])
    del buffer[: start + body]
    return message, start


Call = tuple[str, str, str, str, bytes]  # path, interface, member, signature, marshalled body


def frame(serial: int, path: str, interface: str, member: str, signature: str, body: bytes) -> bytes:
    """One method call's bytes: header (interface, member, signature, then path), padding, body."""
    fixed = _fixed_fields(interface, member, signature)
    raw_path = path.encode()
    fields_length = len(fixed) + 8 + len(raw_path) + 1  # the path field comes last: no padding after it
    head = _HEAD.pack(b"l", 1, 0, 1, len(body), serial, fields_length) + fixed
    head += _PATH_FIELD + _U32.pack(len(raw_path)) + raw_path + b"\0"
    return head + b"\0" * _pad(len(head), 8) + body


_HEAD = struct.Struct("<cBBBIII")
_U32 = struct.Struct("<I")
_PATH_FIELD = bytes([1, 1]) + b"o\0"  # field code PATH, signature "o"
_fixed: dict[tuple[str, str, str], bytes] = {}


def _fixed_fields(interface: str, member: str, signature: str) -> bytes:
    """The INTERFACE, MEMBER and SIGNATURE header fields, padded to 8 bytes (a call's path field follows)."""
    key = (interface, member, signature)
    if key not in _fixed:
        fields = Writer()
        for code, kind, value in ((2, "s", interface), (3, "s", member), (8, "g", signature)):
            if value:
                fields.align(8)
                fields.data += bytes([code])
                fields.signature(kind)
                fields.signature(value) if kind == "g" else fields.string(value)
        fields.align(8)
        _fixed[key] = bytes(fields.data)
    return _fixed[key]


def reply_serial(message: bytes) -> int | None:
    """The REPLY_SERIAL header field of a whole message (None when it has none)."""
    reader, end = Reader(message, 16), min(len(message), 16 + struct.unpack_from("<I", message, 12)[0])
    while reader.pos < end:
        reader.align(8)
        if reader.pos >= end:
            break
        code = message[reader.pos]
        reader.pos += 1
        kind = reader.signature()
        if kind not in ("u", "g", "s", "o"):
            raise PeerError(f"a header field of type {kind!r}")
        value: Any = reader.u32() if kind == "u" else reader.signature() if kind == "g" else reader.string()
        if code == 5:
            return value
    return None
