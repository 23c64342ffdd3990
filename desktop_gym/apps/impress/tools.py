"""``ImpressTools``: the LibreOffice Impress API the agent calls, acting on the live presentation over UNO.

The methods live in four parts by topic (``impress_slides``, ``impress_text``, ``impress_shapes``,
``impress_document``); this class joins them and adds :meth:`ImpressTools.summary`, the
``app_info`` text of the observation (not a tool). Each call gets a fresh instance bound to the
current document, inside ``UnoConnection.call`` (see :mod:`desktop_gym.guest.apps.registry`);
every change goes through the document model, so the Impress window repaints it at once.
"""

from __future__ import annotations

from desktop_gym.guest.apps.tool_schema import ApiArgumentError, not_a_tool

from .common import layout_name, slide_title
from .document import ImpressDocumentTools
from .shapes import ImpressShapeTools
from .slides import ImpressSlideTools
from .text import ImpressTextTools

TITLE_CHARS = 60


class ImpressTools(ImpressSlideTools, ImpressTextTools, ImpressShapeTools, ImpressDocumentTools):
    """LibreOffice Impress: slides, layouts, titles, text, fonts, bullets, shapes, images, notes, saving.

    Slides and the shapes on a slide are numbered from 1 (get_shapes lists a slide's shapes);
    positions and sizes are in centimetres from the slide's top-left corner.
    """

    @not_a_tool
    def summary(self, max_chars: int = 5000) -> str:
        """The presentation's state as text for the observation: one line per slide.

        Args:
            max_chars: The longest text returned; longer text is cut and ends with "...".

        Returns:
            "Slides: N, current: K", then per slide its number, layout, title and shape count.
        """
        if max_chars < 4:
            raise ApiArgumentError(f"max_chars must be at least 4, got {max_chars}")
        pages = self._pages
        controller = self.document.getCurrentController()
        current = controller.getCurrentPage() if hasattr(controller, "getCurrentPage") else None
        lines = []
        current_number = 0
        for index in range(pages.getCount()):
            page = pages.getByIndex(index)
            if current is not None and page == current:
                current_number = index + 1
            title = slide_title(page).replace("\n", " ")
            if len(title) > TITLE_CHARS:
                title = title[: TITLE_CHARS - 3] + "..."
            lines.append(f"{index + 1}. [{layout_name(page)}] {title!r} ({page.getCount()} shapes)")
        header = f"Slides: {pages.getCount()}" + (f", current: {current_number}" if current_number else "")
        text = "\n".join([header, *lines])
        return text if len(text) <= max_chars else text[: max_chars - 3] + "..."
