"""WriterTools, part 4: headers, footers, page numbers, page setup, page breaks, saving.

Page settings live in the page style of the first page ("Default Page Style" in most documents),
as Format > Page Style sets them in the GUI.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from desktop_gym.guest.apps.tool_schema import ApiArgumentError, slow

from .common import HMM_PER_CM, WriterBase

SAVE_CALL_TIMEOUT_S = 30.0  # a save (the export filter runs in the call): seconds the guest lets it run

_PAPER_SIZES_HMM = {
    "a3": (29700, 42000),
    "a4": (21000, 29700),
    "a5": (14800, 21000),
    "letter": (21590, 27940),
    "legal": (21590, 35560),
}
"""Portrait (width, height) in 1/100 mm."""
_SAVE_FORMATS = {"docx": ".docx", "odt": ".odt", "pdf": ".pdf", "doc": ".doc", "rtf": ".rtf", "txt": ".txt"}
_FILTERS = {
    ".docx": "MS Word 2007 XML",
    ".odt": "writer8",
    ".pdf": "writer_pdf_Export",
    ".doc": "MS Word 97",
    ".rtf": "Rich Text Format",
    ".txt": "Text",
}
_PARAGRAPH_BREAK = 0  # com.sun.star.text.ControlCharacter.PARAGRAPH_BREAK
_ALIGN = {"left": "LEFT", "center": "CENTER", "right": "RIGHT"}
SaveFormat = Literal["docx", "odt", "pdf", "doc", "rtf", "txt"]


class WriterPageTools(WriterBase):
    """Headers, footers, page numbers, page setup, breaks, saving (mixed into ``WriterTools``)."""

    def _header_or_footer(self, where: str) -> Any:
        style = self._page_style()
        prefix = "Header" if where == "header" else "Footer"
        style.setPropertyValue(f"{prefix}IsOn", True)
        return style.getPropertyValue(f"{prefix}Text")

    def set_header_text(self, text: str) -> str:
        """Set the page header's text on every page (an empty text turns the header off).

        Args:
            text: The header text; it replaces what the header held.

        Returns:
            A confirmation.
        """
        return self._set_margin_text("header", text)

    def set_footer_text(self, text: str) -> str:
        """Set the page footer's text on every page (an empty text turns the footer off).

        Args:
            text: The footer text; it replaces what the footer held (page numbers included).

        Returns:
            A confirmation.
        """
        return self._set_margin_text("footer", text)

    def _set_margin_text(self, where: str, text: str) -> str:
        if not text:
            self._page_style().setPropertyValue("HeaderIsOn" if where == "header" else "FooterIsOn", False)
            return f"{where} turned off"
        self._header_or_footer(where).setString(text)
        return f"{where} text set to {text!r}"

    def insert_page_numbers(
        self,
        position: Literal["footer", "header"] = "footer",
        alignment: Literal["left", "center", "right"] = "center",
    ) -> str:
        """Show the page number on every page, in the footer or the header.

        Args:
            position: "footer" (bottom of the page) or "header" (top).
            alignment: "left", "center" or "right".

        Returns:
            A confirmation.
        """
        import uno

        area = self._header_or_footer(position)
        cursor = area.createTextCursor()
        cursor.gotoEnd(False)
        if area.getString():  # keep the existing text; the number goes on a line of its own
            area.insertControlCharacter(cursor, _PARAGRAPH_BREAK, False)
        field = self.document.createInstance("com.sun.star.text.TextField.PageNumber")
        field.NumberingType = 4  # com.sun.star.style.NumberingType.ARABIC
        field.SubType = uno.Enum("com.sun.star.text.PageNumberType", "CURRENT")
        area.insertTextContent(cursor, field, False)
        cursor.ParaAdjust = uno.Enum("com.sun.star.style.ParagraphAdjust", _ALIGN[alignment])
        return f"page numbers in the {position}, {alignment}"

    def set_page_orientation(self, orientation: Literal["portrait", "landscape"]) -> str:
        """Turn the pages to portrait or landscape (the paper size stays).

        Args:
            orientation: "portrait" or "landscape".

        Returns:
            A confirmation with the page size.
        """
        style = self._page_style()
        width, height = style.Width, style.Height
        landscape = orientation == "landscape"
        if (width > height) != landscape:
            width, height = height, width
        style.IsLandscape = landscape
        style.Width, style.Height = width, height
        return f"pages are {orientation} ({_cm(width)} x {_cm(height)} cm)"

    def set_page_margins(
        self,
        top_cm: float | None = None,
        bottom_cm: float | None = None,
        left_cm: float | None = None,
        right_cm: float | None = None,
    ) -> str:
        """Set page margins in centimetres; margins left out stay as they are.

        Args:
            top_cm: The top margin.
            bottom_cm: The bottom margin.
            left_cm: The left margin.
            right_cm: The right margin.

        Returns:
            The four margins now set.
        """
        given = {"Top": top_cm, "Bottom": bottom_cm, "Left": left_cm, "Right": right_cm}
        if all(value is None for value in given.values()):
            raise ApiArgumentError("set_page_margins(): give at least one of top_cm, bottom_cm, left_cm, right_cm")
        for side, value in given.items():
            if value is not None and not 0 <= value <= 10:
                raise ApiArgumentError(f"{side.lower()}_cm must be between 0 and 10 cm, got {value:g}")
        style = self._page_style()
        for side, value in given.items():
            if value is not None:
                style.setPropertyValue(f"{side}Margin", round(value * HMM_PER_CM))
        now = {side: _cm(style.getPropertyValue(f"{side}Margin")) for side in given}
        return "margins (cm): " + ", ".join(f"{side.lower()} {value}" for side, value in now.items())

    def set_paper_size(self, paper: Literal["a4", "letter", "legal", "a3", "a5"]) -> str:
        """Set the paper size, keeping the orientation.

        Args:
            paper: "a4", "letter", "legal", "a3" or "a5".

        Returns:
            A confirmation with the page size.
        """
        style = self._page_style()
        width, height = _PAPER_SIZES_HMM[paper]
        if style.IsLandscape:
            width, height = height, width
        style.Width, style.Height = width, height
        name = paper.upper() if paper.startswith("a") else paper
        return f"paper {name} ({_cm(width)} x {_cm(height)} cm)"

    def insert_page_break(self, paragraph: int) -> str:
        """Start a paragraph on a new page (a page break before it).

        Args:
            paragraph: The index of the paragraph that begins the new page.

        Returns:
            A confirmation.
        """
        import uno

        self._paragraph(paragraph).BreakType = uno.Enum("com.sun.star.style.BreakType", "PAGE_BEFORE")
        return f"page break before paragraph {paragraph}"

    @slow(SAVE_CALL_TIMEOUT_S)
    def save(self, path: str | None = None, file_format: SaveFormat | None = None) -> str:
        """Save the document: in place in its current format, as a new file, or exported as PDF.

        Args:
            path: None to save where the document is; else an absolute path (or "~/...") whose
                suffix (.docx, .odt, .pdf, .doc, .rtf, .txt) chooses the format.
            file_format: "docx", "odt", "pdf", "doc", "rtf" or "txt"; with no path, the document
                is saved next to its current file under the same name with this suffix.

        Returns:
            The path saved to. After saving as docx/odt/... the document is that file; a PDF is
            only an exported copy.
        """
        from desktop_gym.guest.apps.uno_bridge import property_values

        if path is None and file_format is None:
            if not self.document.hasLocation():
                raise ApiArgumentError("path: the document has never been saved; give a path to save it to")
            self.document.store()
            return _file_path(self.document.getLocation())
        if path is None:
            if not self.document.hasLocation():
                raise ApiArgumentError("path: the document has never been saved; give a path to save it to")
            target = Path(_file_path(self.document.getLocation())).with_suffix(_SAVE_FORMATS[file_format])
        else:
            target = self._resolve_path(path)
            if file_format is not None and target.suffix.lower() != _SAVE_FORMATS[file_format]:
                if target.suffix:
                    raise ApiArgumentError(
                        f"path {path!r} does not end in {_SAVE_FORMATS[file_format]!r} (file_format)"
                    )
                target = target.with_suffix(_SAVE_FORMATS[file_format])
        suffix = target.suffix.lower()
        if suffix not in _FILTERS:
            raise ApiArgumentError(f"path must end in one of {', '.join(_FILTERS)}, got {str(target)!r}")
        descriptor = property_values(FilterName=_FILTERS[suffix], Overwrite=True)
        if suffix == ".pdf":
            self.document.storeToURL(target.as_uri(), descriptor)  # an export: the document stays as it is
        else:
            self.document.storeAsURL(target.as_uri(), descriptor)
        return str(target)


def _cm(length_hmm: int) -> str:
    """1/100 mm -> centimetres to 0.01 (Writer stores lengths in twips: 21000 reads back as 21001)."""
    return f"{round(length_hmm / HMM_PER_CM, 2):g}"


def _file_path(url: str) -> str:
    import uno

    return uno.fileUrlToSystemPath(url)
