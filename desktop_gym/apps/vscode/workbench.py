"""The live VS Code workbench, reached through its window's DevTools (the Chrome app's client).

The launch records the port, folder and window profile in ``~/.config/gym-vscode/session.json``
(:func:`read_session`); :class:`Workbench` connects to the window's Chromium and reads what the page
shows: the window title (the active editor's path and the folder, as the launch's
``window.title`` setting formats them), the editor tabs (name, folder, unsaved), and moves the window
to another folder or file by loading the workbench's own address for it. Standard library only.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from ...errors import DevToolsError
from ...polling import poll_until
from ..devtools import DevTools, connect
from ..devtools_browser import Browser
from .launch import session_path, workbench_url

#: The biggest session record read.
MAX_SESSION_BYTES = 64 * 1024
#: How long a reload of the workbench (another folder or file) may take.
RELOAD_TIMEOUT_S = 60.0
#: The page script listing the editor tabs of every editor group.
TABS_SCRIPT = """Array.from(document.querySelectorAll('.tabs-container .tab')).map(tab => ({
  name: tab.querySelector('.label-name')?.textContent || tab.getAttribute('data-resource-name') || '',
  folder: tab.querySelector('.label-description')?.textContent || '',
  dirty: tab.classList.contains('dirty'),
  active: tab.classList.contains('active'),
}))"""
#: Whether the workbench is up: its parts are drawn and the window is connected to the server.
READY_SCRIPT = """!!(document.querySelector('.monaco-workbench .part.editor')
  && document.querySelector('.monaco-workbench .part.statusbar')
  && document.querySelector('.monaco-workbench .part.sidebar .pane-body'))
  && !document.querySelector('.monaco-dialog-box')"""


def read_session(home: Path) -> dict[str, Any]:
    """The running launch's record: ``{"port", "folder", "profile", "data"}``.

    Raises:
        ValueError: missing or malformed (VS Code was not started by the launcher).
    """
    path = session_path(Path(home))
    try:
        if path.stat().st_size > MAX_SESSION_BYTES:
            raise ValueError(f"{path} is too big")
        record = json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise ValueError(f"VS Code is not running (no launch record: {error.strerror})") from None
    port = record.get("port") if isinstance(record, dict) else None
    if not isinstance(port, int) or not 0 < port < 65536 or not isinstance(record.get("profile"), str):
        raise ValueError(f"the VS Code launch record {path} is malformed")
    return record


class Workbench:
    """One DevTools connection to the VS Code window of the session.

    Args:
        record: The launch record (:func:`read_session`).
        devtools: A connection to the window's Chromium.
    """

    def __init__(self, record: dict[str, Any], devtools: DevTools) -> None:
        self.record = record
        self.devtools = devtools
        self.browser = Browser(devtools)

    @classmethod
    def of_session(cls, home: Path, timeout: float = 10.0) -> Workbench:
        """The workbench of the session at ``home``.

        Raises:
            ValueError: no launch record; DevToolsError: the window does not answer.
        """
        record = read_session(home)
        return cls(record, connect(Path(record["profile"]), timeout=timeout))

    def close(self) -> None:
        """Close the DevTools connection (the window stays)."""
        self.devtools.close()

    def __enter__(self) -> Workbench:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def ready(self) -> bool:
        """Whether the workbench is drawn (editor area, status bar, side bar) with no dialog open."""
        return bool(self.browser.evaluate(READY_SCRIPT, timeout=5.0))

    def title(self) -> str:
        """The window title: ``"<active file> - <folder> - code-server"`` (paths as ``~/...``)."""
        return str(self.browser.evaluate("document.title", timeout=5.0))

    def tabs(self) -> list[dict[str, Any]]:
        """The editor tabs: ``{"name", "folder", "dirty", "active"}`` each, in order."""
        tabs = self.browser.evaluate(TABS_SCRIPT, timeout=5.0)
        return tabs if isinstance(tabs, list) else []

    def show(self, folder: Path, file: Path | None = None, timeout: float = RELOAD_TIMEOUT_S) -> None:
        """Load the workbench on ``folder`` (opening ``file``) and wait until it is drawn again.

        Raises:
            TimeoutError: not drawn within ``timeout``.
        """
        url = workbench_url(int(self.record["port"]), folder, file)
        self.browser.evaluate("document.body.dataset.gymReload = '1'", timeout=5.0)
        self.browser.call("url => { location.href = url; return true }", url, timeout=5.0)
        expected = file.name if file is not None else None

        def reloaded() -> bool:
            fresh = self.browser.evaluate("!document.body.dataset.gymReload", timeout=5.0)
            return bool(fresh) and self.ready() and (expected is None or self.showing(expected))

        poll_until(
            reloaded,
            timeout,
            f"the VS Code workbench on {folder}",
            interval=0.2,
            retry_on=(DevToolsError,),
            error=TimeoutError,
        )

    def showing(self, name: str) -> bool:
        """Whether the active editor (its tab and the window title) is the file called ``name``."""
        active = any(tab["active"] and tab["name"] == name for tab in self.tabs())
        return active and self.title().split(" - ")[0].endswith("/" + name)

    def press(self, key: str, code: str, key_code: int, modifiers: int = 0) -> None:
        """Press one key in the page (``modifiers``: 1 Alt, 2 Ctrl, 4 Meta, 8 Shift)."""
        session = self.browser.session(self.browser.active_page()["targetId"])
        for kind in ("keyDown", "keyUp"):
            event = {"type": kind, "key": key, "code": code, "windowsVirtualKeyCode": key_code, "modifiers": modifiers}
            self.devtools.send("Input.dispatchKeyEvent", event, session=session, timeout=5.0)

    def wait_saved(self, timeout: float = 10.0) -> list[dict[str, Any]]:
        """Wait until no tab shows unsaved changes; returns the tabs.

        Raises:
            TimeoutError: a tab still has unsaved changes after ``timeout``.
        """
        started = time.monotonic()
        poll_until(
            lambda: not any(tab["dirty"] for tab in self.tabs()),
            timeout - (time.monotonic() - started),
            "VS Code to save its editors",
            interval=0.1,
            retry_on=(DevToolsError,),
            error=TimeoutError,
        )
        return self.tabs()
