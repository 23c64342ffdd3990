"""The text editor (mousepad) as a library: its live buffer over AT-SPI, for the ``EditorTools`` API.

Mousepad has no scripting interface, but its GTK text view is on the accessibility bus with the
``EditableText`` interface: reading, inserting and replacing text there edits the open document
exactly as typing would (the window shows it, the title gains a ``*``), and "File > Save" is a
menu item whose ``click`` action saves. :class:`EditorDocument` wraps that; :class:`EditorToolsBase`
is what the (generated) ``EditorTools`` class builds on, the way ``CalcTools`` builds on UNO.
Measured: finding the buffer ~0.1 s, replacing the text and saving ~25 ms.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, ClassVar

from desktop_gym.guest.a11y import _ensure_bus  # the one check that an accessibility bus answers before libatspi binds
from desktop_gym.guest.apps.tool_schema import ApiArgumentError, ApiCallError, not_a_tool

from ..tools_base import AppTools

EDITOR_APP_NAME = "mousepad"
TITLE_SUFFIX = " - Mousepad"
SAVE_TIMEOUT_S = 5.0
MAX_NODES_SEARCHED = 5000
POLL_INTERVAL_S = 0.02


def _walk(root: Any, limit: int = MAX_NODES_SEARCHED) -> list[Any]:
    """Every accessible under ``root`` (depth first, at most ``limit``)."""
    found, stack = [], [root]
    while stack and len(found) < limit:
        node = stack.pop()
        found.append(node)
        for index in range(node.get_child_count() - 1, -1, -1):
            child = node.get_child_at_index(index)
            if child is not None:
                stack.append(child)
    return found


class EditorDocument:
    """The document open in the text editor: its text, caret, file and saving.

    Offsets count characters from 0; ``end`` offsets are exclusive.

    Raises (every method):
        ApiCallError: the editor is not running or shows no document.
    """

    def __init__(self, app: Any, frame: Any, text_node: Any, atspi: Any) -> None:
        self._app, self._frame, self._node, self._atspi = app, frame, text_node, atspi

    @classmethod
    def find(cls) -> EditorDocument:
        """The document of the running editor (its showing text view).

        Raises:
            ApiCallError: no editor is running, or it shows no editable text.
        """
        atspi = _ensure_bus()
        desktop = atspi.get_desktop(0)
        for index in range(desktop.get_child_count()):
            app = desktop.get_child_at_index(index)
            if app is None or app.get_name() != EDITOR_APP_NAME:
                continue
            frame, text_node = None, None
            for node in _walk(app):
                role = node.get_role_name()
                if role == "frame" and frame is None:
                    frame = node
                elif role == "text" and node.get_state_set().contains(atspi.StateType.EDITABLE):
                    if text_node is None or node.get_state_set().contains(atspi.StateType.SHOWING):
                        text_node = node
            if frame is not None and text_node is not None:
                return cls(app, frame, text_node, atspi)
        raise ApiCallError("the text editor is not running or shows no document (open it with open_app first)")

    # -- text -------------------------------------------------------------------------------------
    def text(self) -> str:
        """The whole text of the document."""
        return self._atspi.Text.get_text(self._node, 0, -1)

    def length(self) -> int:
        """The number of characters in the document."""
        return self._atspi.Text.get_character_count(self._node)

    def set_text(self, text: str) -> None:
        """Replace the whole text of the document."""
        if not self._atspi.EditableText.set_text_contents(self._node, text):
            raise ApiCallError("the text editor refused to replace its text")

    def insert(self, offset: int, text: str) -> None:
        """Insert ``text`` before the character at ``offset`` (``length()`` appends)."""
        self._check_offset(offset, "offset")
        if text and not self._atspi.EditableText.insert_text(self._node, offset, text, len(text.encode("utf-8"))):
            raise ApiCallError(f"the text editor refused to insert text at offset {offset}")

    def delete(self, start: int, end: int) -> None:
        """Delete the characters from ``start`` up to (not including) ``end``."""
        self._check_offset(start, "start")
        self._check_offset(end, "end")
        if end < start:
            raise ApiArgumentError(f"end ({end}) must not be before start ({start})")
        if end > start and not self._atspi.EditableText.delete_text(self._node, start, end):
            raise ApiCallError(f"the text editor refused to delete characters {start}-{end}")

    def caret(self) -> int:
        """The caret's offset."""
        return self._atspi.Text.get_caret_offset(self._node)

    def set_caret(self, offset: int) -> None:
        """Move the caret to ``offset``."""
        self._check_offset(offset, "offset")
        self._atspi.Text.set_caret_offset(self._node, offset)

    def _check_offset(self, offset: int, name: str) -> None:
        length = self.length()
        if not 0 <= offset <= length:
            raise ApiArgumentError(f"{name} must be between 0 and {length} (the text length), got {offset}")

    # -- file -------------------------------------------------------------------------------------
    def title(self) -> str:
        """The window title (``*`` first while there are unsaved changes)."""
        return self._frame.get_name() or ""

    def is_modified(self) -> bool:
        """Whether the document has unsaved changes."""
        return self.title().startswith("*")

    def file_path(self) -> Path | None:
        """The file the document is saved to (None for an unsaved new document)."""
        name = self.title().lstrip("*")
        if name.endswith(TITLE_SUFFIX):
            name = name[: -len(TITLE_SUFFIX)]
        if name.startswith("~/"):  # the editor abbreviates paths inside its user's home
            return Path(name).expanduser()
        return Path(name) if name.startswith("/") else None

    def save(self, timeout: float = SAVE_TIMEOUT_S) -> Path:
        """Save the document to its file (File > Save) and wait until the editor says it is saved.

        Raises:
            ApiCallError: the document has no file yet, or saving did not finish within ``timeout``.
        """
        path = self.file_path()
        if path is None:
            raise ApiCallError("the document has no file yet; it cannot be saved without a file name")
        for node in _walk(self._app):
            if node.get_role_name() == "menu item" and (node.get_name() or "").strip() == "Save":
                self._atspi.Action.do_action(node, 0)
                break
        else:
            raise ApiCallError("the text editor has no File > Save menu item")
        deadline = time.monotonic() + timeout
        while self.is_modified():
            if time.monotonic() > deadline:
                raise ApiCallError(f"the text editor did not finish saving {path} within {timeout:g} s")
            time.sleep(POLL_INTERVAL_S)
        return path


class EditorToolsBase(AppTools):
    """What every ``EditorTools`` method builds on: ``self.document`` is the editor's live document."""

    uses_uno: ClassVar[bool] = False
    """The registry runs these tools without UNO; they reach mousepad over the accessibility bus."""

    uses_a11y: ClassVar[bool] = True

    @classmethod
    def sandbox_instance(cls, home: str | Path) -> EditorToolsBase:
        """A fresh instance on an emptied and saved document: how API generation starts each test."""
        tools = cls(home=home)
        tools.document.set_text("")
        tools.document.save()
        return tools

    @not_a_tool
    def find_document(self) -> EditorDocument:
        """The running editor's document (found on first use of ``self.document``)."""
        return EditorDocument.find()

    @not_a_tool
    def summary(self, max_chars: int = 5000) -> str:
        """The document's state as text for the observation: file, saved or not, line count, first lines.

        Args:
            max_chars: The longest text returned; longer text is cut and ends with "...".

        Returns:
            Lines of text.
        """
        if max_chars < 4:
            raise ApiArgumentError(f"max_chars must be at least 4, got {max_chars}")
        document = self.document
        text = document.text()
        lines = text.splitlines()
        header = [
            f"File: {document.file_path() or '(not saved yet)'}",
            f"Unsaved changes: {'yes' if document.is_modified() else 'no'}",
            f"Lines: {len(lines)}, characters: {len(text)}",
            "Text:",
        ]
        shown = "\n".join(header + [f"{number}\t{line}" for number, line in enumerate(lines[:40], start=1)])
        return shown if len(shown) <= max_chars else shown[: max_chars - 3] + "..."
