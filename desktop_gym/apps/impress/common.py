"""What every part of ``ImpressTools`` shares: the document, slide and shape numbers, units, layouts.

Slides and shapes are numbered from 1, as the slide pane shows them. Lengths are centimetres
(UNO works in 1/100 mm). ``uno`` is imported lazily: the tool classes are also imported where
LibreOffice is absent (the host builds prompts and schemas from them).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from desktop_gym.guest.apps.tool_schema import ApiArgumentError

from ..tools_base import AppTools

LayoutName = Literal["title_slide", "title_content", "title_two_content", "title_only", "centered_text", "blank"]
LAYOUTS: dict[str, int] = {
    "title_slide": 0,  # sd AUTOLAYOUT_TITLE: title + subtitle
    "title_content": 1,  # AUTOLAYOUT_TITLE_CONTENT: title + one outline (bulleted) body
    "title_two_content": 3,  # AUTOLAYOUT_TITLE_2CONTENT: title + two bodies side by side
    "title_only": 19,  # AUTOLAYOUT_TITLE_ONLY
    "blank": 20,  # AUTOLAYOUT_NONE
    "centered_text": 32,  # AUTOLAYOUT_ONLY_TEXT: one centred text placeholder
}
LAYOUT_NAMES = {number: name for name, number in LAYOUTS.items()} | {11: "title_content"}
"""Layout number -> name; PowerPoint's "Title and Content" imports as 11 (AUTOLAYOUT_OBJ), alike to 1."""
MASTER_NAMES = {
    "title_slide": ("Title Slide",),
    "title_content": ("Title and Content", "Title, Content"),
    "title_two_content": ("Two Content", "Title and 2 Content", "Title, 2 Content"),
    "title_only": ("Title Only",),
    "blank": ("Blank", "Blank Slide"),
    "centered_text": ("Centered Text",),
}
"""Master pages that an imported PowerPoint file names after a layout (PowerPoint's slide layouts)."""

_PRESENTATION = "com.sun.star.presentation."
_DRAWING = "com.sun.star.drawing."
SHAPE_KINDS = {
    _PRESENTATION + "TitleTextShape": "title",
    _PRESENTATION + "SubtitleShape": "subtitle",
    _PRESENTATION + "OutlinerShape": "body",
    _PRESENTATION + "NotesShape": "notes",
    _PRESENTATION + "GraphicObjectShape": "image",
    _PRESENTATION + "PageShape": "slide_image",
    _DRAWING + "TextShape": "text_box",
    _DRAWING + "RectangleShape": "rectangle",
    _DRAWING + "EllipseShape": "ellipse",
    _DRAWING + "GraphicObjectShape": "image",
    _DRAWING + "LineShape": "line",
    _DRAWING + "GroupShape": "group",
    _DRAWING + "TableShape": "table",
    _DRAWING + "OLE2Shape": "object",
}
NO_TEXT_KINDS = {"image", "group", "table", "object", "slide_image", "line"}
"""Shape kinds whose text PowerPoint files cannot keep (LibreOffice would accept it on images)."""
_CUSTOM_KINDS = {"rect": "rectangle", "rectangle": "rectangle", "ellipse": "ellipse"}
MAX_CM = 500.0


def to_hmm(cm: float) -> int:
    """Centimetres -> the 1/100 mm UNO uses."""
    return round(cm * 1000)


def to_cm(hmm: int) -> float:
    """1/100 mm -> centimetres, rounded to 0.01 cm."""
    return round(hmm / 1000, 2)


def check_length(value: float, arg: str, minimum: float = 0.0) -> float:
    """``value`` (cm) if it lies in ``[minimum, MAX_CM]``.

    Raises:
        ApiArgumentError: out of range; names ``arg``.
    """
    if not minimum <= value <= MAX_CM:
        raise ApiArgumentError(f"{arg} must be between {minimum:g} and {MAX_CM:g} cm, got {value:g}")
    return value


def place(shape: Any, x_cm: float, y_cm: float, width_cm: float, height_cm: float) -> None:
    """Move and size ``shape``; all lengths in centimetres from the slide's top-left corner."""
    import uno

    shape.setPosition(uno.createUnoStruct("com.sun.star.awt.Point", to_hmm(x_cm), to_hmm(y_cm)))
    shape.setSize(uno.createUnoStruct("com.sun.star.awt.Size", to_hmm(width_cm), to_hmm(height_cm)))


def shape_kind(shape: Any) -> str:
    """A short word for a shape's type: "title", "body", "text_box", "rectangle", "image", ..."""
    shape_type = shape.getShapeType()
    if shape_type == _DRAWING + "CustomShape":
        geometry = {prop.Name: prop.Value for prop in shape.CustomShapeGeometry}
        name = str(geometry.get("Type", "")).removeprefix("ooxml-")
        return _CUSTOM_KINDS.get(name, name or "custom")
    return SHAPE_KINDS.get(shape_type, shape_type.rsplit(".", 1)[-1])


def shape_text(shape: Any) -> str:
    """The text of a shape ("" for shapes without text and for empty placeholders); paragraphs joined by "\\n"."""
    if not hasattr(shape, "getString"):
        return ""
    if _is_empty_placeholder(shape):
        return ""
    return shape.getString().replace("\r\n", "\n").replace("\r", "\n")


def _is_empty_placeholder(shape: Any) -> bool:
    info = shape.getPropertySetInfo()
    return bool(info.hasPropertyByName("IsEmptyPresentationObject") and shape.IsEmptyPresentationObject)


def slide_title(page: Any) -> str:
    """The text of a slide's first title shape ("" if it has none)."""
    for index in range(page.getCount()):
        shape = page.getByIndex(index)
        if shape.getShapeType() == _PRESENTATION + "TitleTextShape":
            return shape_text(shape)
    return ""


def layout_name(page: Any) -> str:
    """The layout of a slide as :data:`LAYOUTS` names it ("layout 12" for others)."""
    number = page.Layout
    return LAYOUT_NAMES.get(number, f"layout {number}")


class ImpressBase(AppTools):
    """The live presentation a tool call acts on.

    Args:
        document: The ``com.sun.star.presentation.PresentationDocument`` shown in the Impress window.
        home: The session home, for paths starting with ``~/`` (default: ``$HOME``).
    """

    # getPresentation is Impress-only.
    document_check = ("getPresentation", "a presentation (open one in Impress)")

    @property
    def _pages(self) -> Any:
        return self.document.getDrawPages()

    def _slide(self, slide: int, arg: str = "slide") -> Any:
        """The draw page of 1-based slide number ``slide``.

        Raises:
            ApiArgumentError: no such slide; says how many there are.
        """
        pages = self._pages
        count = pages.getCount()
        if not 1 <= slide <= count:
            raise ApiArgumentError(f"{arg} must be a slide number from 1 to {count}, got {slide}")
        return pages.getByIndex(slide - 1)

    def _shape(self, slide: int, shape: int) -> Any:
        """Shape number ``shape`` (1-based, as ``get_shapes`` lists them) on slide ``slide``.

        Raises:
            ApiArgumentError: no such slide or shape.
        """
        page = self._slide(slide)
        count = page.getCount()
        if not 1 <= shape <= count:
            if count == 0:
                raise ApiArgumentError(f"shape: slide {slide} has no shapes")
            raise ApiArgumentError(f"shape must be a shape number from 1 to {count} on slide {slide}, got {shape}")
        return page.getByIndex(shape - 1)

    def _text_shape(self, slide: int, shape: int) -> Any:
        """Like :meth:`_shape`, for a shape that holds text.

        Raises:
            ApiArgumentError: the shape cannot hold text (an image, a line, ...).
        """
        found = self._shape(slide, shape)
        kind = shape_kind(found)
        if kind in NO_TEXT_KINDS or not hasattr(found, "getText"):
            raise ApiArgumentError(f"shape {shape} on slide {slide} ({kind}) holds no text")
        return found

    def _placeholder(self, page: Any, kind: str) -> Any | None:
        """The first shape of ``kind`` ("title", "subtitle", "body", "notes") on ``page``, if any."""
        for index in range(page.getCount()):
            shape = page.getByIndex(index)
            if SHAPE_KINDS.get(shape.getShapeType()) == kind:
                return shape
        return None

    def _path(self, path: str, arg: str = "path") -> Path:
        """``path`` as an absolute path (``~/`` is the session home).

        Raises:
            ApiArgumentError: a relative path.
        """
        target = self.home / path[2:] if path.startswith("~/") else Path(path)
        if not target.is_absolute():
            raise ApiArgumentError(f"{arg} must be absolute or start with '~/', got {path!r}")
        return target

    def _apply_layout(self, page: Any, layout: str) -> None:
        """Give ``page`` the placeholders of ``layout``, and the master named after it if there is one.

        A presentation imported from PowerPoint keeps each used slide layout as a master page with
        that layout's placeholder geometry and styles; without switching master, a title-and-content
        slide made after a title slide would get the title slide's big centred title area.
        """
        masters = self.document.getMasterPages()
        names = {masters.getByIndex(index).Name: index for index in range(masters.getCount())}
        for name in MASTER_NAMES[layout]:
            if name in names:
                page.MasterPage = masters.getByIndex(names[name])
                break
        page.Layout = LAYOUTS[layout]

    def _slide_size_hmm(self) -> tuple[int, int]:
        page = self._pages.getByIndex(0)
        return page.Width, page.Height
