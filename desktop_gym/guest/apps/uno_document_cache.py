"""The document an API call acts on, kept between calls while the focus stays where it was.

Finding the current document is a UNO round trip per call (``getCurrentComponent``). The answer
can only change when another window takes the focus, so it is kept per office connection with a
focus key (:meth:`WindowManager.focus_key`: the active window and its title), and only
when the focused window is that document's own (:func:`focused_document`). No
document event is needed: a new window, a dialog, a switch or a document loaded into the focused
window all change the key. A kept document that was closed meanwhile raises ``DisposedException``
on first use, before anything happened to it; :func:`is_disposed` lets the caller look again.
"""

from __future__ import annotations

import threading
from collections.abc import Hashable, Iterable
from typing import Any


class DocumentCache:
    """The focused document of each office connection, valid while its focus key is unchanged."""

    def __init__(self) -> None:
        self._kept: dict[int, tuple[Any, Hashable, Any]] = {}  # id(connection) -> (connection, key, document)
        self._controllers: dict[int, tuple[Any, Any]] = {}  # id(connection) -> (kept document, its controller)
        self._lock = threading.Lock()

    def kept(self, connection: Any, focus_key: Hashable | None) -> Any | None:
        """The document kept for ``connection`` under ``focus_key``, or None."""
        with self._lock:
            kept = self._kept.get(id(connection))
        if focus_key is None or kept is None or kept[0] is not connection or kept[1] != focus_key:
            return None
        return kept[2]

    def last(self, connection: Any) -> Any | None:
        """The document kept last for ``connection`` under any key (a dialog's owner), or None."""
        with self._lock:
            kept = self._kept.get(id(connection))
        return kept[2] if kept is not None and kept[0] is connection else None

    def keep(self, connection: Any, focus_key: Hashable, document: Any) -> None:
        """Keep ``document`` for ``connection`` until the focus key changes (its controller is found anew)."""
        with self._lock:
            self._kept[id(connection)] = (connection, focus_key, document)
            self._controllers.pop(id(connection), None)

    def forget(self, connection: Any) -> None:
        """Drop what is kept for ``connection`` (its document was closed)."""
        with self._lock:
            self._kept.pop(id(connection), None)
            self._controllers.pop(id(connection), None)

    def controller(self, document: Any) -> Any:
        """``document.getCurrentController()``, kept with ``document`` while it is a kept document.

        A controller belongs to the window the focus key names, so it changes only with that key
        (another window, even of the same document, is another key, and :meth:`keep` drops it); a
        document reloaded in its window is a new document, and the old controller raises
        ``DisposedException`` as the old document does. A document not kept is asked each time.
        """
        with self._lock:
            owner = next((key for key, kept in self._kept.items() if kept[2] is document), None)
            cached = self._controllers.get(owner) if owner is not None else None
        if cached is not None and cached[0] is document:
            return cached[1]
        controller = document.getCurrentController()
        if owner is not None and controller is not None:
            with self._lock:
                kept = self._kept.get(owner)
                if kept is not None and kept[2] is document:
                    self._controllers[owner] = (document, controller)
        return controller


KEPT_DOCUMENTS = DocumentCache()  # the guest's one cache: API calls keep documents here, tools read controllers


def focused_document(documents: Iterable[Any], focus_key: Hashable | None) -> Any | None:
    """The document whose window has the focus: its frame's title is the focused window's title.

    ``getCurrentComponent`` lags behind a window that just took the focus (measured: a document
    opened with ctrl+n was focused while the office still named the previous one), so the title is
    what decides; None when no document's window is focused (a dialog, another app).
    """
    title = focus_key[1] if isinstance(focus_key, tuple) and len(focus_key) > 1 else None
    if isinstance(title, bytes):
        title = title.decode("utf-8", "replace")
    if not title:
        return None
    for document in documents:
        controller = document.getCurrentController() if hasattr(document, "getCurrentController") else None
        frame = controller.getFrame() if controller is not None else None
        if frame is not None and frame.getTitle() == title:
            return document
    return None


def is_disposed(exc: BaseException) -> bool:
    """Whether ``exc`` is UNO's ``DisposedException`` (the object's document was closed)."""
    try:
        import uno
    except ImportError:
        return False
    return isinstance(exc, uno.getClass("com.sun.star.lang.DisposedException"))
