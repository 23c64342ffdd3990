"""Writing task input files reproducibly: the same parameters give the same bytes."""

from __future__ import annotations

import datetime as dt
import io
import zipfile
from collections.abc import Sequence

# Office files carry creation times inside (document properties) and outside (zip entry dates);
# both are pinned so that a seed fully determines a task's files.
FIXED_TIME = dt.datetime(2024, 1, 1, 0, 0, 0)


def normalize_zip(data: bytes) -> bytes:
    """Rewrite a zip container with fixed entry dates, in the original entry order."""
    source = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for info in source.infolist():
            pinned = zipfile.ZipInfo(info.filename, date_time=FIXED_TIME.timetuple()[:6])
            pinned.compress_type = zipfile.ZIP_DEFLATED
            pinned.external_attr = info.external_attr
            target.writestr(pinned, source.read(info.filename))
    return out.getvalue()


def xlsx_bytes(rows: Sequence[Sequence[object]], sheet_title: str = "Sheet1") -> bytes:
    """An xlsx workbook with one sheet holding ``rows`` (the first row is usually a header)."""
    import openpyxl

    workbook = openpyxl.Workbook()
    workbook.properties.created = FIXED_TIME
    workbook.properties.modified = FIXED_TIME
    worksheet = workbook.active
    worksheet.title = sheet_title
    for row in rows:
        worksheet.append(list(row))
    buffer = io.BytesIO()
    workbook.save(buffer)
    return normalize_zip(buffer.getvalue())


def docx_bytes(paragraphs: Sequence[str], heading: str | None = None) -> bytes:
    """A docx document with an optional level-1 heading followed by ``paragraphs``."""
    import docx

    document = docx.Document()
    document.core_properties.created = FIXED_TIME
    document.core_properties.modified = FIXED_TIME
    if heading is not None:
        document.add_heading(heading, level=1)
    for text in paragraphs:
        document.add_paragraph(text)
    buffer = io.BytesIO()
    document.save(buffer)
    return normalize_zip(buffer.getvalue())
