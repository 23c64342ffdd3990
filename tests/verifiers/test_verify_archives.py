"""The tar archive verifier on real archives written by tarfile (gzip and plain)."""

from __future__ import annotations

import io
import tarfile

from desktop_gym.verifiers import get_verifier_spec
from desktop_gym.verifiers.archives import tar_members, verify_tar_archive

FILES = {"proj/README.md": "# proj\n", "proj/src/main.py": "print(1)\n"}


def archive(files: dict[str, str], mode: str = "w:gz", prefix: str = "") -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode=mode) as tar:
        for name, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(prefix + name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def test_gzip_archive_with_expected_members_and_contents_passes():
    result = verify_tar_archive(archive(FILES), list(FILES), contents=FILES)
    assert result.success, result.reason
    # folders implied by member paths need not be listed, and "./" prefixes are ignored
    assert verify_tar_archive(archive(FILES, prefix="./"), ["proj/src/main.py", "proj/README.md"]).success


def test_plain_tar_fails_gzip_but_passes_any():
    plain = archive(FILES, mode="w")
    failed = verify_tar_archive(plain, list(FILES))
    assert not failed.success and "gzip-compressed" in failed.reason
    assert verify_tar_archive(plain, list(FILES), compression="any").success


def test_missing_extra_member_and_wrong_content_fail():
    missing = verify_tar_archive(archive({"proj/README.md": "# proj\n"}), list(FILES))
    assert not missing.success and "proj/src/main.py" in missing.reason and 0 < missing.score < 1
    extra = verify_tar_archive(archive({**FILES, "proj/.cache": "x"}), list(FILES))
    assert not extra.success and "unexpected" in extra.reason
    assert verify_tar_archive(archive({**FILES, "proj/.cache": "x"}), list(FILES), allow_extra=True).success
    wrong = verify_tar_archive(archive(FILES), list(FILES), contents={"proj/README.md": "# other"})
    assert not wrong.success and "README.md" in wrong.reason
    # the folder itself must be in the archive: its contents alone (tar -C proj .) do not count
    flat = verify_tar_archive(archive({"README.md": "# proj\n", "src/main.py": "print(1)\n"}), list(FILES))
    assert not flat.success


def test_missing_or_broken_file_fails_through_the_registry():
    spec = get_verifier_spec("tar_archive")
    assert spec.reads == "file"
    assert "does not exist" in spec.fn(None, expected=list(FILES)).reason
    broken = spec.fn(b"\x1f\x8bnot really gzip", expected=list(FILES))
    assert not broken.success and "not a readable tar archive" in broken.reason
    assert sorted(tar_members(archive(FILES))) == sorted(FILES)
