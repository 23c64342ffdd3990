"""Talk to a running LibreOffice over UNO, with a deadline on every call.

LibreOffice is started with ``--accept=pipe,name=<pipe>;urp;`` (see ``apps/launcher.py``);
:func:`wait_for_uno` polls that pipe until the office answers, and :class:`UnoConnection` runs
each UNO call in a worker thread so that a hung office (about one reset in twenty in our probes)
raises :class:`UnoTimeoutError` instead of hanging the guest. ``uno`` is imported lazily: this
module imports on machines without LibreOffice.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from desktop_gym.errors import UnoError, UnoTimeoutError

T = TypeVar("T")

POLL_INTERVAL_S = 0.02
DEFAULT_CALL_TIMEOUT_S = 10.0
SAVE_TIMEOUT_S = 30.0

FILTERS_BY_SUFFIX: dict[str, str] = {
    ".xlsx": "Calc MS Excel 2007 XML",
    ".xls": "MS Excel 97",
    ".ods": "calc8",
    ".csv": "Text - txt - csv (StarCalc)",
    ".docx": "MS Word 2007 XML",
    ".doc": "MS Word 97",
    ".odt": "writer8",
    ".txt": "Text",
    ".pptx": "Impress MS PowerPoint 2007 XML",
    ".ppt": "MS PowerPoint 97",
    ".odp": "impress8",
}
"""Export filter for a target file suffix (PDF depends on the document type, see :func:`filter_for`)."""

_PDF_FILTERS = (
    ("com.sun.star.sheet.SpreadsheetDocument", "calc_pdf_Export"),
    ("com.sun.star.presentation.PresentationDocument", "impress_pdf_Export"),
    ("com.sun.star.drawing.DrawingDocument", "draw_pdf_Export"),
    ("com.sun.star.text.TextDocument", "writer_pdf_Export"),
)


def uno_url(pipe_name: str) -> str:
    """The UNO URL of the component context served on ``pipe_name``."""
    return f"uno:pipe,name={pipe_name};urp;StarOffice.ComponentContext"


def property_values(**values: Any) -> tuple[Any, ...]:
    """Build a tuple of ``com.sun.star.beans.PropertyValue`` (the media descriptor UNO expects)."""
    import uno

    result = []
    for name, value in values.items():
        prop = uno.createUnoStruct("com.sun.star.beans.PropertyValue")
        prop.Name = name
        prop.Value = value
        result.append(prop)
    return tuple(result)


def filter_for(path: str | Path, document: Any = None) -> str:
    """Return the LibreOffice export filter name for saving ``document`` to ``path``.

    Raises:
        UnoError: if the suffix has no known filter.
    """
    suffix = Path(path).suffix.lower()
    if suffix == ".pdf" and document is not None:
        for service, name in _PDF_FILTERS:
            if document.supportsService(service):
                return name
    if suffix in FILTERS_BY_SUFFIX:
        return FILTERS_BY_SUFFIX[suffix]
    raise UnoError(f"no LibreOffice export filter known for '{path}' (suffix {suffix!r})")


def _run_with_deadline(fn: Callable[..., T], args: tuple[Any, ...], timeout: float, what: str) -> T:
    outcome: dict[str, Any] = {}
    finished = threading.Event()

    def worker() -> None:
        try:
            outcome["value"] = fn(*args)
        except BaseException as exc:  # noqa: B036 - handed to the caller's thread below
            outcome["error"] = exc
        finally:
            finished.set()

    # A fresh daemon thread per call (~0.1 ms): a call that hangs strands only its own thread.
    threading.Thread(target=worker, name=f"uno:{what}", daemon=True).start()
    if not finished.wait(timeout):
        raise UnoTimeoutError(f"{what} did not return within {timeout:.1f} s")
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


class UnoConnection:
    """A UNO bridge to one ``soffice`` listening on a named pipe.

    Every method that talks to the office goes through :meth:`call`, which bounds it in time.
    After a :class:`UnoTimeoutError` the office should be considered hung: kill its process
    group rather than reuse the connection.

    Args:
        bridge: The ``com.sun.star.bridge.XBridge`` (disposed by :meth:`close`).
        context: The remote ``StarOffice.ComponentContext``.
        pipe_name: The pipe name, for error messages.
    """

    def __init__(self, bridge: Any, context: Any, pipe_name: str) -> None:
        self.bridge = bridge
        self.context = context
        self.pipe_name = pipe_name
        self._desktop: Any = None

    def call(
        self,
        fn: Callable[..., T],
        *args: Any,
        timeout: float = DEFAULT_CALL_TIMEOUT_S,
        what: str | None = None,
    ) -> T:
        """Run ``fn(*args)`` in a worker thread; raise if it does not return within ``timeout``.

        Args:
            fn: Any callable that makes UNO calls.
            *args: Its arguments.
            timeout: Seconds to wait.
            what: Name of the call for the error message (default: ``fn``'s name).

        Raises:
            UnoTimeoutError: naming the call and the pipe, when the deadline passes.
        """
        name = what or getattr(fn, "__qualname__", repr(fn))
        return _run_with_deadline(fn, args, timeout, f"UNO call {name} on pipe '{self.pipe_name}'")

    @property
    def desktop(self) -> Any:
        """The ``com.sun.star.frame.Desktop`` of this office."""
        if self._desktop is None:
            self._desktop = self.call(
                self.context.ServiceManager.createInstanceWithContext,
                "com.sun.star.frame.Desktop",
                self.context,
                what="createInstance(Desktop)",
            )
        return self._desktop

    def documents(self, timeout: float = DEFAULT_CALL_TIMEOUT_S) -> list[Any]:
        """All loaded documents (models), in the desktop's order."""

        def collect() -> list[Any]:
            enumeration = self.desktop.getComponents().createEnumeration()
            found = []
            while enumeration.hasMoreElements():
                component = enumeration.nextElement()
                if component is not None and hasattr(component, "getURL"):
                    found.append(component)
            return found

        return self.call(collect, timeout=timeout, what="Desktop.getComponents")

    def current_document(self, timeout: float = DEFAULT_CALL_TIMEOUT_S) -> Any | None:
        """The active document, else the first loaded one, else ``None``.

        ``getCurrentComponent`` is ``None`` while no office window has the focus (common on a
        headless X server right after start), hence the fallback.
        """
        current = self.call(self.desktop.getCurrentComponent, timeout=timeout, what="getCurrentComponent")
        if current is not None and hasattr(current, "getURL"):
            return current
        documents = self.documents(timeout=timeout)
        return documents[0] if documents else None

    def save(
        self,
        document: Any = None,
        path: str | Path | None = None,
        filter_name: str | None = None,
        timeout: float = SAVE_TIMEOUT_S,
    ) -> None:
        """Save ``document`` in place, or export a copy to ``path``.

        Args:
            document: A loaded document model (default: :meth:`current_document`).
            path: Target file; ``None`` stores the document to its own URL and format.
            filter_name: Export filter (default: from ``path``'s suffix, see :func:`filter_for`).
            timeout: Seconds for the store call.

        Raises:
            UnoError: if there is no document or no filter for ``path``.
            UnoTimeoutError: if storing does not finish in time.
        """
        document = document if document is not None else self.current_document()
        if document is None:
            raise UnoError(f"no document loaded in the office on pipe '{self.pipe_name}' to save")
        if path is None:
            self.call(document.store, timeout=timeout, what="store")
            return
        target = Path(path).absolute()
        name = filter_name or filter_for(target, document)
        descriptor = property_values(FilterName=name, Overwrite=True)
        self.call(
            document.storeToURL,
            target.as_uri(),
            descriptor,
            timeout=timeout,
            what=f"storeToURL({target}, {name})",
        )

    def close(self) -> None:
        """Dispose the bridge (the office keeps running). Safe to call twice."""
        bridge, self.bridge, self._desktop = self.bridge, None, None
        if bridge is None:
            return
        try:
            _run_with_deadline(bridge.dispose, (), 2.0, f"disposing the UNO bridge on pipe '{self.pipe_name}'")
        except Exception:  # noqa: BLE001 - the office may already be gone; nothing left to release
            pass

    def __enter__(self) -> UnoConnection:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def connect(pipe_name: str, timeout: float = DEFAULT_CALL_TIMEOUT_S) -> UnoConnection:
    """Connect once to the office on ``pipe_name``.

    Raises:
        UnoError: typically ``NoConnectException`` wrapped, when nothing listens yet.
        UnoTimeoutError: if connecting hangs.
    """
    import uno

    def attempt() -> UnoConnection:
        local = uno.getComponentContext()
        manager = local.ServiceManager
        connector = manager.createInstanceWithContext("com.sun.star.connection.Connector", local)
        factory = manager.createInstanceWithContext("com.sun.star.bridge.BridgeFactory", local)
        connection = connector.connect(f"pipe,name={pipe_name}")
        # An anonymous bridge ("" name) is ours alone, so close() can dispose it.
        bridge = factory.createBridge("", "urp", connection, None)
        context = bridge.getInstance("StarOffice.ComponentContext")
        if context is None:
            bridge.dispose()
            raise UnoError(f"the office on pipe '{pipe_name}' exports no StarOffice.ComponentContext")
        return UnoConnection(bridge, context, pipe_name)

    try:
        return _run_with_deadline(attempt, (), timeout, f"connecting to UNO pipe '{pipe_name}'")
    except UnoError:
        raise
    except Exception as exc:  # pyuno raises its own exception classes (NoConnectException, ...)
        raise UnoError(f"cannot connect to UNO pipe '{pipe_name}': {type(exc).__name__}: {exc}") from exc


def wait_for_uno(pipe_name: str, timeout: float, expect_document: bool = True) -> UnoConnection:
    """Poll ``pipe_name`` until the office answers (and has a document loaded).

    Args:
        pipe_name: The name given in ``--accept=pipe,name=<pipe_name>;urp;``.
        timeout: Overall deadline in seconds.
        expect_document: Also wait until a document is loaded (set ``False`` when the office
            was started without a file; then the desktop answering is enough).

    Returns:
        A connected :class:`UnoConnection`.

    Raises:
        TimeoutError: (a :class:`UnoTimeoutError`) naming the pipe and what was awaited.
    """
    deadline = time.monotonic() + timeout
    awaited = "a loaded document" if expect_document else "the Desktop service"
    last_problem = "nothing tried"
    connection: UnoConnection | None = None
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            if connection is not None:
                connection.close()
            raise UnoTimeoutError(
                f"LibreOffice on UNO pipe '{pipe_name}' did not provide {awaited} within {timeout:.1f} s "
                f"(last: {last_problem})"
            )
        try:
            if connection is None:
                connection = connect(pipe_name, timeout=remaining)
            if not expect_document:
                _ = connection.desktop
                return connection
            documents = connection.documents(timeout=max(remaining, 0.01))
            if documents:
                return connection
            last_problem = "connected, no document loaded yet"
        except UnoTimeoutError as exc:
            last_problem = str(exc)
        except Exception as exc:  # NoConnectException between polls is the expected case
            last_problem = str(exc) if isinstance(exc, UnoError) else f"{type(exc).__name__}: {exc}"
            if connection is not None:  # a half-started office can drop the bridge: reconnect
                connection.close()
                connection = None
        time.sleep(min(POLL_INTERVAL_S, max(deadline - time.monotonic(), 0)))
