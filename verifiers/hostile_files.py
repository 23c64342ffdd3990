"""Hostile artifacts for checking that verifiers fail safely: the robustness suite and its bench use these.

Each maker returns the bytes a policy could leave where a task expects its document: a missing
file (None), an empty or truncated one, a corrupt package, a password-protected one, a document
of the wrong format, one over the size bound, a zip bomb, an XML entity bomb, and deeply nested
XML. Every registered file verifier must return a failed result with a reason for each (except
where the file's mere existence is the check), quickly and within bounded memory.
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Callable

from ._limits import MAX_FILE_BYTES, MAX_UNPACKED_BYTES, MAX_XML_DEPTH, OLE_MAGIC

BILLION_LAUGHS = (
    b'<?xml version="1.0"?>\n<!DOCTYPE lolz [<!ENTITY lol "lol">'
    + b"".join(
        b'<!ENTITY lol%d "%s">' % (level, (b"&lol%d;" % (level - 1) if level > 1 else b"&lol;") * 10)
        for level in range(1, 10)
    )
    + b"]>\n<lolz>&lol9;</lolz>"
)


def replace_part(data: bytes, part: str, content: bytes) -> bytes:
    """The zip ``data`` with ``part`` replaced by ``content`` (added when missing)."""
    source, target = zipfile.ZipFile(io.BytesIO(data)), io.BytesIO()
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as out:
        for item in source.infolist():
            if item.filename != part:
                out.writestr(item, source.read(item.filename))
        out.writestr(part, content)
    return target.getvalue()


def main_part(data: bytes) -> str:
    """The package's main XML part: the first sheet, the document body, the first slide, or content.xml."""
    names = zipfile.ZipFile(io.BytesIO(data)).namelist()
    for candidate in ("xl/worksheets/sheet1.xml", "word/document.xml", "ppt/slides/slide1.xml", "content.xml"):
        if candidate in names:
            return candidate
    return "xl/workbook.xml" if "xl/workbook.xml" in names else names[0]


def deep_xml(depth: int = MAX_XML_DEPTH * 40) -> bytes:
    """Well-formed XML nested ``depth`` elements deep."""
    return b'<?xml version="1.0"?>' + b"<a>" * depth + b"</a>" * depth


def zip_bomb(template: bytes) -> bytes:
    """``template`` with its main part swapped for zeros that unpack past ``MAX_UNPACKED_BYTES``."""
    target = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(template)) as source, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as out:
        bomb = main_part(template)
        for item in source.infolist():
            if item.filename != bomb:
                out.writestr(item, source.read(item.filename))
        with out.open(bomb, "w", force_zip64=True) as stream:
            block = b"\0" * (1 << 20)
            for _ in range(MAX_UNPACKED_BYTES // len(block) + 2):
                stream.write(block)
    return target.getvalue()


def hostile_variants(template: bytes) -> dict[str, Callable[[], bytes | None]]:
    """Makers of hostile variants of a valid zip document ``template``, by name (lazily: some are large)."""
    part = main_part(template)

    def corrupt() -> bytes:
        middle = bytearray(template)
        for index in range(len(middle) // 3, len(middle) // 3 + 64):
            middle[index] ^= 0x5A
        return bytes(middle)

    def encrypted_odf() -> bytes:
        manifest = (
            b'<?xml version="1.0"?>'
            b'<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0">'
            b'<manifest:file-entry manifest:full-path="content.xml"><manifest:encryption-data/>'
            b"</manifest:file-entry></manifest:manifest>"
        )
        return replace_part(template, "META-INF/manifest.xml", manifest)

    return {
        "missing": lambda: None,
        "empty": lambda: b"",
        "garbage": lambda: b"\x00\x01 definitely not a document \xff" * 4,
        "truncated": lambda: template[: len(template) // 2],
        "corrupt": corrupt,
        "password-protected": lambda: OLE_MAGIC + b"\x00" * 4096,
        "password-protected odf": encrypted_odf,
        "huge": lambda: b"PK\x03\x04" + b"\x00" * (MAX_FILE_BYTES + 1),
        "zip bomb": lambda: zip_bomb(template),
        "entity expansion": lambda: replace_part(template, part, BILLION_LAUGHS),
        "deep xml": lambda: replace_part(template, part, deep_xml()),
    }
