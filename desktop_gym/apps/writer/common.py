"""What every part of ``WriterTools`` shares: the document, paragraphs and tables by index, targets.

Paragraphs are numbered as the agent sees them in ``list_paragraphs`` and in the observation's
summary: the body text's paragraphs in order, 0-based, tables skipped (python-docx numbers
``Document.paragraphs`` the same way). Negative numbers count from the end (-1 = the last one).
Tables are numbered in document order, 0-based.

A paragraph is reached with one text cursor that steps paragraph by paragraph (it skips tables
as the numbering does): each step is one cheap UNO round trip, where enumerating the paragraph
objects costs a new UNO proxy each, ~10x slower. ``uno`` is imported lazily: the tool classes
are also imported where LibreOffice is absent (the host builds prompts and schemas from them).
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from desktop_gym.guest.apps.tool_schema import ApiArgumentError

from ..tools_base import AppTools

HMM_PER_CM = 1000  # UNO lengths are in 1/100 mm
_STYLE_ALIASES = {
    "body text": "Text body",  # the display name from LibreOffice 7.6 on, and Word's name
    "normal": "Standard",  # Word's name
    "default paragraph style": "Standard",
    "default": "Standard",
}
"""Other names of built-in paragraph styles (lower case) -> their API names."""


def out_of_range(arg: str, index: int, count: int, what: str = "paragraph") -> ApiArgumentError:
    """The error for ``index`` outside ``count`` items (Python's negative indices allowed)."""
    if count == 0:
        return ApiArgumentError(f"{arg}: the document has no {what}s")
    return ApiArgumentError(
        f"{arg} {index} is out of range: the document has {count} {what}(s), "
        f"numbered 0-{count - 1} (or -1 for the last)"
    )


class WriterBase(AppTools):
    """The live text document a tool call acts on.

    Args:
        document: The ``com.sun.star.text.TextDocument`` (model) shown in the Writer window.
        home: The session home, for paths starting with ``~/`` (default: ``$HOME``).
    """

    document_check = ("getTextTables", "a text document (open one in Writer)")

    def __init__(self, document: Any, home: str | Path | None = None) -> None:
        super().__init__(document, home)
        self.text = document.getText()

    def _start(self) -> Any:
        """A text cursor at the start of the body's first paragraph (after a leading table)."""
        cursor = self.text.createTextCursor()
        cursor.gotoStart(False)
        return cursor

    def _walk(self) -> Iterator[Any]:
        """One cursor selecting each body paragraph in turn (the same object, moved on)."""
        cursor = self._start()
        while True:
            cursor.gotoEndOfParagraph(True)
            yield cursor
            if not cursor.gotoNextParagraph(False):
                return

    def _paragraph_count(self) -> int:
        cursor = self._start()
        count = 1
        while cursor.gotoNextParagraph(False):
            count += 1
        return count

    def _position(self, index: int, arg: str = "paragraph") -> int:
        """``index`` as a position from 0 (negative counts from the end).

        Raises:
            ApiArgumentError: out of range; names ``arg`` and how many paragraphs exist.
        """
        count = self._paragraph_count()
        if not -count <= index < count:
            raise out_of_range(arg, index, count)
        return index % count

    def _paragraph(self, index: int, arg: str = "paragraph") -> Any:
        """A text cursor selecting the whole body paragraph number ``index`` (negative: from the end).

        The cursor takes paragraph and character properties, ``setString`` and ``getStart`` as
        the paragraph itself would.
        """
        position = self._position(index, arg) if index < 0 else index
        cursor = self._start()
        for step in range(position):
            if not cursor.gotoNextParagraph(False):
                raise out_of_range(arg, index, step + 1)
        cursor.gotoEndOfParagraph(True)
        return cursor

    def _whole_text(self) -> Any:
        cursor = self._start()
        cursor.gotoEnd(True)
        return cursor

    def _tables(self) -> list[Any]:
        """The body's tables in document order (the document's table list is in creation order)."""
        import functools

        tables = self.document.getTextTables()
        found = [tables.getByIndex(i) for i in range(tables.getCount())]
        anchors = {table.getName(): table.getAnchor() for table in found}

        def before(first: Any, second: Any) -> int:  # compareRegionStarts: 1 if first comes first
            return -self.text.compareRegionStarts(anchors[first.getName()], anchors[second.getName()])

        return sorted(found, key=functools.cmp_to_key(before))

    def _table(self, index: int, arg: str = "table") -> Any:
        """The table number ``index`` in document order (negative: from the end)."""
        tables = self._tables()
        if not -len(tables) <= index < len(tables):
            raise out_of_range(arg, index, len(tables), "table")
        return tables[index]

    def _paragraph_targets(self, paragraph: int | None) -> list[Any]:
        """One paragraph, or the whole text (every paragraph) when ``paragraph`` is ``None``."""
        return [self._whole_text() if paragraph is None else self._paragraph(paragraph)]

    def _text_targets(self, paragraph: int | None, match_text: str | None) -> list[Any]:
        """Text ranges to format: occurrences of ``match_text`` (in ``paragraph`` if given), else
        the paragraph, else the whole body text.

        Raises:
            ApiArgumentError: ``match_text`` is empty or does not occur where asked.
        """
        if match_text is None:
            if paragraph is not None:
                return [self._paragraph(paragraph)]
            return [self._whole_text()]
        if not match_text:
            raise ApiArgumentError("match_text must not be empty (leave it out to format the whole text)")
        within = self._paragraph(paragraph) if paragraph is not None else None
        descriptor = self.document.createSearchDescriptor()
        descriptor.setSearchString(match_text)
        descriptor.SearchCaseSensitive = True
        found = self.document.findAll(descriptor)
        ranges = [found.getByIndex(i) for i in range(found.getCount())]
        if within is not None:
            ranges = [found_range for found_range in ranges if self._inside(found_range, within)]
        if not ranges:
            where = f" in paragraph {paragraph}" if paragraph is not None else ""
            raise ApiArgumentError(f"match_text {match_text!r} does not occur{where} (the search is case-sensitive)")
        return ranges

    def _inside(self, inner: Any, outer: Any) -> bool:
        if inner.getText() != self.text:  # found in a table, header or frame: not in a body paragraph
            return False
        try:
            return self.text.compareRegionStarts(inner, outer) <= 0 and self.text.compareRegionEnds(inner, outer) >= 0
        except Exception:  # noqa: BLE001 - IllegalArgumentException: ranges in different texts
            return False

    def _style_name(self, style: str, arg: str = "style") -> str:
        """The programmatic name of a paragraph style given by name or display name (any case).

        Raises:
            ApiArgumentError: no such style; names the closest ones.
        """
        styles = self.document.getStyleFamilies().getByName("ParagraphStyles")
        if styles.hasByName(style):
            return style
        names = list(styles.getElementNames())
        by_lower = {name.lower(): name for name in names}
        wanted = _STYLE_ALIASES.get(style.lower(), style).lower()
        if wanted in by_lower:
            return by_lower[wanted]
        # Display names differ from the names in the API for a few built-ins ("Body Text" = "Text body").
        for name in names:
            display = styles.getByName(name).DisplayName
            if display.lower() == style.lower():
                return name
        close = difflib.get_close_matches(style, names, n=3, cutoff=0.5)
        hint = f" (did you mean {' or '.join(repr(c) for c in close)}?)" if close else ""
        raise ApiArgumentError(f"{arg}: no paragraph style named {style!r}{hint}")

    def _page_style(self) -> Any:
        """The page style of the first page (where headers, footers and page setup are set)."""
        styles = self.document.getStyleFamilies().getByName("PageStyles")
        return styles.getByName(self._start().PageStyleName)

    def _resolve_path(self, path: str, arg: str = "path") -> Path:
        """``~/x`` -> the session home; anything else must be absolute.

        Raises:
            ApiArgumentError: a relative path, or a folder that does not exist.
        """
        target = self.home / path[2:] if path.startswith("~/") else Path(path)
        if not target.is_absolute():
            raise ApiArgumentError(f"{arg} must be absolute or start with '~/', got {path!r}")
        if not target.parent.is_dir():
            raise ApiArgumentError(f"{arg}: the folder {str(target.parent)!r} does not exist")
        return target


def target_text(paragraph: int | None, match_text: str | None, count: int) -> str:
    """How a confirmation names what was formatted."""
    if match_text is not None:
        where = f" in paragraph {paragraph}" if paragraph is not None else ""
        return f"{count} occurrence(s) of {match_text!r}{where}"
    return f"paragraph {paragraph}" if paragraph is not None else "the whole text"
