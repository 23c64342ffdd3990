"""``PageTools``: the browser's tabs, navigation and the page in front (part of ``ChromeTools``)."""

from __future__ import annotations

import time
from typing import Any

from ..devtools import DevToolsError
from ..devtools_browser import Browser
from . import page_scripts
from .tools_common import MAX_RESULTS, MAX_TEXT_CHARS, ApiArgumentError, ChromeToolsBase


class PageTools(ChromeToolsBase):
    """Tabs, navigation, and reading and acting on the page in front."""

    # ------------------------------------------------------------------ tabs
    def list_tabs(self) -> list[dict[str, Any]]:
        """List the open tabs: index, title, URL and whether it is the active one."""
        with self._browser() as browser:
            active = browser.active_page()["targetId"]
            return [
                {"index": i, "title": p.get("title", ""), "url": p.get("url", ""), "active": p["targetId"] == active}
                for i, p in enumerate(browser.pages())
            ]

    def open_tab(self, url: str = "about:blank") -> int:
        """Open a URL in a new tab in front and wait for it to load; returns the new tab's index.

        Args:
            url: The address (``http://shop.gym.test/``); "about:blank" for an empty tab.
        """
        address = self._url(url)
        with self._browser(timeout=20.0) as browser:
            target = browser.open_tab("about:blank")
            browser.activate(target)
            if address != "about:blank":
                browser.navigate_and_wait(
                    target, lambda s: browser.devtools.send("Page.navigate", {"url": address}, session=s)
                )
            return [p["targetId"] for p in browser.pages()].index(target)

    def switch_tab(self, index: int) -> str:
        """Bring the tab at ``index`` (as ``list_tabs`` numbers them) to the front; returns its URL.

        Args:
            index: The tab's index, from 0.
        """
        with self._browser() as browser:
            page = self._tab(browser, index)
            browser.activate(page["targetId"])
            return page.get("url", "")

    def close_tab(self, index: int = -1) -> int:
        """Close a tab (default: the active one); returns how many tabs are left.

        Args:
            index: The tab's index, from 0; -1 for the active tab.
        """
        with self._browser() as browser:
            pages = browser.pages()
            if len(pages) <= 1:
                raise ApiArgumentError("cannot close the last tab (that would close the browser)")
            page = self._tab(browser, None if index == -1 else index)
            browser.close_tab(page["targetId"])
            return len(pages) - 1

    # ------------------------------------------------------------------ navigation
    def navigate(self, url: str) -> str:
        """Open a URL in the active tab and wait until it has loaded; returns the page title.

        Args:
            url: The address; without a scheme, http:// is assumed.
        """
        address = self._url(url)
        with self._browser(timeout=20.0) as browser:
            target = browser.active_page()["targetId"]

            def go(session: str) -> None:
                result = browser.devtools.send("Page.navigate", {"url": address}, session=session)
                if result.get("errorText"):
                    raise ApiArgumentError(f"cannot open {address}: {result['errorText']}")

            browser.navigate_and_wait(target, go)
            return str(browser.evaluate("document.title", target))

    def _history_step(self, step: int) -> str:
        with self._browser(timeout=20.0) as browser:
            target = browser.active_page()["targetId"]
            session = browser.session(target)
            history = browser.devtools.send("Page.getNavigationHistory", session=session)
            index = history["currentIndex"] + step
            if not 0 <= index < len(history["entries"]):
                raise ApiArgumentError("there is no page to go " + ("back to" if step < 0 else "forward to"))
            entry = history["entries"][index]["id"]
            browser.navigate_and_wait(
                target,
                lambda s: browser.devtools.send("Page.navigateToHistoryEntry", {"entryId": entry}, session=s),
            )
            return str(browser.evaluate("location.href", target))

    def go_back(self) -> str:
        """Go back one page in the active tab; returns the URL now shown."""
        return self._history_step(-1)

    def go_forward(self) -> str:
        """Go forward one page in the active tab; returns the URL now shown."""
        return self._history_step(1)

    def reload(self) -> str:
        """Reload the active tab and wait for it; returns its URL."""
        with self._browser(timeout=20.0) as browser:
            target = browser.active_page()["targetId"]
            browser.navigate_and_wait(target, lambda s: browser.devtools.send("Page.reload", session=s))
            return str(browser.evaluate("location.href", target))

    def get_url(self) -> str:
        """The active tab's URL."""
        with self._browser() as browser:
            return str(browser.evaluate("location.href"))

    def get_title(self) -> str:
        """The active tab's page title."""
        with self._browser() as browser:
            return str(browser.evaluate("document.title"))

    # ------------------------------------------------------------------ the page
    def get_page_text(self, max_chars: int = 4000) -> str:
        """The visible text of the active tab's page.

        Args:
            max_chars: At most this many characters (up to 20000).
        """
        with self._browser() as browser:
            return str(browser.call(page_scripts.PAGE_TEXT, max(0, min(int(max_chars), MAX_TEXT_CHARS))))

    def find_text(self, text: str) -> int:
        """Find text in the page (like ctrl+f): highlights the first match, returns how many there are.

        Args:
            text: The text to look for (case-insensitive).
        """
        if not text or len(text) > 1000:
            raise ApiArgumentError("the text to find must have 1 to 1000 characters")
        with self._browser() as browser:
            return int(browser.call(page_scripts.FIND_TEXT, text))

    def get_links(self, max_links: int = 50) -> list[list[str]]:
        """The page's links as [text, URL] pairs.

        Args:
            max_links: At most this many (up to 200).
        """
        with self._browser() as browser:
            return browser.call(page_scripts.LINKS, max(0, min(int(max_links), MAX_RESULTS)))

    def get_table(self, selector: str = "table") -> list[list[str]]:
        """The cell texts of a table in the page, row by row.

        Args:
            selector: A CSS selector of the table (default: the first table).
        """
        with self._browser() as browser:
            return self._page_call(browser, page_scripts.TABLE, selector)

    def click(self, selector: str = "", name: str = "") -> str:
        """Click an element, found by CSS selector or by its accessible name (label, text, aria-label).

        Args:
            selector: A CSS selector (``#login``, ``a[href="/downloads"]``).
            name: Or the element's visible name (``Sign in``).
        """
        with self._browser(timeout=20.0) as browser:
            target = browser.active_page()["targetId"]
            before = browser.evaluate("String(performance.timeOrigin)", target)
            clicked = self._page_call(browser, page_scripts.CLICK, selector, name)
            self._settle(browser, target, before)
            return str(clicked)

    def type_text(self, text: str, selector: str = "", name: str = "") -> str:
        """Type text into a field (replacing what it holds), found by CSS selector or accessible name.

        Args:
            text: What the field should hold.
            selector: A CSS selector of the field.
            name: Or its label, placeholder or name.
        """
        if len(text) > MAX_TEXT_CHARS:
            raise ApiArgumentError(f"at most {MAX_TEXT_CHARS} characters can be typed at once")
        with self._browser() as browser:
            return str(self._page_call(browser, page_scripts.SET_VALUE, selector, name, text))

    def fill_form(self, fields: dict[str, str], submit: bool = False) -> list[str]:
        """Fill several fields of a form at once, optionally submitting it.

        Args:
            fields: Field name (or id, label, CSS selector) -> value; a checkbox takes "true"/"false",
                a list its option's text or value.
            submit: Submit the form afterwards and wait for the next page.
        """
        if not isinstance(fields, dict) or not fields or len(fields) > 50:
            raise ApiArgumentError("fields must map 1 to 50 field names to values")
        with self._browser(timeout=20.0) as browser:
            target = browser.active_page()["targetId"]
            before = browser.evaluate("String(performance.timeOrigin)", target)
            filled = self._page_call(
                browser, page_scripts.FILL_FORM, {str(k): str(v) for k, v in fields.items()}, submit
            )
            if submit:
                self._settle(browser, target, before)
            return list(filled)

    def submit_form(self, selector: str = "") -> str:
        """Submit a form (default: the one holding the focused field, else the first) and wait for the result.

        Args:
            selector: A CSS selector of the form or of an element in it.
        """
        with self._browser(timeout=20.0) as browser:
            target = browser.active_page()["targetId"]
            before = browser.evaluate("String(performance.timeOrigin)", target)
            self._page_call(browser, page_scripts.SUBMIT, selector)
            self._settle(browser, target, before)
            return str(browser.evaluate("location.href", target))

    @staticmethod
    def _settle(browser: Browser, target: str, before: Any, timeout: float = 5.0) -> None:
        """After a click or submit: if it started a navigation, wait until the new page has loaded."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                origin, state = browser.evaluate("[String(performance.timeOrigin), document.readyState]", target, 3.0)
            except DevToolsError:
                origin, state = None, "loading"  # between two documents
            if origin == before and state == "complete":
                # No navigation started (yet): a short look for one, then done.
                if time.monotonic() > deadline - timeout + 0.3:
                    return
            elif origin != before and state == "complete":
                return
            time.sleep(0.05)
