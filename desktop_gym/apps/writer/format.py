"""WriterTools, part 2: character formats, alignment, spacing, paragraph styles, headings, lists.

Character formats act on ``match_text`` occurrences, a paragraph, or the whole text; they are
direct formatting, as the toolbar buttons apply it.
"""

from __future__ import annotations

from typing import Literal

from desktop_gym.guest.apps.tool_schema import ApiArgumentError

from ..values import check_font_size, parse_color
from .common import WriterBase, target_text

_BOLD, _NORMAL = 150.0, 100.0  # com.sun.star.awt.FontWeight.BOLD / NORMAL
_UNDERLINE_SINGLE, _UNDERLINE_NONE = 1, 0  # com.sun.star.awt.FontUnderline
_ITALIC, _UPRIGHT = "ITALIC", "NONE"  # com.sun.star.awt.FontSlant
_ALIGNMENTS = {"left": "LEFT", "center": "CENTER", "right": "RIGHT", "justify": "BLOCK"}
_LIST_STYLES = {"bullet": "List 1", "numbered": "Numbering 123", "none": ""}
MAX_HEADING_LEVEL = 10
Alignment = Literal["left", "center", "right", "justify"]


class WriterFormatTools(WriterBase):
    """Fonts, emphasis, alignment, spacing, styles, headings, lists (mixed into ``WriterTools``)."""

    def _set_char(self, paragraph: int | None, match_text: str | None, **properties: object) -> str:
        targets = self._text_targets(paragraph, match_text)
        for target in targets:
            for name, value in properties.items():
                target.setPropertyValue(name, value)
        return target_text(paragraph, match_text, len(targets))

    def set_font_name(self, font_name: str, paragraph: int | None = None, match_text: str | None = None) -> str:
        """Set the font family of text, e.g. "Liberation Serif".

        Args:
            font_name: The font family name.
            paragraph: Only this paragraph (index); default: the whole text.
            match_text: Only the occurrences of this exact text (case-sensitive), within paragraph if given.

        Returns:
            What was changed.
        """
        if not font_name.strip():
            raise ApiArgumentError("font_name must not be empty")
        where = self._set_char(paragraph, match_text, CharFontName=font_name)
        return f"font of {where} set to {font_name!r}"

    def set_font_size(self, size: float, paragraph: int | None = None, match_text: str | None = None) -> str:
        """Set the font size of text in points.

        Args:
            size: The size in points, e.g. 14.
            paragraph: Only this paragraph (index); default: the whole text.
            match_text: Only the occurrences of this exact text (case-sensitive), within paragraph if given.

        Returns:
            What was changed.
        """
        check_font_size(size)
        where = self._set_char(paragraph, match_text, CharHeight=float(size))
        return f"font size of {where} set to {size:g} pt"

    def set_bold(self, bold: bool = True, paragraph: int | None = None, match_text: str | None = None) -> str:
        """Make text bold (or not bold).

        Args:
            bold: True for bold, False for normal weight.
            paragraph: Only this paragraph (index); default: the whole text.
            match_text: Only the occurrences of this exact text (case-sensitive), within paragraph if given.

        Returns:
            What was changed.
        """
        where = self._set_char(paragraph, match_text, CharWeight=_BOLD if bold else _NORMAL)
        return f"{where} {'bold' if bold else 'not bold'}"

    def set_italic(self, italic: bool = True, paragraph: int | None = None, match_text: str | None = None) -> str:
        """Make text italic (or upright).

        Args:
            italic: True for italic, False for upright.
            paragraph: Only this paragraph (index); default: the whole text.
            match_text: Only the occurrences of this exact text (case-sensitive), within paragraph if given.

        Returns:
            What was changed.
        """
        import uno

        slant = uno.Enum("com.sun.star.awt.FontSlant", _ITALIC if italic else _UPRIGHT)
        where = self._set_char(paragraph, match_text, CharPosture=slant)
        return f"{where} {'italic' if italic else 'upright'}"

    def set_underline(self, underline: bool = True, paragraph: int | None = None, match_text: str | None = None) -> str:
        """Underline text with a single line (or remove the underline).

        Args:
            underline: True to underline, False to remove it.
            paragraph: Only this paragraph (index); default: the whole text.
            match_text: Only the occurrences of this exact text (case-sensitive), within paragraph if given.

        Returns:
            What was changed.
        """
        where = self._set_char(paragraph, match_text, CharUnderline=_UNDERLINE_SINGLE if underline else _UNDERLINE_NONE)
        return f"{where} {'underlined' if underline else 'not underlined'}"

    def set_font_color(self, color: str, paragraph: int | None = None, match_text: str | None = None) -> str:
        """Set the colour of text.

        Args:
            color: A hex colour, e.g. "#FF0000".
            paragraph: Only this paragraph (index); default: the whole text.
            match_text: Only the occurrences of this exact text (case-sensitive), within paragraph if given.

        Returns:
            What was changed.
        """
        where = self._set_char(paragraph, match_text, CharColor=parse_color(color))
        return f"text colour of {where} set to {color}"

    def set_alignment(self, alignment: Alignment, paragraph: int | None = None) -> str:
        """Align paragraphs left, centred, right or justified.

        Args:
            alignment: "left", "center", "right" or "justify".
            paragraph: Only this paragraph (index); default: every paragraph.

        Returns:
            A confirmation.
        """
        import uno

        adjust = uno.Enum("com.sun.star.style.ParagraphAdjust", _ALIGNMENTS[alignment])
        targets = self._paragraph_targets(paragraph)
        for target in targets:
            target.ParaAdjust = adjust
        return f"{alignment} alignment for {target_text(paragraph, None, len(targets))}"

    def set_line_spacing(self, spacing: float, paragraph: int | None = None) -> str:
        """Set proportional line spacing: 1 = single, 1.5, 2 = double.

        Args:
            spacing: The spacing as a multiple of single spacing, from 0.5 to 4.
            paragraph: Only this paragraph (index); default: every paragraph.

        Returns:
            A confirmation.
        """
        import uno

        if not 0.5 <= spacing <= 4:
            raise ApiArgumentError(f"spacing must be between 0.5 and 4 (1 = single), got {spacing:g}")
        line_spacing = uno.createUnoStruct("com.sun.star.style.LineSpacing")
        line_spacing.Mode = 0  # com.sun.star.style.LineSpacingMode.PROP
        line_spacing.Height = round(spacing * 100)
        targets = self._paragraph_targets(paragraph)
        for target in targets:
            target.ParaLineSpacing = line_spacing
        return f"line spacing {spacing:g} for {target_text(paragraph, None, len(targets))}"

    def set_paragraph_style(self, paragraph: int, style: str) -> str:
        """Apply a paragraph style, e.g. "Heading 2", "Title", "Quotations", "Text Body".

        Args:
            paragraph: The paragraph's index (-1 = the last one).
            style: The style's name as shown in the Styles list (case does not matter).

        Returns:
            The style applied (its name in the document).
        """
        target = self._paragraph(paragraph)
        name = self._style_name(style)
        target.ParaStyleName = name
        return f"paragraph {paragraph} has style {name!r}"

    def set_heading(self, paragraph: int, level: int = 1) -> str:
        """Make a paragraph a heading ("Heading 1" style for level 1, and so on).

        Args:
            paragraph: The paragraph's index (-1 = the last one).
            level: The heading level, 1 (top) to 10.

        Returns:
            A confirmation.
        """
        if not 1 <= level <= MAX_HEADING_LEVEL:
            raise ApiArgumentError(f"level must be between 1 and {MAX_HEADING_LEVEL}, got {level}")
        self._paragraph(paragraph).ParaStyleName = f"Heading {level}"
        return f"paragraph {paragraph} is now a level-{level} heading"

    def set_list(
        self,
        first_paragraph: int,
        last_paragraph: int | None = None,
        list_type: Literal["bullet", "numbered", "none"] = "bullet",
    ) -> str:
        """Turn consecutive paragraphs into a bulleted or numbered list (or back into plain paragraphs).

        Args:
            first_paragraph: The index of the first paragraph of the list.
            last_paragraph: The index of the last one (default: first_paragraph alone).
            list_type: "bullet", "numbered", or "none" to remove list formatting.

        Returns:
            A confirmation.
        """
        start = self._position(first_paragraph, "first_paragraph")
        end = start if last_paragraph is None else self._position(last_paragraph, "last_paragraph")
        if end < start:
            raise ApiArgumentError(
                f"last_paragraph ({last_paragraph}) comes before first_paragraph ({first_paragraph})"
            )
        cursor = self._paragraph(start)
        for position in range(start, end + 1):
            if position > start:  # one cursor moved on: tables between paragraphs are skipped
                cursor.gotoNextParagraph(False)
                cursor.gotoEndOfParagraph(True)
            cursor.NumberingStyleName = _LIST_STYLES[list_type]
        kind = "not a list" if list_type == "none" else f"a {list_type} list"
        return f"paragraphs {start}-{end} are {kind}"
