"""Bounds on what a verifier will parse: file size, zip bombs, XML entities and nesting depth.

A policy under RL writes whatever earns reward, so a saved "document" may be a zip bomb, an XML
entity bomb or a deeply nested tree meant to hang or crash the verifier. Office documents are
zip packages of XML parts; before any parser sees one, ``check_package`` reads its table of
contents and streams each XML part through expat, rejecting what no office app writes: DTDs and
entity declarations, nesting deeper than ``MAX_XML_DEPTH``, more than ``MAX_UNPACKED_BYTES`` in
all, or password protection (an encrypted package is an OLE container, or an ODF package whose
manifest names encryption data). Each rejection is a ``DocumentError`` naming the reason.
"""

from __future__ import annotations

import functools
import io
import xml.parsers.expat
import zipfile
import zlib

from .result import CheckFailed

MAX_FILE_BYTES = 64 * 1024 * 1024  # the largest artifact read at all
MAX_UNPACKED_BYTES = 96 * 1024 * 1024  # the largest total of a package's uncompressed parts
MAX_PACKAGE_ENTRIES = 5_000
MAX_COMPRESSION_RATIO = 200  # per entry over 1 MiB: office XML compresses ~10-30x, bombs 1000x
MAX_XML_DEPTH = 256  # libxml2's own default limit; LibreOffice documents stay under ~40
OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_CHUNK = 1024 * 1024


class LimitError(CheckFailed):
    """An artifact exceeds a parsing bound or is password-protected (``details["problem"]``)."""

    def __init__(self, message: str) -> None:
        super().__init__(message, problem="unreadable")
        self.problem = "unreadable"


def check_size(data: bytes, what: str) -> None:
    """Raise ``LimitError`` when ``data`` is larger than ``MAX_FILE_BYTES``."""
    if len(data) > MAX_FILE_BYTES:
        raise LimitError(
            f"the {what} is {len(data) / 2**20:.1f} MiB, over the {MAX_FILE_BYTES // 2**20} MiB a verifier reads"
        )


def _check_xml(stream: io.BufferedIOBase, name: str, what: str) -> None:
    parser = xml.parsers.expat.ParserCreate()
    depth = 0

    def start(_tag: str, _attributes: dict[str, str]) -> None:
        nonlocal depth
        depth += 1
        if depth > MAX_XML_DEPTH:
            raise LimitError(f"the {what}'s part {name} nests XML deeper than {MAX_XML_DEPTH} levels")

    def end(_tag: str) -> None:
        nonlocal depth
        depth -= 1

    def doctype(*_args: object) -> None:
        raise LimitError(f"the {what}'s part {name} declares a DTD, which no office app writes (entity expansion)")

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.StartDoctypeDeclHandler = doctype
    parser.EntityDeclHandler = lambda *_args: doctype()
    try:
        while chunk := stream.read(_CHUNK):
            parser.Parse(chunk, False)
        parser.Parse(b"", True)
    except xml.parsers.expat.ExpatError as error:
        raise LimitError(f"the {what} is not readable: its part {name} is not well-formed XML ({error})") from None


@functools.lru_cache(maxsize=16)
def check_package(data: bytes, what: str) -> None:
    """Check a zip-packaged document (OOXML, ODF) against the bounds before a parser opens it.

    Args:
        data: the file's bytes.
        what: the document kind for messages ("xlsx workbook").

    Raises:
        LimitError: password-protected, too large, a zip bomb, or an XML part with a DTD, entity
            declarations or excessive nesting. A file that is not a zip passes through (the
            parser then reports it unreadable).
    """
    check_size(data, what)
    if data.startswith(OLE_MAGIC):
        raise LimitError(
            f"the {what} is password-protected (an encrypted package) or a legacy binary file; "
            "save it without a password in the expected format"
        )
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, OSError, ValueError):
        return
    with archive:
        entries = archive.infolist()
        if len(entries) > MAX_PACKAGE_ENTRIES:
            raise LimitError(f"the {what} has {len(entries)} parts, over {MAX_PACKAGE_ENTRIES}")
        total = sum(entry.file_size for entry in entries)
        if total > MAX_UNPACKED_BYTES:
            raise LimitError(
                f"the {what} unpacks to {total / 2**20:.0f} MiB, over {MAX_UNPACKED_BYTES // 2**20} MiB (a zip bomb?)"
            )
        for entry in entries:
            ratio = entry.file_size // max(entry.compress_size, 1)
            if entry.file_size > _CHUNK and ratio > MAX_COMPRESSION_RATIO:
                raise LimitError(f"the {what}'s part {entry.filename} compresses {ratio}:1, as zip bombs do")
        names = {entry.filename for entry in entries}
        if "META-INF/manifest.xml" in names and b"encryption-data" in _read_bounded(archive, "META-INF/manifest.xml"):
            raise LimitError(f"the {what} is password-protected; save it without a password")
        for entry in entries:
            if entry.filename.endswith((".xml", ".rels")) and not entry.is_dir():
                try:
                    with archive.open(entry) as stream:
                        _check_xml(_Bounded(stream, entry.file_size), entry.filename, what)
                except (zipfile.BadZipFile, zlib.error, OSError, EOFError, NotImplementedError, RuntimeError) as error:
                    raise LimitError(f"the {what} is not readable: part {entry.filename}: {error}") from None


def _read_bounded(archive: zipfile.ZipFile, name: str) -> bytes:
    with archive.open(name) as stream:
        return _Bounded(stream, archive.getinfo(name).file_size).read()


class _Bounded(io.RawIOBase):
    """A zip member stream that never yields more than the size its header declares (plus 1 KiB)."""

    def __init__(self, stream: io.BufferedIOBase, declared: int) -> None:
        self._stream = stream
        self._left = declared + 1024

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        if self._left <= 0:
            raise LimitError("a document part is larger than its zip header declares (a zip bomb?)")
        size = self._left if size is None or size < 0 else min(size, self._left)
        chunk = self._stream.read(size)
        self._left -= len(chunk)
        return chunk


def decompress_bounded(data: bytes, what: str) -> bytes:
    """``data`` decompressed when it is gzip, bzip2 or xz (else as is), at most ``MAX_UNPACKED_BYTES``.

    Raises:
        LimitError: the data unpacks to more than the bound (a compression bomb) or is corrupt.
    """
    import bz2
    import lzma

    check_size(data, what)
    is_gzip = data.startswith(b"\x1f\x8b")
    if is_gzip:
        decompressor: object = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
    elif data.startswith(b"BZh"):
        decompressor = bz2.BZ2Decompressor()
    elif data.startswith(b"\xfd7zXZ\x00"):
        decompressor = lzma.LZMADecompressor()
    else:
        return data
    out = bytearray()
    pending = data
    try:
        while True:
            if is_gzip:  # zlib caps output with a positional max_length and keeps the rest as a tail
                chunk = decompressor.decompress(pending, _CHUNK)  # type: ignore[attr-defined]
                pending = decompressor.unconsumed_tail  # type: ignore[attr-defined]
                done = decompressor.eof or (not pending and not chunk)  # type: ignore[attr-defined]
            else:
                chunk = decompressor.decompress(pending, max_length=_CHUNK)  # type: ignore[attr-defined]
                pending = b""
                done = decompressor.eof or (decompressor.needs_input and not chunk)  # type: ignore[attr-defined]
            out += chunk
            if len(out) > MAX_UNPACKED_BYTES:
                raise LimitError(f"the {what} unpacks to over {MAX_UNPACKED_BYTES // 2**20} MiB (a compression bomb?)")
            if done:
                return bytes(out)
    except (zlib.error, OSError, EOFError, lzma.LZMAError) as error:
        raise LimitError(f"the file is not a readable {what}: its compressed data is corrupt ({error})") from None
