"""Verifiers comparing an archive (zip or tar, any compression) with a gold one, member by member."""

from __future__ import annotations

import hashlib
import io
import zipfile
from collections.abc import Mapping

from ._limits import MAX_PACKAGE_ENTRIES, check_package
from ._load import DocumentError, require
from .archives import _member_path, tar_members
from .registry import register_verifier
from .result import VerifierResult

ZIP_MAGIC = b"PK\x03\x04"
MAX_MEMBER_BYTES = 64 * 1024 * 1024


def archive_digests(data: bytes | None) -> dict[str, str]:
    """Each file member's normalised path -> the sha256 of its bytes (folders left out).

    Raises:
        DocumentError: the file is missing, not an archive, or over the reading bounds.
    """
    data = require(data, "archive")
    if not data.startswith(ZIP_MAGIC):
        import tarfile

        from ._limits import decompress_bounded

        members = tar_members(data)
        digests = {}
        with tarfile.open(fileobj=io.BytesIO(decompress_bounded(data, "tar archive")), mode="r:") as archive:
            for info in archive.getmembers():
                path = _member_path(info.name)
                if info.isfile() and members.get(path) is not None:
                    handle = archive.extractfile(info)
                    digests[path] = hashlib.sha256(handle.read(MAX_MEMBER_BYTES) if handle else b"").hexdigest()
        return digests
    check_package(data, "zip archive")  # entry count, sizes and ratios within bounds before reading
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            infos = [info for info in archive.infolist() if not info.is_dir()][:MAX_PACKAGE_ENTRIES]
            return {_member_path(i.filename): hashlib.sha256(archive.read(i)).hexdigest() for i in infos}
    except (zipfile.BadZipFile, OSError, RuntimeError) as error:  # RuntimeError: an encrypted member
        raise DocumentError(f"the file is not a readable zip archive: {error}", "unreadable") from error


@register_verifier("archive_members", reads="file")
def verify_archive_members(
    data: bytes | None, expected: Mapping[str, str | None], allow_extra: bool = False
) -> VerifierResult:
    """Check an archive's file members: their paths and, where a digest is given, their bytes.

    Args:
        data: the archive's bytes (zip, or tar with any compression), None when it does not exist.
        expected: member path -> sha256 hex digest of its bytes, or None to check only that it exists.
        allow_extra: other file members may exist too.
    """
    found = archive_digests(data)
    missing = sorted(path for path in expected if _member_path(path) not in found)
    if missing:
        return VerifierResult.failed(f"missing member(s): {', '.join(missing[:10])}", missing=missing[:100])
    wanted = {_member_path(path) for path in expected}
    extra = sorted(set(found) - wanted)
    if extra and not allow_extra:
        return VerifierResult.failed(f"unexpected member(s): {', '.join(extra[:10])}", extra=extra[:100])
    changed = sorted(p for p, d in expected.items() if d is not None and found[_member_path(p)] != d.lower())
    if changed:
        return VerifierResult.failed(f"member(s) with other content: {', '.join(changed[:10])}", changed=changed[:100])
    return VerifierResult.passed(f"{len(wanted)} member(s) as expected")
