"""Verifiers for OS artifacts: tar archives (optionally gzip-compressed) and their members."""

from __future__ import annotations

import io
import posixpath
import tarfile
from collections.abc import Mapping, Sequence
from typing import Literal

from ._limits import MAX_PACKAGE_ENTRIES, decompress_bounded
from ._load import DocumentError, require
from .registry import register_verifier
from .result import VerifierResult

GZIP_MAGIC = b"\x1f\x8b"


def _member_path(name: str) -> str:
    """``./proj/a.txt`` and ``proj/a.txt/`` -> ``proj/a.txt``; ``.`` -> ``""``."""
    path = posixpath.normpath(name.replace("\\", "/").removeprefix("./")).strip("/")
    return "" if path == "." else path


def _with_parents(paths: Sequence[str]) -> set[str]:
    """The paths plus every folder they imply (archives may or may not list folders)."""
    found: set[str] = set()
    for path in paths:
        parts = [part for part in path.split("/") if part]
        found.update("/".join(parts[: i + 1]) for i in range(len(parts)))
    return found


def tar_members(data: bytes | None) -> dict[str, tarfile.TarInfo]:
    """The members of a tar archive (any compression tarfile reads), by normalised path.

    Raises:
        DocumentError: the file is missing or not a tar archive.
    """
    plain = decompress_bounded(require(data, "archive"), "tar archive")
    try:
        with tarfile.open(fileobj=io.BytesIO(plain), mode="r:") as archive:
            members: dict[str, tarfile.TarInfo] = {}
            for info in archive:
                if len(members) >= MAX_PACKAGE_ENTRIES:
                    raise DocumentError(f"the archive has over {MAX_PACKAGE_ENTRIES} members", "unreadable")
                if path := _member_path(info.name):
                    members[path] = info
            return members
    except (tarfile.TarError, EOFError, OSError) as error:
        raise DocumentError(f"the file is not a readable tar archive: {error}", "unreadable") from error


def _read_member(data: bytes, name: str) -> bytes | None:
    with tarfile.open(fileobj=io.BytesIO(decompress_bounded(data, "tar archive")), mode="r:") as archive:
        for info in archive.getmembers():
            if _member_path(info.name) == name and info.isfile():
                handle = archive.extractfile(info)
                return handle.read() if handle is not None else None
    return None


@register_verifier("tar_archive", reads="file")
def verify_tar_archive(
    data: bytes | None,
    expected: Sequence[str],
    contents: Mapping[str, str] | None = None,
    compression: Literal["gzip", "any"] = "gzip",
    allow_extra: bool = False,
) -> VerifierResult:
    """Check a tar archive: its compression, the paths it holds and the text of some members.

    Args:
        data: the archive's bytes, or None when it does not exist.
        expected: the member paths it must hold, e.g. ``["proj/README.md", "proj/src/main.py"]``
            (folders implied by a path need not be listed; a leading ``./`` is ignored).
        contents: member path -> expected text (surrounding whitespace ignored).
        compression: ``"gzip"`` (a ``.tar.gz``) or ``"any"`` (plain tar, gzip, bzip2, xz).
        allow_extra: other members may exist too.
    """
    data = require(data, "archive")
    if compression == "gzip" and not data.startswith(GZIP_MAGIC):
        return VerifierResult.failed(
            "the archive is not a readable gzip-compressed tar (no gzip header)", found=data[:4].hex()
        )
    found = _with_parents(list(tar_members(data)))
    wanted = _with_parents([_member_path(path) for path in expected])
    missing, extra = sorted(wanted - found), sorted(found - wanted)
    if missing or (extra and not allow_extra):
        problems = [f"missing {missing[:10]}"] if missing else []
        if extra and not allow_extra:
            problems.append(f"unexpected {extra[:10]}")
        return VerifierResult.failed(
            f"the archive's members differ: {'; '.join(problems)}",
            score=len(wanted & found) / len(wanted | found),
            missing=missing,
            unexpected=extra,
        )
    for name, text in (contents or {}).items():
        member = _read_member(data, _member_path(name))
        if member is None:
            return VerifierResult.failed(f"the archive has no file {name!r} to compare")
        if member.decode("utf-8", "replace").strip() != text.strip():
            return VerifierResult.failed(
                f"the archive's {name!r} differs: expected {text.strip()[:80]!r}, found "
                f"{member.decode('utf-8', 'replace').strip()[:80]!r}"
            )
    return VerifierResult.passed(f"the archive holds the {len(wanted)} expected paths", found=sorted(found))
