"""``WriterTools``: the LibreOffice Writer API the agent calls, acting on the live document over UNO.

The methods live in four parts by topic (``writer_text``, ``writer_format``, ``writer_tables``,
``writer_page``); this class joins them and adds :meth:`WriterTools.summary`, the ``app_info``
text of the observation (not a tool). Each call gets a fresh instance bound to the current
document, inside ``UnoConnection.call`` (see :mod:`desktop_gym.guest.apps.registry`); every change
goes through the document model, so the Writer window repaints it as if the user had made it.
"""

from __future__ import annotations

from desktop_gym.guest.apps.tool_schema import ApiArgumentError, not_a_tool

from .format import WriterFormatTools
from .page import WriterPageTools
from .tables import WriterTableTools
from .text import WriterTextTools

SUMMARY_PARAGRAPHS = 40
SUMMARY_LINE_CHARS = 100


class WriterTools(WriterTextTools, WriterFormatTools, WriterTableTools, WriterPageTools):
    """LibreOffice Writer: text, paragraphs, fonts, styles, headings, lists, tables, pages, saving.

    Paragraphs are numbered from 0 in document order, tables not counted (-1 = the last
    paragraph); list_paragraphs shows the numbers. Tables are numbered from 0 in document order.
    """

    @not_a_tool
    def summary(self, max_chars: int = 5000) -> str:
        """The document's state as text for the observation: counts, headings, tables, first paragraphs.

        Args:
            max_chars: The longest text returned; longer text is cut and ends with "...".

        Returns:
            Lines of text; each paragraph as "[index] (style) text", cut to one line.
        """
        if max_chars < 4:
            raise ApiArgumentError(f"max_chars must be at least 4, got {max_chars}")
        texts, styles = [], []
        for paragraph in self._walk():
            texts.append(paragraph.getString())
            styles.append(paragraph.ParaStyleName)
        tables = self._tables()
        words = sum(len(text.split()) for text in texts)
        lines = [f"Paragraphs: {len(texts)}, words: {words}, tables: {len(tables)}"]
        headings = [
            f"  [{index}] {style.replace('Heading ', 'H')}: {_one_line(texts[index])}"
            for index, style in enumerate(styles)
            if style.startswith("Heading") or style == "Title"
        ]
        if headings:
            lines += ["Headings:", *headings]
        for index, table in enumerate(tables):
            rows, columns = table.getRows().getCount(), table.getColumns().getCount()
            lines.append(f"Table {index} ({table.getName()}): {rows}x{columns}")
        shown = min(len(texts), SUMMARY_PARAGRAPHS)
        lines.append("Paragraphs:" if shown == len(texts) else f"First {shown} paragraphs:")
        lines += [f"  [{index}] ({styles[index]}) {_one_line(texts[index])}" for index in range(shown)]
        text = "\n".join(lines)
        return text if len(text) <= max_chars else text[: max_chars - 3] + "..."


def _one_line(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= SUMMARY_LINE_CHARS else flat[: SUMMARY_LINE_CHARS - 3] + "..."
