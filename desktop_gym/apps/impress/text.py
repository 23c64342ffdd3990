"""ImpressTools, part 2: text -- placeholders, text boxes, fonts, bullet lists, alignment."""

from __future__ import annotations

from typing import Any, Literal

from desktop_gym.guest.apps.tool_schema import ApiArgumentError

from ..values import check_font_size, parse_color
from .common import ImpressBase, check_length, place

PlaceholderName = Literal["title", "subtitle", "body"]
Alignment = Literal["left", "center", "right", "justify"]
_BOLD, _NORMAL = 150.0, 100.0  # com.sun.star.awt.FontWeight.BOLD / NORMAL
_ALIGNMENTS = {"left": "LEFT", "center": "CENTER", "right": "RIGHT", "justify": "BLOCK"}


class ImpressTextTools(ImpressBase):
    """Text in placeholders and text boxes, and its formatting (mixed into ``ImpressTools``)."""

    def set_placeholder_text(self, slide: int, placeholder: PlaceholderName, text: str) -> str:
        """Replace the text of a slide's title, subtitle or body placeholder.

        Args:
            slide: The slide number (1 = first).
            placeholder: "title", "subtitle" (title slides) or "body" (the content area; each line
                becomes one bullet point).
            text: The new text; "\\n" starts a new paragraph.

        Returns:
            A confirmation.
        """
        page = self._slide(slide)
        shape = self._placeholder(page, placeholder)
        if shape is None:
            raise ApiArgumentError(
                f"placeholder: slide {slide} has no {placeholder} placeholder; change its layout with "
                "set_slide_layout or use add_text_box"
            )
        shape.setString(text)
        if placeholder == "body":  # a new slide's body in an imported deck starts without bullets
            for paragraph in _paragraphs(shape):
                _set_bullet(paragraph, True)
        return f"slide {slide} {placeholder} text set"

    def add_text_box(
        self,
        slide: int,
        text: str,
        x_cm: float = 2.0,
        y_cm: float = 5.0,
        width_cm: float = 10.0,
        height_cm: float = 2.0,
    ) -> int:
        """Add a text box to a slide.

        Args:
            slide: The slide number (1 = first).
            text: The text; "\\n" starts a new paragraph.
            x_cm: Distance of the box's left edge from the slide's left edge, in centimetres.
            y_cm: Distance of the box's top edge from the slide's top edge, in centimetres.
            width_cm: The box width in centimetres.
            height_cm: The box height in centimetres (the box grows to fit its text).

        Returns:
            The new shape's number on the slide (for get_shapes, set_font_size, ...).
        """
        page = self._slide(slide)
        check_length(x_cm, "x_cm")
        check_length(y_cm, "y_cm")
        check_length(width_cm, "width_cm", 0.1)
        check_length(height_cm, "height_cm", 0.1)
        shape = self.document.createInstance("com.sun.star.drawing.TextShape")
        page.add(shape)
        place(shape, x_cm, y_cm, width_cm, height_cm)
        shape.TextAutoGrowHeight = True
        shape.setString(text)
        return page.getCount()

    def set_shape_text(self, slide: int, shape: int, text: str) -> str:
        """Replace the text of any shape that holds text (placeholder, text box, rectangle, ...).

        Args:
            slide: The slide number (1 = first).
            shape: The shape number on the slide, as get_shapes lists it (1 = first).
            text: The new text; "\\n" starts a new paragraph.

        Returns:
            A confirmation.
        """
        self._text_shape(slide, shape).setString(text)
        return f"text of shape {shape} on slide {slide} set"

    def set_font_name(self, slide: int, shape: int, font_name: str) -> str:
        """Set the font family of all text in a shape, e.g. "Liberation Serif".

        Args:
            slide: The slide number (1 = first).
            shape: The shape number on the slide, as get_shapes lists it (1 = first).
            font_name: The font family name.

        Returns:
            A confirmation.
        """
        if not font_name.strip():
            raise ApiArgumentError("font_name must not be empty")
        self._format_text(slide, shape, CharFontName=font_name)
        return f"font of shape {shape} on slide {slide} set to {font_name!r}"

    def set_font_size(self, slide: int, shape: int, size: float) -> str:
        """Set the font size of all text in a shape, in points.

        Args:
            slide: The slide number (1 = first).
            shape: The shape number on the slide, as get_shapes lists it (1 = first).
            size: The size in points, e.g. 24.

        Returns:
            A confirmation.
        """
        check_font_size(size)
        self._format_text(slide, shape, CharHeight=float(size))
        return f"font size of shape {shape} on slide {slide} set to {size:g} pt"

    def set_bold(self, slide: int, shape: int, bold: bool = True) -> str:
        """Make all text in a shape bold (or not bold).

        Args:
            slide: The slide number (1 = first).
            shape: The shape number on the slide, as get_shapes lists it (1 = first).
            bold: True for bold, False for normal weight.

        Returns:
            A confirmation.
        """
        self._format_text(slide, shape, CharWeight=_BOLD if bold else _NORMAL)
        return f"shape {shape} on slide {slide} {'bold' if bold else 'not bold'}"

    def set_italic(self, slide: int, shape: int, italic: bool = True) -> str:
        """Make all text in a shape italic (or upright).

        Args:
            slide: The slide number (1 = first).
            shape: The shape number on the slide, as get_shapes lists it (1 = first).
            italic: True for italic, False for upright.

        Returns:
            A confirmation.
        """
        import uno

        posture = uno.Enum("com.sun.star.awt.FontSlant", "ITALIC" if italic else "NONE")
        self._format_text(slide, shape, CharPosture=posture)
        return f"shape {shape} on slide {slide} {'italic' if italic else 'not italic'}"

    def set_font_color(self, slide: int, shape: int, color: str) -> str:
        """Set the colour of all text in a shape.

        Args:
            slide: The slide number (1 = first).
            shape: The shape number on the slide, as get_shapes lists it (1 = first).
            color: A hex colour, e.g. "#FF0000".

        Returns:
            A confirmation.
        """
        self._format_text(slide, shape, CharColor=parse_color(color))
        return f"text colour of shape {shape} on slide {slide} set to {color}"

    def set_bullet_list(self, slide: int, shape: int, items: list[str], bulleted: bool = True) -> str:
        """Replace a shape's text by a list, one paragraph per item, with bullets (or without).

        Args:
            slide: The slide number (1 = first).
            shape: The shape number on the slide, as get_shapes lists it (1 = first).
            items: The list items, in order.
            bulleted: True to show a bullet before each item, False for plain paragraphs.

        Returns:
            A confirmation.
        """
        if not items:
            raise ApiArgumentError("items must hold at least one item")
        if any("\n" in item for item in items):
            raise ApiArgumentError("items: an item must not contain a line break (give each line as its own item)")
        target = self._text_shape(slide, shape)
        target.setString("\n".join(items))
        for paragraph in _paragraphs(target):
            _set_bullet(paragraph, bulleted)
        return f"{len(items)} {'bulleted ' if bulleted else ''}items written to shape {shape} on slide {slide}"

    def set_text_alignment(self, slide: int, shape: int, alignment: Alignment) -> str:
        """Align every paragraph of a shape's text horizontally.

        Args:
            slide: The slide number (1 = first).
            shape: The shape number on the slide, as get_shapes lists it (1 = first).
            alignment: "left", "center", "right" or "justify".

        Returns:
            A confirmation.
        """
        import uno

        target = self._text_shape(slide, shape)
        adjust = uno.Enum("com.sun.star.style.ParagraphAdjust", _ALIGNMENTS[alignment])
        for paragraph in _paragraphs(target):
            paragraph.ParaAdjust = adjust
        return f"text of shape {shape} on slide {slide} aligned {alignment}"

    def _format_text(self, slide: int, shape: int, **properties: Any) -> None:
        """Apply character properties to all of a shape's text, and to text typed into it later."""
        target = self._text_shape(slide, shape)
        cursor = target.getText().createTextCursor()
        cursor.gotoStart(False)
        cursor.gotoEnd(True)
        for name, value in properties.items():
            setattr(cursor, name, value)
            setattr(target, name, value)


def _paragraphs(shape: Any) -> list[Any]:
    enumeration = shape.getText().createEnumeration()
    paragraphs = []
    while enumeration.hasMoreElements():
        paragraphs.append(enumeration.nextElement())
    return paragraphs


def _set_bullet(paragraph: Any, bulleted: bool) -> None:
    # Outline depth -1 means "no bullet" in Impress; depth 0 shows the first level's bullet.
    paragraph.NumberingLevel = 0 if bulleted else -1
    paragraph.NumberingIsNumber = bulleted
