"""ImpressTools, part 1: the slide list -- add, delete, duplicate, move, layout, title, background."""

from __future__ import annotations

from typing import Any

from desktop_gym.guest.apps.tool_schema import ApiArgumentError, ApiCallError

from ..values import parse_color
from .common import ImpressBase, LayoutName, layout_name, place, shape_kind, shape_text


class ImpressSlideTools(ImpressBase):
    """Slides as a whole (mixed into ``ImpressTools``)."""

    def list_slides(self) -> list[dict[str, Any]]:
        """List the slides with their layout, title and texts.

        Returns:
            One entry per slide, first to last: {"slide": number (1-based), "layout": name,
            "title": title text ("" if none), "texts": the other shapes' texts, "shapes": shape count}.
        """
        slides = []
        pages = self._pages
        for index in range(pages.getCount()):
            page = pages.getByIndex(index)
            title, texts = "", []
            for number in range(page.getCount()):
                shape = page.getByIndex(number)
                text = shape_text(shape)
                if shape_kind(shape) == "title" and not title:
                    title = text
                elif text:
                    texts.append(text)
            slides.append(
                {
                    "slide": index + 1,
                    "layout": layout_name(page),
                    "title": title,
                    "texts": texts,
                    "shapes": page.getCount(),
                }
            )
        return slides

    def add_slide(self, position: int | None = None, layout: LayoutName = "title_content", title: str = "") -> int:
        """Insert a new slide.

        Args:
            position: The slide number the new slide gets (1 = first; default: after the last slide).
            layout: "title_slide" (title + subtitle), "title_content" (title + bulleted body),
                "title_two_content", "title_only", "centered_text" or "blank".
            title: Text for the title placeholder (left empty if "").

        Returns:
            The new slide's number.
        """
        pages = self._pages
        count = pages.getCount()
        number = count + 1 if position is None else position
        if not 1 <= number <= count + 1:
            raise ApiArgumentError(f"position must be a slide number from 1 to {count + 1}, got {position}")
        page = pages.insertNewByIndex(number - 2) if number > 1 else self._insert_first()
        self._apply_layout(page, layout)
        if title:
            self.set_title(number, title)
        return number

    def _insert_first(self) -> Any:
        # insertNewByIndex(i) inserts after slide i+1: a new first slide is inserted second, then moved up.
        pages = self._pages
        pages.insertNewByIndex(0)
        self._move_page(2, 1)
        return pages.getByIndex(0)

    def delete_slide(self, slide: int) -> str:
        """Delete a slide and everything on it.

        Args:
            slide: The slide number (1 = first).

        Returns:
            A confirmation.
        """
        page = self._slide(slide)
        if self._pages.getCount() == 1:
            raise ApiArgumentError(f"slide {slide} is the only slide; a presentation keeps at least one")
        self._pages.remove(page)
        return f"deleted slide {slide}"

    def duplicate_slide(self, slide: int) -> int:
        """Copy a slide with all its content; the copy follows the original.

        Args:
            slide: The slide number to copy (1 = first).

        Returns:
            The copy's slide number.
        """
        self.document.duplicate(self._slide(slide))
        return slide + 1

    def move_slide(self, slide: int, new_position: int) -> str:
        """Move a slide to another place in the slide order; the moved slide is then shown.

        Args:
            slide: The slide number to move (1 = first).
            new_position: The number the slide has after the move (1 = first).

        Returns:
            A confirmation.
        """
        page = self._slide(slide)
        self._slide(new_position, "new_position")
        self._move_page(slide, new_position)
        if self._pages.getByIndex(new_position - 1) != page:
            raise ApiCallError(f"Impress did not move slide {slide} (is a slide show or the master view open?)")
        return f"moved slide {slide} to position {new_position}"

    def _move_page(self, slide: int, new_position: int) -> None:
        # UNO has no call that reorders draw pages; the slide sorter's commands do it on the selection.
        if slide == new_position:
            return
        controller = self.document.getCurrentController()
        controller.setCurrentPage(self._pages.getByIndex(slide - 1))
        command = ".uno:MovePageUp" if new_position < slide else ".uno:MovePageDown"
        for _ in range(abs(new_position - slide)):
            _dispatch(controller, command)

    def set_slide_layout(self, slide: int, layout: LayoutName) -> str:
        """Change a slide's layout (its set of placeholders); existing text is kept.

        Args:
            slide: The slide number (1 = first).
            layout: "title_slide" (title + subtitle), "title_content" (title + bulleted body),
                "title_two_content", "title_only", "centered_text" or "blank".

        Returns:
            A confirmation.
        """
        self._apply_layout(self._slide(slide), layout)
        return f"slide {slide} layout set to {layout}"

    def set_title(self, slide: int, title: str) -> str:
        """Set the title text of a slide (a title placeholder is added if the slide has none).

        Args:
            slide: The slide number (1 = first).
            title: The title text.

        Returns:
            A confirmation.
        """
        page = self._slide(slide)
        shape = self._placeholder(page, "title")
        if shape is None:
            shape = self.document.createInstance("com.sun.star.presentation.TitleTextShape")
            page.add(shape)
            width, height = (length / 1000 for length in self._slide_size_hmm())
            place(shape, width * 0.05, height * 0.04, width * 0.9, height * 0.17)
        shape.setString(title)
        return f"slide {slide} title set to {title!r}"

    def go_to_slide(self, slide: int) -> str:
        """Show a slide in the editing view (as clicking it in the slide pane does).

        Args:
            slide: The slide number (1 = first).

        Returns:
            A confirmation.
        """
        self.document.getCurrentController().setCurrentPage(self._slide(slide))
        return f"showing slide {slide}"

    def set_slide_background(self, slide: int, color: str) -> str:
        """Fill a slide's background with a solid colour.

        Args:
            slide: The slide number (1 = first).
            color: A hex colour, e.g. "#FFFF00".

        Returns:
            A confirmation.
        """
        import uno

        rgb = parse_color(color)
        page = self._slide(slide)
        background = self.document.createInstance("com.sun.star.drawing.Background")
        background.FillStyle = uno.Enum("com.sun.star.drawing.FillStyle", "SOLID")
        background.FillColor = rgb
        page.Background = background
        return f"slide {slide} background set to {color}"


def _dispatch(controller: Any, command: str) -> None:
    """Run a ``.uno:`` command on the document's view, as its menu entry would (synchronously)."""
    import uno

    url = uno.createUnoStruct("com.sun.star.util.URL")
    url.Complete = command
    url.Protocol = ".uno:"
    url.Path = command.removeprefix(".uno:")
    dispatch = controller.getFrame().queryDispatch(url, "", 0)
    if dispatch is None:
        raise ApiCallError(f"Impress cannot run {command} in its current view")
    dispatch.dispatch(url, ())
