"""Reading Office Open XML parts straight from the zip, following relationships.

Charts and pivot tables are read this way rather than through openpyxl: openpyxl drops a chart it
cannot parse (with a warning) and loads the whole workbook; reading the parts is exact and fast.
"""

from __future__ import annotations

import functools
import io
import posixpath
import zipfile
from typing import Any

from lxml import etree

from ._load import DocumentError, require_package, unreadable

REL_NS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
PKG_REL_NS = "http://schemas.openxmlformats.org/package/2006/relationships"
SHEET_NS = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
CHART_NS = "http://schemas.openxmlformats.org/drawingml/2006/chart"
DRAWING_NS = "http://schemas.openxmlformats.org/drawingml/2006/main"


class Package:
    """An OOXML zip: parsed parts and their relationships, by part name."""

    def __init__(self, data: bytes) -> None:
        self._zip = zipfile.ZipFile(io.BytesIO(data))
        self._names = set(self._zip.namelist())

    def has(self, part: str) -> bool:
        """Whether the package holds ``part`` (a path without a leading slash)."""
        return part in self._names

    @functools.lru_cache(maxsize=256)  # noqa: B019 - a Package lives as long as its bytes' cache entry
    def xml(self, part: str) -> Any:
        """The parsed XML root of ``part``."""
        parser = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False)
        return etree.fromstring(self._zip.read(part), parser)

    def rels(self, part: str) -> dict[str, tuple[str, str]]:
        """Relationships of ``part``: id -> (type suffix such as ``"chart"``, target part name)."""
        folder, name = posixpath.split(part)
        rels_part = posixpath.join(folder, "_rels", name + ".rels")
        if rels_part not in self._names:
            return {}
        found: dict[str, tuple[str, str]] = {}
        for rel in self.xml(rels_part).iter(f"{{{PKG_REL_NS}}}Relationship"):
            if rel.get("TargetMode") == "External":
                continue
            target = rel.get("Target", "")
            resolved = (
                target.lstrip("/") if target.startswith("/") else posixpath.normpath(posixpath.join(folder, target))
            )
            found[rel.get("Id", "")] = (rel.get("Type", "").rsplit("/", 1)[-1], resolved)
        return found

    def related(self, part: str, rel_type: str) -> list[str]:
        """Target parts of ``part``'s relationships of type ``rel_type`` that exist."""
        return [target for kind, target in self.rels(part).values() if kind == rel_type and target in self._names]

    def sheet_parts(self) -> dict[str, str]:
        """Workbook sheet name -> worksheet part, in workbook order."""
        workbook = "xl/workbook.xml"
        rels = self.rels(workbook)
        sheets: dict[str, str] = {}
        for sheet in self.xml(workbook).iter(f"{{{SHEET_NS}}}sheet"):
            rel = rels.get(sheet.get(f"{{{REL_NS}}}id", ""))
            if rel is not None:
                sheets[sheet.get("name", "")] = rel[1]
        return sheets


@functools.lru_cache(maxsize=8)
def _package(data: bytes) -> Package:
    return Package(data)


def open_package(data: bytes | None, kind: str) -> Package:
    """Open an OOXML package for ``kind`` ("xlsx", "docx", "pptx").

    Raises:
        DocumentError: missing or not a zip.
    """
    data = require_package(data, kind)
    try:
        return _package(data)
    except Exception as error:  # noqa: BLE001 - any failure means "not a readable package"
        raise unreadable(kind, error) from error


def local_name(element: Any) -> str:
    """The tag of ``element`` without its namespace."""
    tag = element.tag
    return tag.rsplit("}", 1)[-1] if isinstance(tag, str) else ""


def texts(element: Any, namespace: str = DRAWING_NS) -> str:
    """All ``<t>`` text under ``element`` (DrawingML rich text), joined."""
    return "".join(t.text or "" for t in element.iter(f"{{{namespace}}}t"))


__all__ = ["DocumentError", "Package", "local_name", "open_package", "texts"]
