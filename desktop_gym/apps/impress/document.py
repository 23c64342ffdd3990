"""ImpressTools, part 4: slide transitions, speaker notes and saving."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from desktop_gym.guest.apps.tool_schema import ApiArgumentError, slow

from .common import ImpressBase

SAVE_CALL_TIMEOUT_S = 30.0  # a save (the export filter runs in the call): seconds the guest lets it run

TransitionName = Literal["none", "fade", "push", "wipe", "cover", "dissolve", "split", "random_bars", "circle", "zoom"]
_TRANSITIONS: dict[str, tuple[str, str]] = {
    # effect -> (css.animations.TransitionType, TransitionSubType); each exports to the PowerPoint
    # transition of the same name (<p:fade/>, <p:push/>, ...).
    "fade": ("FADE", "CROSSFADE"),
    "push": ("PUSHWIPE", "FROMRIGHT"),
    "wipe": ("BARWIPE", "LEFTTORIGHT"),
    "cover": ("SLIDEWIPE", "FROMRIGHT"),
    "dissolve": ("DISSOLVE", "DEFAULT"),
    "split": ("BARNDOORWIPE", "VERTICAL"),
    "random_bars": ("RANDOMBARWIPE", "VERTICAL"),
    "circle": ("ELLIPSEWIPE", "CIRCLE"),
    "zoom": ("IRISWIPE", "RECTANGLE"),
}
_SAVE_FORMATS = (".pptx", ".odp", ".ppt", ".pdf")


class ImpressDocumentTools(ImpressBase):
    """Transitions, speaker notes, saving (mixed into ``ImpressTools``)."""

    def set_transition(self, slide: int | None, effect: TransitionName, duration_s: float = 1.0) -> str:
        """Set the transition effect shown when a slide appears in the slide show.

        Args:
            slide: The slide number (1 = first), or None for every slide.
            effect: "none", "fade", "push", "wipe", "cover", "dissolve", "split", "random_bars",
                "circle" or "zoom".
            duration_s: How long the effect lasts, in seconds.

        Returns:
            A confirmation.
        """
        import uno

        if not 0.1 <= duration_s <= 60:
            raise ApiArgumentError(f"duration_s must be between 0.1 and 60 seconds, got {duration_s:g}")
        pages = (
            [self._slide(slide)]
            if slide is not None
            else [self._pages.getByIndex(index) for index in range(self._pages.getCount())]
        )
        kind, subtype = _TRANSITIONS.get(effect, ("", ""))
        for page in pages:
            if effect == "none":
                page.TransitionType = 0
                page.TransitionSubtype = 0
                continue
            page.TransitionType = uno.getConstantByName(f"com.sun.star.animations.TransitionType.{kind}")
            page.TransitionSubtype = uno.getConstantByName(f"com.sun.star.animations.TransitionSubType.{subtype}")
            page.TransitionDuration = float(duration_s)
        where = f"slide {slide}" if slide is not None else "every slide"
        return f"transition of {where} set to {effect}"

    def set_speaker_notes(self, slide: int, text: str) -> str:
        """Replace the speaker notes of a slide (shown to the presenter, not on the slide).

        Args:
            slide: The slide number (1 = first).
            text: The notes; "\\n" starts a new paragraph; "" clears them.

        Returns:
            A confirmation.
        """
        self._notes_shape(slide, create=True).setString(text)
        return f"speaker notes of slide {slide} set"

    def get_speaker_notes(self, slide: int) -> str:
        """Read the speaker notes of a slide.

        Args:
            slide: The slide number (1 = first).

        Returns:
            The notes text ("" if there are none); paragraphs separated by "\\n".
        """
        shape = self._notes_shape(slide, create=False)
        if shape is None or shape.IsEmptyPresentationObject:
            return ""
        return shape.getString().replace("\r\n", "\n").replace("\r", "\n")

    def _notes_shape(self, slide: int, create: bool):  # noqa: ANN202 - a UNO shape
        notes_page = self._slide(slide).getNotesPage()
        shape = self._placeholder(notes_page, "notes")
        if shape is None and create:
            shape = self.document.createInstance("com.sun.star.presentation.NotesShape")
            notes_page.add(shape)
        return shape

    @slow(SAVE_CALL_TIMEOUT_S)
    def save(self, path: str | None = None, file_format: Literal["keep", "pptx", "odp", "pdf"] = "keep") -> str:
        """Save the presentation: in place, as a new file (Save As), or exported as PDF.

        Args:
            path: None to save beside the current file; else an absolute path (or "~/...") ending
                in .pptx, .odp, .ppt or .pdf, whose suffix chooses the format.
            file_format: With path None: "keep" saves in place in the current format; "pptx",
                "odp" or "pdf" write the current file's name with that suffix. With a path it
                must be "keep" or match the path's suffix.

        Returns:
            The path saved to.
        """
        from desktop_gym.guest.apps.uno_bridge import filter_for, property_values

        if path is None:
            if not self.document.hasLocation():
                raise ApiArgumentError("path: the presentation has never been saved; give a path to save it to")
            current = Path(_file_path(self.document.getLocation()))
            if file_format == "keep":
                self.document.store()
                return current.as_posix()
            target = current.with_suffix(f".{file_format}")
        else:
            target = self._path(path)
            if target.suffix.lower() not in _SAVE_FORMATS:
                raise ApiArgumentError(f"path must end in one of {', '.join(_SAVE_FORMATS)}, got {path!r}")
            if file_format not in ("keep", target.suffix.lower()[1:]):
                raise ApiArgumentError(f"file_format {file_format!r} does not match the suffix of path {path!r}")
        if not target.parent.is_dir():
            raise ApiArgumentError(f"path: the folder {str(target.parent)!r} does not exist")
        descriptor = property_values(FilterName=filter_for(target, self.document), Overwrite=True)
        if target.suffix.lower() == ".pdf":  # an export: the document stays what it was
            self.document.storeToURL(target.as_uri(), descriptor)
        else:
            self.document.storeAsURL(target.as_uri(), descriptor)
        return str(target)


def _file_path(url: str) -> str:
    import uno

    return uno.fileUrlToSystemPath(url)
