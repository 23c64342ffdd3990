"""Writing task input files reproducibly: the same parameters give the same bytes."""

from __future__ import annotations

import datetime as dt
import io
import zipfile
from collections.abc import Mapping, Sequence

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
    return workbook_bytes({sheet_title: rows})


def workbook_bytes(sheets: Mapping[str, Sequence[Sequence[object]]], active: str | None = None) -> bytes:
    """An xlsx workbook with one sheet per entry (in order), deterministic for the same input.

    Args:
        sheets: sheet name -> rows of values (None for blank cells).
        active: the sheet shown on opening; the first when None.
    """
    import openpyxl
    from openpyxl.writer.excel import ExcelWriter

    workbook = openpyxl.Workbook()
    workbook.properties.created = FIXED_TIME
    workbook.properties.modified = FIXED_TIME
    workbook.remove(workbook.active)
    for name, rows in sheets.items():
        worksheet = workbook.create_sheet(name)
        for row in rows:
            worksheet.append(list(row))
    if active is not None:
        workbook.active = list(sheets).index(active)
    buffer = io.BytesIO()
    # Workbook.save() stamps the current time into docProps/core.xml; the writer itself does not.
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        ExcelWriter(workbook, archive).save()
    return normalize_zip(buffer.getvalue())


def docx_bytes(paragraphs: Sequence[str], heading: str | None = None, title: str | None = None) -> bytes:
    """A docx document with an optional level-1 heading followed by ``paragraphs``.

    ``title`` sets the document's Title property (exported to PDF metadata, for instance).
    """
    import docx

    document = docx.Document()
    document.core_properties.created = FIXED_TIME
    document.core_properties.modified = FIXED_TIME
    if title is not None:
        document.core_properties.title = title
    if heading is not None:
        document.add_heading(heading, level=1)
    for text in paragraphs:
        document.add_paragraph(text)
    buffer = io.BytesIO()
    document.save(buffer)
    return normalize_zip(buffer.getvalue())


def pptx_bytes(slides: Sequence[dict[str, object]]) -> bytes:
    """A pptx presentation (python-pptx's default 4:3 template), one slide per entry of ``slides``.

    Each entry may hold ``layout`` (a layout name such as ``"Title and Content"``, default
    ``"Title Only"``), ``title`` (text of the title placeholder), ``body`` (a list of bullet lines
    for the first body placeholder) and ``notes`` (speaker notes text).

    Raises:
        ValueError: a layout name the template does not have.
    """
    import pptx

    presentation = pptx.Presentation()
    props = presentation.core_properties
    props.created = FIXED_TIME
    props.modified = FIXED_TIME
    props.last_modified_by = "desktop-gym"
    props.revision = 1
    layouts = {layout.name: layout for layout in presentation.slide_layouts}
    for spec in slides:
        name = str(spec.get("layout", "Title Only"))
        if name not in layouts:
            raise ValueError(f"unknown slide layout {name!r}; the template has: {', '.join(layouts)}")
        slide = presentation.slides.add_slide(layouts[name])
        if "title" in spec and slide.shapes.title is not None:
            slide.shapes.title.text = str(spec["title"])
        body = [ph for ph in slide.placeholders if ph.placeholder_format.idx == 1]
        if body:
            lines = [str(line) for line in spec.get("body", ())]  # type: ignore[attr-defined]
            if lines:
                body[0].text_frame.text = "\n".join(lines)
            else:  # an empty placeholder would show "Click to add text" and count as a shape
                body[0].element.getparent().remove(body[0].element)
        if spec.get("notes"):
            slide.notes_slide.notes_text_frame.text = str(spec["notes"])
    buffer = io.BytesIO()
    presentation.save(buffer)
    return normalize_zip(buffer.getvalue())
