"""The live browser, one DevTools connection: its tabs, a page's JavaScript, and its own settings pages.

Tabs are the ``page`` targets, in the order the guest first saw them (new tabs open at the end of
the strip, so that is the strip's order for tabs opened one after another); the active tab is the
one whose document is visible. Chromium's own pages (``chrome://settings``, ``chrome://bookmarks``,
``chrome://history``) hold the APIs for its settings, bookmarks and history: :meth:`Browser.on_webui`
opens one in a background tab, runs a script there and closes it, so the change is the browser's own,
shown by the GUI. Standard library only.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ..polling import poll_until
from .devtools import DevTools, DevToolsError, connect

#: Flags that keep a test desktop's Chromium quiet: no prompts, no background traffic, no sandbox
#: (the desktop itself is the sandbox: session users, containers or VMs). Chromium and VS Code's window use them.
CHROMIUM_QUIET_FLAGS = (
    "--no-first-run",
    "--no-default-browser-check",
    "--no-sandbox",
    "--test-type",  # no "unsupported command-line flag" bar for --no-sandbox
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-breakpad",
    "--disable-session-crashed-bubble",
    "--hide-crash-restore-bubble",
    "--no-pings",
    "--password-store=basic",
)

#: Seconds a page load may take before a navigation gives up waiting (the page stays as it is).
LOAD_TIMEOUT_S = 15.0

#: Resolves true once the page has run two animation frames: the input it had queued was handled (input
#: runs before a frame's callbacks) and the frame after it was produced. False after the given
#: milliseconds (a hidden page runs no frames).
TWO_FRAMES_SCRIPT = (
    "ms => Promise.race([new Promise(done => requestAnimationFrame(() => requestAnimationFrame(() => done(true)))),"
    " new Promise(done => setTimeout(() => done(false), ms))])"
)

_seen_lock = threading.Lock()
_first_seen: dict[str, int] = {}
_order = itertools.count()


def _seen(target_id: str) -> int:
    with _seen_lock:
        if target_id not in _first_seen:
            _first_seen[target_id] = next(_order)
            if len(_first_seen) > 10000:  # a long-lived guest: forget the oldest
                for old in sorted(_first_seen, key=_first_seen.get)[:5000]:  # type: ignore[arg-type]
                    del _first_seen[old]
        return _first_seen[target_id]


class Browser:
    """Tabs and pages of the browser behind ``devtools``."""

    def __init__(self, devtools: DevTools) -> None:
        self.devtools = devtools
        self._sessions: dict[str, str] = {}

    # ------------------------------------------------------------------ tabs
    def pages(self) -> list[dict[str, Any]]:
        """The tabs, in strip order: ``{"targetId", "url", "title"}`` each."""
        targets = self.devtools.send("Target.getTargets")["targetInfos"]
        pages = [t for t in targets if t.get("type") == "page"]
        return sorted(pages, key=lambda t: _seen(t["targetId"]))

    def session(self, target_id: str) -> str:
        """A flat session on a tab (attached once per connection)."""
        if target_id not in self._sessions:
            self._sessions[target_id] = self.devtools.attach(target_id)
        return self._sessions[target_id]

    def active_page(self) -> dict[str, Any]:
        """The tab in front (its document is visible); the last tab when none says so.

        Raises:
            DevToolsError: the browser has no tab.
        """
        pages = self.pages()
        if not pages:
            raise DevToolsError("the browser has no open tab")
        for page in pages:
            try:
                if self.evaluate("document.visibilityState", page["targetId"], timeout=3.0) == "visible":
                    return page
            except DevToolsError:
                continue
        return pages[-1]

    def open_tab(self, url: str, background: bool = False) -> str:
        """Open ``url`` in a new tab; returns its target id."""
        target = self.devtools.send("Target.createTarget", {"url": url, "background": background})["targetId"]
        _seen(target)
        return target

    def close_tab(self, target_id: str, timeout: float = 5.0) -> None:
        """Close one tab and wait until it is gone from the tab list."""
        self.devtools.send("Target.closeTarget", {"targetId": target_id})
        self._sessions.pop(target_id, None)
        poll_until(
            lambda: all(p["targetId"] != target_id for p in self.pages()),
            timeout,
            "the closed tab to go",
            interval=0.02,
            error=DevToolsError,
        )

    def activate(self, target_id: str) -> None:
        """Bring a tab to the front."""
        self.devtools.send("Target.activateTarget", {"targetId": target_id})

    # ------------------------------------------------------------------ pages
    def evaluate(self, expression: str, target_id: str | None = None, timeout: float | None = None) -> Any:
        """Run JavaScript in a tab (default: the active one) and return its JSON value (promises awaited).

        Raises:
            DevToolsError: the script threw (its message is kept) or the tab did not answer.
        """
        target = target_id or self.active_page()["targetId"]
        result = self.devtools.send(
            "Runtime.evaluate",
            {"expression": expression, "returnByValue": True, "awaitPromise": True},
            session=self.session(target),
            timeout=timeout,
        )
        if "exceptionDetails" in result:
            details = result["exceptionDetails"]
            text = details.get("exception", {}).get("description") or details.get("text", "script error")
            raise DevToolsError(str(text).splitlines()[0])
        return result.get("result", {}).get("value")

    def call(self, function: str, *args: Any, target_id: str | None = None, timeout: float | None = None) -> Any:
        """Call the JavaScript ``function`` source with ``args`` (passed as JSON data, never as code)."""
        encoded = ", ".join(json.dumps(arg) for arg in args)
        return self.evaluate(f"({function})({encoded})", target_id, timeout=timeout)

    def ready_state(self, target_id: str | None = None) -> str:
        """The tab's ``document.readyState``."""
        return str(self.evaluate("document.readyState", target_id, timeout=3.0))

    def navigate_and_wait(self, target_id: str, action: Callable[[str], None], timeout: float = LOAD_TIMEOUT_S) -> None:
        """Run ``action(session)`` (a navigation) and wait until the tab's new document has loaded."""
        session = self.session(target_id)
        before = self.evaluate("String(performance.timeOrigin)", target_id, timeout=3.0)
        action(session)

        def loaded() -> bool:
            now = self.evaluate("[String(performance.timeOrigin), document.readyState]", target_id, timeout=3.0)
            return now[0] != before and now[1] == "complete"

        try:
            poll_until(loaded, timeout, "the page to load", interval=0.05, retry_on=(DevToolsError,))
        except Exception:  # noqa: BLE001 - same-document navigations keep their origin time; the page is usable
            if self.ready_state(target_id) != "complete":
                raise DevToolsError(f"the page did not finish loading within {timeout:.0f}s") from None

    # ------------------------------------------------------------------ Chromium's own pages
    @contextmanager
    def webui_tab(self, url: str, ready: str, timeout: float = 10.0) -> Iterator[str]:
        """A background tab on the browser page ``url``, once ``ready`` (a JS expression) is true; closed after."""
        target = self.open_tab(url, background=True)
        try:
            poll_until(
                lambda: self.evaluate(f"document.readyState === 'complete' && !!({ready})", target, timeout=3.0),
                timeout,
                f"{url} to load",
                interval=0.05,
                retry_on=(DevToolsError,),
                error=DevToolsError,
            )
            yield target
        finally:
            try:
                self.close_tab(target)
            except DevToolsError:
                pass

    def on_webui(self, url: str, ready: str, function: str, *args: Any, timeout: float = 10.0) -> Any:
        """Open the browser page ``url`` in a background tab, wait for ``ready`` (a JS expression) to be
        true, call ``function(*args)`` there, close the tab and return the result."""
        deadline = time.monotonic() + timeout
        with self.webui_tab(url, ready, timeout) as target:
            return self.call(function, *args, target_id=target, timeout=max(1.0, deadline - time.monotonic()))


def wait_two_frames(profile: Path, timeout: float) -> bool:
    """Wait until the page in front of the Chromium running on ``profile`` has run two animation frames.

    A key or click sent through X reaches the page asynchronously (browser process, then renderer), and
    a still screen right after it can be a page that has not handled it yet: a VS Code step showed no
    new editor after ``ctrl+N``. Returns whether the frames ran within ``timeout``.

    Raises:
        DevToolsError: the browser does not answer.
    """
    deadline = time.monotonic() + timeout
    with connect(profile, timeout=timeout) as devtools:
        browser = Browser(devtools)
        for page in browser.pages():  # the one in front, within the one deadline (a hung tab costs no more)
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            try:
                if browser.evaluate("document.visibilityState", page["targetId"], timeout=left) != "visible":
                    continue
                left = max(0.001, deadline - time.monotonic())
                return (
                    browser.call(TWO_FRAMES_SCRIPT, int(left * 1000), target_id=page["targetId"], timeout=left + 0.5)
                    is True
                )
            except DevToolsError:
                continue
        return False
