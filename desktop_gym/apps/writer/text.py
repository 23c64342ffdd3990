"""WriterTools, part 1: reading text, inserting / replacing / deleting paragraphs, find & replace."""

from __future__ import annotations

from typing import Any, Literal

from desktop_gym.guest.apps.tool_schema import ApiArgumentError

from .common import WriterBase

_PARAGRAPH_BREAK = 0  # com.sun.star.text.ControlCharacter.PARAGRAPH_BREAK


class WriterTextTools(WriterBase):
    """Text and paragraphs, find & replace (mixed into ``WriterTools``)."""

    def get_text(self) -> str:
        """Read the whole text of the document body (paragraphs separated by newlines).

        Returns:
            The body text; table contents are not included (see get_table).
        """
        return "\n".join(paragraph.getString() for paragraph in self._walk())

    def list_paragraphs(self, max_paragraphs: int = 200) -> list[dict[str, Any]]:
        """List the paragraphs with their index, paragraph style and text.

        Args:
            max_paragraphs: The most paragraphs returned, from the first.

        Returns:
            One {"index", "style", "text"} object per paragraph; the index is what other methods
            take as paragraph.
        """
        if max_paragraphs < 1:
            raise ApiArgumentError(f"max_paragraphs must be at least 1, got {max_paragraphs}")
        listed: list[dict[str, Any]] = []
        for index, paragraph in enumerate(self._walk()):
            if index == max_paragraphs:
                break
            listed.append({"index": index, "style": paragraph.ParaStyleName, "text": paragraph.getString()})
        return listed

    def append_paragraph(self, text: str, style: str | None = None) -> str:
        """Add a new paragraph at the end of the document.

        Args:
            text: The paragraph's text.
            style: Its paragraph style, e.g. "Heading 2" (default: the style that follows the
                last paragraph's, as pressing Enter would give).

        Returns:
            The new paragraph's index.
        """
        style_name = self._style_name(style) if style is not None else None
        count = self._paragraph_count()
        last = self._paragraph(count - 1)
        if count == 1 and not last.getString():  # an empty document: fill its one paragraph
            last.setString(text)
            if style_name is not None:
                last.ParaStyleName = style_name
            return "appended paragraph 0"
        if style_name is None:
            style_name = self._follow_style(last.ParaStyleName)
        last.collapseToEnd()
        self.text.insertControlCharacter(last, _PARAGRAPH_BREAK, False)
        self.text.insertString(last, text, False)  # the cursor now stands in the new paragraph
        last.ParaStyleName = style_name
        return f"appended paragraph {count}"

    def insert_paragraph(self, index: int, text: str, style: str | None = None) -> str:
        """Insert a new paragraph before the paragraph at index; it and the ones after move down.

        Args:
            index: Where the new paragraph appears (0 = at the top; -1 = before the last one;
                the number of paragraphs = at the end).
            text: The paragraph's text.
            style: Its paragraph style, e.g. "Heading 1" (default: the style of the paragraph
                now at index).

        Returns:
            The new paragraph's index.
        """
        style_name = self._style_name(style) if style is not None else None
        if index == self._paragraph_count():
            return self.append_paragraph(text, style)
        position = self._position(index, "index")
        cursor = self._paragraph(position)
        cursor.collapseToStart()
        self.text.insertString(cursor, text, False)
        self.text.insertControlCharacter(cursor, _PARAGRAPH_BREAK, False)
        if style_name is not None:
            self._paragraph(position).ParaStyleName = style_name
        return f"inserted paragraph {position}"

    def insert_text(self, text: str, paragraph: int = -1, position: Literal["start", "end"] = "end") -> str:
        """Insert text into an existing paragraph, at its start or its end.

        Args:
            text: The text to insert (it takes the formatting of the neighbouring text).
            paragraph: The paragraph's index (-1 = the last one).
            position: "start" or "end" of the paragraph.

        Returns:
            The paragraph's new text.
        """
        target = self._paragraph(paragraph)
        self.text.insertString(target.getStart() if position == "start" else target.getEnd(), text, False)
        return self._paragraph(paragraph).getString()

    def set_paragraph_text(self, paragraph: int, text: str) -> str:
        """Replace the whole text of one paragraph, keeping its paragraph style.

        Args:
            paragraph: The paragraph's index (-1 = the last one).
            text: The new text.

        Returns:
            A confirmation.
        """
        self._paragraph(paragraph).setString(text)
        return f"paragraph {paragraph} set to {text!r}"

    def delete_paragraph(self, paragraph: int) -> str:
        """Delete one paragraph (its text and its paragraph break); the ones after move up.

        Args:
            paragraph: The paragraph's index (-1 = the last one).

        Returns:
            The deleted paragraph's text.
        """
        count = self._paragraph_count()
        position = self._position(paragraph)
        target = self._paragraph(position)
        removed = target.getString()
        if count == 1:
            target.setString("")  # a document keeps at least one paragraph
        elif position == count - 1 and self._table_between(self._paragraph(position - 1), target):
            target.setString("")  # Writer needs a paragraph after a table that ends the document
            return f"emptied paragraph {paragraph} (a paragraph must follow the table that ends the document)"
        else:
            # The paragraph object's dispose deletes it with its break, never a neighbouring table.
            target.createEnumeration().nextElement().dispose()
        return f"deleted paragraph {paragraph} ({removed!r})"

    def _table_between(self, first: Any, second: Any) -> bool:
        tables = self.document.getTextTables()
        for i in range(tables.getCount()):
            anchor = tables.getByIndex(i).getAnchor()
            if (
                self.text.compareRegionStarts(first.getEnd(), anchor) == 1
                and self.text.compareRegionStarts(anchor, second.getStart()) == 1
            ):
                return True
        return False

    def find_replace(
        self, find: str, replace: str, match_case: bool = False, whole_words: bool = False, regex: bool = False
    ) -> int:
        """Replace every occurrence of a text in the document (body, tables, headers and footers).

        Args:
            find: The text to look for; with regex=True a regular expression (ICU syntax).
            replace: The replacement; with regex=True "$1" inserts the first group and "&" the match.
            match_case: Whether upper/lower case must match.
            whole_words: Whether only whole words match.
            regex: Whether find is a regular expression.

        Returns:
            How many occurrences were replaced.
        """
        if not find:
            raise ApiArgumentError("find_replace(): find must not be empty")
        descriptor = self.document.createReplaceDescriptor()
        descriptor.setSearchString(find)
        descriptor.setReplaceString(replace)
        descriptor.SearchCaseSensitive = match_case
        descriptor.SearchWords = whole_words
        descriptor.SearchRegularExpression = regex
        count = int(self.document.replaceAll(descriptor))
        if regex and count == 0:
            _check_regex(find)
        return count

    def _follow_style(self, style_name: str) -> str:
        styles = self.document.getStyleFamilies().getByName("ParagraphStyles")
        if not styles.hasByName(style_name):
            return style_name
        return styles.getByName(style_name).FollowStyle or style_name


def _check_regex(pattern: str) -> None:
    """Explain a search that found nothing because the pattern is broken.

    LibreOffice (ICU) answers an invalid pattern with zero matches and no error. Python's parser
    rejects a few valid ICU patterns too (``\\p{Lu}``), so it is consulted only after a miss.

    Raises:
        ApiArgumentError: Python cannot parse ``pattern`` either; its message says why.
    """
    import re

    try:
        re.compile(pattern)
    except re.error as exc:
        raise ApiArgumentError(f"find is not a valid regular expression ({exc}); nothing was replaced") from None
