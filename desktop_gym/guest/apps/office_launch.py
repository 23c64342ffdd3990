"""Starting LibreOffice and loading documents into it: the command line, the load call, the layout.

A cold start runs ``soffice`` from a fresh copy of a lock-free profile, with a private UNO pipe;
a warm spare or a reused office instead gets the document through ``loadComponentFromURL``. A
SIGKILLed office leaves a ``.~lock.<name>#`` file beside its document that would raise a
"Document in use" dialog the next time, so stale lock files are removed before every open.
"""

from __future__ import annotations

import logging
import uuid
from pathlib import Path
from typing import Any

from desktop_gym.apps.spec import APP_SPECS

FACTORIES = {"calc": "scalc", "writer": "swriter", "impress": "simpress"}
CSV_IMPORT_FILTER = "Text - txt - csv (StarCalc):44,34,76,1"  # comma, quote, UTF-8, from line 1
LAYOUT_TIMEOUT_S = 10.0  # how long a forced toolbar layout may wait for the office's main thread
log = logging.getLogger(__name__)


def remove_stale_lock(document: Path) -> None:
    """Delete LibreOffice's ``.~lock.<name>#`` file beside ``document``, if a killed instance left one."""
    (document.parent / f".~lock.{document.name}#").unlink(missing_ok=True)


def new_pipe_name() -> str:
    """A fresh name for an office's ``--accept=pipe`` UNO acceptor."""
    return f"desktop_gym_{uuid.uuid4().hex}"


def soffice_argv(profile_url: str, pipe_name: str, documents: list[str]) -> list[str]:
    """The ``soffice`` command line for a fresh profile, a UNO pipe and ``documents`` (files or options)."""
    return [
        "soffice",
        f"-env:UserInstallation={profile_url}",
        "--norestore",
        "--nologo",
        "--nofirststartwizard",
        f"--accept=pipe,name={pipe_name};urp;",
        *documents,
    ]


def open_arguments(app: str, source: Path | None) -> list[str]:
    """What follows the options on a cold start: the task file (and its import filter), or the empty module.

    Raises:
        KeyError: ``app`` is not in the app table.
    """
    if source is None:  # --nodefault would suppress the empty document window asked for here
        return [APP_SPECS[app].command[0]]
    remove_stale_lock(source)
    csv = [f"--infilter={CSV_IMPORT_FILTER}"] if source.suffix.lower() == ".csv" else []  # no Text Import dialog
    return ["--nodefault", *csv, str(source)]


def load_document(connection: Any, app: str, source: Path | None, timeout: float) -> None:
    """Load ``source`` (or a new ``app`` document) into a running office, in a new frame.

    Raises:
        uno_bridge.UnoTimeoutError: the load did not return within ``timeout``.
    """
    from . import uno_bridge

    if source is not None:
        remove_stale_lock(source)
    url = source.resolve().as_uri() if source is not None else f"private:factory/{FACTORIES[app]}"
    options = {}
    if source is not None and source.suffix.lower() == ".csv":
        options = {"FilterName": "Text - txt - csv (StarCalc)", "FilterOptions": CSV_IMPORT_FILTER.split(":", 1)[1]}

    def load(office: Any) -> None:
        office.desktop.loadComponentFromURL(url, "_blank", 0, uno_bridge.property_values(**options))

    connection.call(load, connection, timeout=timeout, what=f"load {url}")


def _lay_out_frames(connection: Any) -> None:
    frames = connection.desktop.getFrames()
    for index in range(frames.getCount()):
        layout = frames.getByIndex(index).LayoutManager
        if layout is not None:
            layout.doLayout()


def finish_layout(connection: Any, timeout: float) -> bool:
    """Run the office's pending toolbar layout now, so a reused office starts from a cold start's layout.

    LibreOffice lays its toolbars out on a timer after a frame appears; a document loaded into a
    running office under CPU load was left with the Standard toolbar at the dock's full width
    (1280 px instead of its own 1262 px) until something else forced a layout: the same pixels, a
    different accessibility tree than a cold start's (3 of 10 reused resets at load ~10; 0 of 12
    with this call; cold starts showed 1262 px in 8 of 8). The call waits for the office's main
    thread (the solar mutex), which can take seconds under load.

    Returns:
        Whether the layout ran within ``timeout`` (if not, the launch goes on as it would without it).
    """
    from . import uno_bridge

    try:
        connection.call(_lay_out_frames, connection, timeout=timeout, what="lay out the office's toolbars")
    except uno_bridge.UnoTimeoutError as error:
        log.warning("%s", error)
        return False
    return True
