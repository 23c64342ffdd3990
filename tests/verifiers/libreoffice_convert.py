"""Converting documents with real headless LibreOffice, for verifier tests on what it writes."""

from __future__ import annotations

import io
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from desktop_gym.guest.apps import lo_profile

SOFFICE = shutil.which("soffice")


def convert(sources: list[Path], target_format: str, workdir: Path, timeout: float = 120.0) -> dict[str, bytes]:
    """Convert ``sources`` in one soffice run; returns output file name -> bytes.

    Args:
        sources: input files (their basenames must differ).
        target_format: a ``--convert-to`` argument (``"xlsx"``, ``"docx:MS Word 2007 XML"``).
        workdir: scratch folder; gets a private LibreOffice profile (a copy of the template) and ``out/``.
        timeout: seconds soffice may take.
    """
    if SOFFICE is None:
        pytest.skip("LibreOffice (soffice) is not installed")
    out = workdir / "out"
    out.mkdir(parents=True, exist_ok=True)
    # A copy of the episodes' profile template (lo_profile): soffice starts ~2x faster on it than on
    # a blank profile it has to create first. A second conversion in the same workdir reuses it.
    profile_dir = workdir / "profile"
    profile = profile_dir.as_uri() if profile_dir.exists() else lo_profile.fresh_profile(profile_dir)
    command = [
        SOFFICE,
        f"-env:UserInstallation={profile}",
        "--headless",
        "--norestore",
        "--convert-to",
        target_format,
        "--outdir",
        str(out),
        *map(str, sources),
    ]
    completed = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)
    produced = {path.name: path.read_bytes() for path in out.iterdir()}
    if len(produced) < len(sources):
        raise RuntimeError(
            f"soffice converted {sorted(produced)} of {[s.name for s in sources]}: "
            f"{completed.stdout} {completed.stderr}"
        )
    return produced


def saved_bytes(document: Any) -> bytes:
    """What python-docx, python-pptx or openpyxl writes for ``document`` (anything with ``save(file)``)."""
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


def resaved(workdir: Path, name: str, data: bytes, target_format: str) -> bytes:
    """``data`` written as ``workdir/name`` and re-saved by real LibreOffice as ``target_format`` (same name)."""
    (workdir / name).write_bytes(data)
    return convert([workdir / name], target_format, workdir)[name]


def resaved_fixture(build: Callable[[], bytes], name: str, target_format: str, what: str) -> Callable[..., bytes]:
    """A module-scoped fixture: what ``build`` writes, re-saved once by real LibreOffice (see :func:`resaved`).

    Args:
        build: makes the document's bytes.
        name: its file name (the suffix tells LibreOffice the type).
        target_format: a ``--convert-to`` argument.
        what: the fixture's docstring (what it is).
    """

    @pytest.fixture(scope="module")
    def fixture(tmp_path_factory: pytest.TempPathFactory) -> bytes:
        return resaved(tmp_path_factory.mktemp("lo_" + Path(name).suffix[1:]), name, build(), target_format)

    fixture.__doc__ = what
    return fixture
