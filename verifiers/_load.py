"""Opening saved documents for verifiers: one error type for "missing" and "unreadable".

Loaders are cached on the document bytes, so several checks composed over one saved file parse
it once. Verifiers only read what they load; nothing here may be mutated.
"""

from __future__ import annotations

import functools
import io
import zipfile
from typing import Any, Literal

from ._limits import check_package, check_size
from .result import CheckFailed

Problem = Literal["missing", "unreadable"]

_KIND_NAMES = {
    "xlsx": "xlsx workbook",
    "ods": "ods spreadsheet",
    "docx": "docx document",
    "odt": "odt document",
    "pptx": "pptx presentation",
    "pdf": "PDF document",
}


class DocumentError(CheckFailed):
    """The artifact a verifier reads is missing or cannot be parsed.

    Attributes:
        problem: ``"missing"`` or ``"unreadable"``.
    """

    def __init__(self, message: str, problem: Problem) -> None:
        super().__init__(message, problem=problem)
        self.problem = problem


def require(data: bytes | None, kind: str) -> bytes:
    """``data`` itself, or a ``DocumentError`` saying the ``kind`` file does not exist."""
    if data is None:
        what = _KIND_NAMES.get(kind, kind)
        subject = "the file" if what == "file" else f"the {what} file"  # not "the file file"
        raise DocumentError(f"{subject} does not exist (was it saved?)", "missing")
    check_size(data, _KIND_NAMES.get(kind, kind))
    return data


def require_package(data: bytes | None, kind: str) -> bytes:
    """``require``, then ``check_package``: a zip document within the parsing bounds (``_limits``)."""
    data = require(data, kind)
    check_package(data, _KIND_NAMES.get(kind, kind))
    return data


def unreadable(kind: str, error: BaseException) -> DocumentError:
    """The error for a file that is not a readable ``kind`` document, naming the parser's complaint."""
    detail = str(error).strip() or "no detail"
    return DocumentError(
        f"the file is not a readable {_KIND_NAMES.get(kind, kind)}: {type(error).__name__}: {detail[:300]}",
        "unreadable",
    )


def odf_mimetype(data: bytes) -> str | None:
    """The ``mimetype`` entry of an OpenDocument zip, or None for anything else."""
    if not data.startswith(b"PK"):
        return None
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            if archive.getinfo("mimetype").file_size > 200:
                return None
            return archive.read("mimetype").decode("ascii", "replace").strip()
    except (zipfile.BadZipFile, KeyError, OSError, ValueError, EOFError, NotImplementedError, RuntimeError):
        return None


def is_ods(data: bytes) -> bool:
    """Whether ``data`` is an OpenDocument spreadsheet."""
    return odf_mimetype(data) == "application/vnd.oasis.opendocument.spreadsheet"


def is_odt(data: bytes) -> bool:
    """Whether ``data`` is an OpenDocument text document."""
    return odf_mimetype(data) == "application/vnd.oasis.opendocument.text"


@functools.lru_cache(maxsize=8)
def _xlsx(data: bytes, data_only: bool) -> Any:
    import openpyxl

    return openpyxl.load_workbook(io.BytesIO(data), data_only=data_only)


def open_xlsx(data: bytes | None, *, formulas: bool = False) -> Any:
    """Load an xlsx workbook (openpyxl).

    Args:
        data: the file's bytes, or None when it does not exist.
        formulas: keep formulas as cell values; otherwise read the values the app cached for them,
            i.e. what the user sees.

    Raises:
        DocumentError: missing or unreadable.
    """
    return guarded_read("xlsx", _xlsx, require_package(data, "xlsx"), not formulas)


@functools.lru_cache(maxsize=8)
def _ooxml(kind: str, data: bytes) -> Any:
    """A python-docx document or python-pptx presentation (cached: a task's checks share one parse)."""
    if kind == "docx":
        import docx

        return docx.Document(io.BytesIO(data))
    import pptx

    return pptx.Presentation(io.BytesIO(data))


def open_docx(data: bytes | None) -> Any:
    """Load a docx document (python-docx).

    Raises:
        DocumentError: missing or unreadable.
    """
    return guarded_read("docx", _ooxml, "docx", require_package(data, "docx"))


def open_pptx(data: bytes | None) -> Any:
    """Load a pptx presentation (python-pptx); raises ``DocumentError`` when missing or unreadable."""
    return guarded_read("pptx", _ooxml, "pptx", require_package(data, "pptx"))


@functools.lru_cache(maxsize=8)
def _odf(data: bytes) -> Any:
    from odf.opendocument import load

    return load(io.BytesIO(data))


def open_odf(data: bytes | None, kind: str) -> Any:
    """Load an OpenDocument file (odfpy); ``kind`` ("ods" / "odt") names it in errors.

    Raises:
        DocumentError: missing or unreadable.
    """
    return guarded_read(kind, _odf, require_package(data, kind))


def guarded_read(kind: str, read: Any, *args: Any) -> Any:
    """Call ``read(*args)`` turning any parser exception into ``DocumentError`` for ``kind``.

    python-docx and python-pptx parse some parts lazily, so a malformed part can fail after the
    package opened; verifiers wrap such reads here.
    """
    try:
        return read(*args)
    except CheckFailed:
        raise
    except Exception as error:  # noqa: BLE001 - any parser failure means "not a readable document"
        raise unreadable(kind, error) from error
