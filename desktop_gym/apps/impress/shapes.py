"""ImpressTools, part 3: shapes on a slide -- list, images, rectangles/ellipses, position, fill, delete."""

from __future__ import annotations

from typing import Any, Literal

from desktop_gym.guest.apps.tool_schema import ApiArgumentError

from ..values import parse_color
from .common import ImpressBase, check_length, place, shape_kind, shape_text, to_cm

_SHAPE_SERVICES = {"rectangle": "com.sun.star.drawing.RectangleShape", "ellipse": "com.sun.star.drawing.EllipseShape"}
_IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".gif", ".bmp", ".svg", ".tif", ".tiff", ".webp")


class ImpressShapeTools(ImpressBase):
    """Shapes on slides (mixed into ``ImpressTools``)."""

    def get_shapes(self, slide: int) -> list[dict[str, Any]]:
        """List the shapes of a slide with their kind, text, position and size.

        Args:
            slide: The slide number (1 = first).

        Returns:
            One entry per shape, back to front: {"shape": number (1-based), "kind": "title" | "subtitle" |
            "body" | "text_box" | "rectangle" | "ellipse" | "image" | ..., "name", "text",
            "x_cm", "y_cm", "width_cm", "height_cm"}.
        """
        page = self._slide(slide)
        shapes = []
        for index in range(page.getCount()):
            shape = page.getByIndex(index)
            position, size = shape.getPosition(), shape.getSize()
            shapes.append(
                {
                    "shape": index + 1,
                    "kind": shape_kind(shape),
                    "name": shape.Name if hasattr(shape, "Name") else "",
                    "text": shape_text(shape),
                    "x_cm": to_cm(position.X),
                    "y_cm": to_cm(position.Y),
                    "width_cm": to_cm(size.Width),
                    "height_cm": to_cm(size.Height),
                }
            )
        return shapes

    def insert_image(
        self,
        slide: int,
        path: str,
        x_cm: float = 2.0,
        y_cm: float = 4.0,
        width_cm: float = 10.0,
        height_cm: float | None = None,
    ) -> int:
        """Insert a picture file (PNG, JPEG, GIF, SVG, ...) into a slide; it is embedded in the document.

        Args:
            slide: The slide number (1 = first).
            path: The image file: an absolute path or one starting with "~/".
            x_cm: Distance of the picture's left edge from the slide's left edge, in centimetres.
            y_cm: Distance of the picture's top edge from the slide's top edge, in centimetres.
            width_cm: The picture width in centimetres.
            height_cm: The picture height in centimetres (default: keep the image's aspect ratio).

        Returns:
            The new shape's number on the slide.
        """
        page = self._slide(slide)
        image = self._path(path)
        if not image.is_file():
            raise ApiArgumentError(f"path: no such file {str(image)!r}")
        if image.suffix.lower() not in _IMAGE_SUFFIXES:
            raise ApiArgumentError(f"path must be an image ({', '.join(_IMAGE_SUFFIXES)}), got {path!r}")
        check_length(x_cm, "x_cm")
        check_length(y_cm, "y_cm")
        check_length(width_cm, "width_cm", 0.1)
        if height_cm is not None:
            check_length(height_cm, "height_cm", 0.1)
        shape = self.document.createInstance("com.sun.star.drawing.GraphicObjectShape")
        page.add(shape)
        # Setting GraphicURL loads the file (the document factory offers no GraphicProvider);
        # setting the loaded graphic back makes it embedded rather than linked.
        try:
            shape.GraphicURL = image.as_uri()
            graphic = shape.Graphic
            pixels = graphic.SizePixel if graphic is not None else None
        except Exception:  # noqa: BLE001 - pyuno's RuntimeException for a file that is no image
            pixels = None
        if pixels is None or not pixels.Width or not pixels.Height:
            page.remove(shape)
            raise ApiArgumentError(f"path: LibreOffice cannot read {str(image)!r} as an image")
        shape.Graphic = graphic
        if height_cm is None:
            height_cm = check_length(width_cm * pixels.Height / pixels.Width, "height_cm", 0.1)
        place(shape, x_cm, y_cm, width_cm, height_cm)
        return page.getCount()

    def add_shape(
        self,
        slide: int,
        kind: Literal["rectangle", "ellipse"],
        x_cm: float,
        y_cm: float,
        width_cm: float,
        height_cm: float,
        fill_color: str = "#729FCF",
        text: str = "",
    ) -> int:
        """Draw a rectangle or an ellipse, filled with a colour, optionally with text inside.

        Args:
            slide: The slide number (1 = first).
            kind: "rectangle" or "ellipse".
            x_cm: Distance of the shape's left edge from the slide's left edge, in centimetres.
            y_cm: Distance of the shape's top edge from the slide's top edge, in centimetres.
            width_cm: The width in centimetres.
            height_cm: The height in centimetres.
            fill_color: A hex colour for the inside, e.g. "#FF0000".
            text: Text shown inside the shape ("" for none).

        Returns:
            The new shape's number on the slide.
        """
        import uno

        page = self._slide(slide)
        rgb = parse_color(fill_color, "fill_color")
        check_length(x_cm, "x_cm")
        check_length(y_cm, "y_cm")
        check_length(width_cm, "width_cm", 0.1)
        check_length(height_cm, "height_cm", 0.1)
        shape = self.document.createInstance(_SHAPE_SERVICES[kind])
        page.add(shape)
        place(shape, x_cm, y_cm, width_cm, height_cm)
        shape.FillStyle = uno.Enum("com.sun.star.drawing.FillStyle", "SOLID")
        shape.FillColor = rgb
        if text:
            shape.setString(text)
        return page.getCount()

    def set_shape_position(
        self,
        slide: int,
        shape: int,
        x_cm: float,
        y_cm: float,
        width_cm: float | None = None,
        height_cm: float | None = None,
    ) -> str:
        """Move a shape, and optionally resize it.

        Args:
            slide: The slide number (1 = first).
            shape: The shape number on the slide, as get_shapes lists it (1 = first).
            x_cm: New distance of the left edge from the slide's left edge, in centimetres.
            y_cm: New distance of the top edge from the slide's top edge, in centimetres.
            width_cm: New width in centimetres (default: unchanged).
            height_cm: New height in centimetres (default: unchanged).

        Returns:
            A confirmation.
        """
        target = self._shape(slide, shape)
        check_length(x_cm, "x_cm")
        check_length(y_cm, "y_cm")
        size = target.getSize()
        width = check_length(width_cm, "width_cm", 0.1) if width_cm is not None else size.Width / 1000
        height = check_length(height_cm, "height_cm", 0.1) if height_cm is not None else size.Height / 1000
        place(target, x_cm, y_cm, width, height)
        return f"shape {shape} on slide {slide} placed at ({x_cm:g} cm, {y_cm:g} cm), {width:g} x {height:g} cm"

    def set_shape_fill_color(self, slide: int, shape: int, color: str) -> str:
        """Fill a shape (rectangle, ellipse, text box, placeholder) with a solid colour.

        Args:
            slide: The slide number (1 = first).
            shape: The shape number on the slide, as get_shapes lists it (1 = first).
            color: A hex colour, e.g. "#00FF00".

        Returns:
            A confirmation.
        """
        import uno

        rgb = parse_color(color)
        target = self._shape(slide, shape)
        if not target.getPropertySetInfo().hasPropertyByName("FillColor"):
            raise ApiArgumentError(f"shape {shape} on slide {slide} ({shape_kind(target)}) has no fill")
        target.FillStyle = uno.Enum("com.sun.star.drawing.FillStyle", "SOLID")
        target.FillColor = rgb
        return f"shape {shape} on slide {slide} filled with {color}"

    def delete_shape(self, slide: int, shape: int) -> str:
        """Remove a shape from a slide; the shapes after it move up one number.

        Args:
            slide: The slide number (1 = first).
            shape: The shape number on the slide, as get_shapes lists it (1 = first).

        Returns:
            A confirmation naming what was removed.
        """
        target = self._shape(slide, shape)
        kind, text = shape_kind(target), shape_text(target)
        self._slide(slide).remove(target)
        described = f"{kind} {text[:40]!r}" if text else kind
        return f"deleted shape {shape} ({described}) from slide {slide}"
