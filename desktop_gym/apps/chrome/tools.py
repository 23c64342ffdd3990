"""``ChromeTools``: the browser's API, over the DevTools protocol, acting on the live browser.

Each call connects to the Chromium running on the session's profile (``~/.config/chromium``), acts
the way the GUI would (a navigation in the tab in front, a click on the element, a change made by
Chromium's own settings, bookmarks and history pages), and returns. A mistake the agent can make (no
such element, a bad URL, a tab index out of range) is an :class:`ApiArgumentError`; a browser that is
not running or does not answer is an :class:`ApiCallError`; both reach the agent as
``last_action_error``.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from ...polling import poll_until
from ..devtools import DevToolsError
from ..devtools_browser import Browser
from ..tools_base import slow
from . import webui_scripts
from .tools_common import MAX_RESULTS, ApiArgumentError, ApiCallError
from .tools_pages import PageTools

#: Seconds a download may take.
DOWNLOAD_TIMEOUT_S = 60.0
#: The settings ``get_settings`` reports: name -> Chromium preference.
SETTINGS = {
    "homepage": "homepage",
    "homepage_is_newtabpage": "homepage_is_newtabpage",
    "show_home_button": "browser.show_home_button",
    "restore_on_startup": "session.restore_on_startup",
    "startup_urls": "session.startup_urls",
    "font_size": "webkit.webprefs.default_font_size",
    "fixed_font_size": "webkit.webprefs.default_fixed_font_size",
    "minimum_font_size": "webkit.webprefs.minimum_font_size",
    "cookie_controls_mode": "profile.cookie_controls_mode",
    "do_not_track": "enable_do_not_track",
    "download_directory": "download.default_directory",
    "prompt_for_download": "download.prompt_for_download",
    "search_suggestions": "search.suggest_enabled",
    "bookmark_bar": "bookmark_bar.show_on_all_tabs",
}
_SETTINGS_READY = "chrome.settingsPrivate"
_BOOKMARKS_READY = "chrome.bookmarks"


class ChromeTools(PageTools):
    """Tabs, pages, bookmarks, history, downloads and settings of the desktop's Chromium."""

    # ------------------------------------------------------------------ bookmarks
    def list_bookmarks(self) -> list[dict[str, str]]:
        """Every bookmark: its folder path ("Bookmarks bar/Work"), title and URL."""
        script = webui_scripts.BOOKMARK_LIST
        with self._browser() as browser:
            return list(browser.on_webui("chrome://bookmarks", _BOOKMARKS_READY, script))[:1000]

    def add_bookmark(self, url: str, title: str = "", folder: str = "Bookmarks bar") -> str:
        """Bookmark a URL; returns the bookmark's title.

        Args:
            url: The address to bookmark.
            title: Its name (default: the URL).
            folder: The folder path, e.g. "Bookmarks bar" or "Other bookmarks/Work".
        """
        address = self._url(url)
        name = (title or address)[:500]
        script = webui_scripts.ADD_BOOKMARK
        with self._browser() as browser:
            try:
                return str(browser.on_webui("chrome://bookmarks", _BOOKMARKS_READY, script, folder, address, name))
            except DevToolsError as error:
                raise ApiArgumentError(str(error).removeprefix("Error: ")) from None

    def create_bookmark_folder(self, name: str, parent: str = "Bookmarks bar") -> str:
        """Create a bookmark folder; returns its path.

        Args:
            name: The new folder's name.
            parent: The folder to create it in ("Bookmarks bar", "Other bookmarks", or a path).
        """
        if not name.strip() or "/" in name or len(name) > 200:
            raise ApiArgumentError("a folder name must have 1 to 200 characters and no '/'")
        script = webui_scripts.ADD_FOLDER
        with self._browser() as browser:
            try:
                browser.on_webui("chrome://bookmarks", _BOOKMARKS_READY, script, parent, name.strip())
            except DevToolsError as error:
                raise ApiArgumentError(str(error).removeprefix("Error: ")) from None
            return f"{parent.strip('/')}/{name.strip()}"

    def remove_bookmark(self, url: str = "", title: str = "") -> int:
        """Remove the bookmarks of a URL (or with a title); returns how many were removed.

        Args:
            url: The bookmarked address.
            title: Or the bookmark's title.
        """
        if not url and not title:
            raise ApiArgumentError("give the bookmark's url or title")
        query = {"url": self._url(url)} if url else {"title": title}
        script = webui_scripts.REMOVE_BOOKMARKS
        with self._browser() as browser:
            return int(browser.on_webui("chrome://bookmarks", _BOOKMARKS_READY, script, query))

    # ------------------------------------------------------------------ history
    def search_history(self, text: str = "", max_results: int = 50) -> list[dict[str, str]]:
        """Pages in the browsing history (newest first) whose title or URL contains ``text``.

        Args:
            text: What to look for; "" for all.
            max_results: At most this many (up to 200).
        """
        limit = max(0, min(int(max_results), MAX_RESULTS))
        ready = "document.querySelector('history-app')"
        with self._browser() as browser, browser.webui_tab("chrome://history", ready) as target:
            # Read until the list stops changing (polled from here: a background tab's timers are throttled).
            reads: list[Any] = []

            def settled() -> bool:
                reads.append(browser.call(webui_scripts.HISTORY_ITEMS, target_id=target))
                return len(reads) >= 3 and reads[-1] == reads[-2] == reads[-3]

            poll_until(settled, 5.0, "the history list", interval=0.1, error=DevToolsError)
        wanted = text.casefold()
        found = [e for e in reads[-1] if not wanted or wanted in e["title"].casefold() or wanted in e["url"].casefold()]
        return found[:limit]

    # ------------------------------------------------------------------ downloads
    @slow(DOWNLOAD_TIMEOUT_S + 10)  # the download, and the browser calls around it
    def download(self, url: str) -> str:
        """Download a file into the download folder and wait until it is complete; returns its path.

        Args:
            url: The file's address (``http://shop.gym.test/files/orders.csv``).
        """
        address = self._url(url)
        with self._browser(timeout=30.0) as browser:
            folder = self._current_download_folder(browser)
            folder.mkdir(parents=True, exist_ok=True)
            browser.devtools.send(
                "Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(folder), "eventsEnabled": True}
            )
            target = browser.active_page()["targetId"]
            result = browser.devtools.send("Page.navigate", {"url": address}, session=browser.session(target))
            if result.get("errorText") and "ABORTED" not in result["errorText"]:
                raise ApiArgumentError(f"cannot download {address}: {result['errorText']}")
            begun = browser.devtools.wait_event("Browser.downloadWillBegin", timeout=15.0)["params"]
            deadline = time.monotonic() + DOWNLOAD_TIMEOUT_S
            while time.monotonic() < deadline:
                progress = browser.devtools.wait_event("Browser.downloadProgress", timeout=30.0)["params"]
                if progress.get("guid") != begun["guid"]:
                    continue
                if progress["state"] == "completed":
                    return self.shown_path(folder / begun["suggestedFilename"])
                if progress["state"] == "canceled":
                    raise ApiCallError(f"the download of {address} was canceled")
            raise ApiCallError(f"the download of {address} did not finish within {DOWNLOAD_TIMEOUT_S:.0f}s")

    def _current_download_folder(self, browser: Browser) -> Path:
        """The download folder the settings name (``~/Downloads`` when unset or outside the home)."""
        prefs = browser.on_webui(
            "chrome://settings", _SETTINGS_READY, webui_scripts.GET_PREFS, {"folder": SETTINGS["download_directory"]}
        )
        try:
            return self._home_path(str(prefs.get("folder") or self._download_folder()))
        except ApiArgumentError:
            return self._download_folder()

    def list_downloads(self) -> list[dict[str, Any]]:
        """The files in the download folder: name, size in bytes, and whether it is complete."""
        with self._browser() as browser:
            folder = self._current_download_folder(browser)
        if not folder.is_dir():
            return []
        out = []
        for path in sorted(folder.iterdir())[:MAX_RESULTS]:
            if path.is_file():
                partial = path.suffix == ".crdownload"
                out.append({"name": path.name, "size": path.stat().st_size, "complete": not partial})
        return out

    # ------------------------------------------------------------------ settings
    def _set_prefs(self, prefs: dict[str, Any]) -> None:
        """Set preferences the way the settings page does, all on one settings page."""
        with self._browser() as browser:
            try:
                with browser.webui_tab("chrome://settings", _SETTINGS_READY) as target:
                    for pref, value in prefs.items():
                        browser.call(webui_scripts.SET_PREF, pref, value, target_id=target)
            except DevToolsError as error:
                raise ApiArgumentError(str(error).removeprefix("Error: ")) from None

    def _set_pref(self, pref: str, value: Any) -> None:
        self._set_prefs({pref: value})

    def get_settings(self) -> dict[str, Any]:
        """The browser settings that tasks check: homepage, startup pages, font size, cookies, do-not-track,
        download folder, default zoom (percent) and default search engine."""
        script = webui_scripts.GET_PREFS
        with self._browser() as browser:
            settings = dict(browser.on_webui("chrome://settings", _SETTINGS_READY, script, SETTINGS))
            settings["default_search_engine"] = self._search_engines(browser)["default"]
            return settings

    def set_homepage(self, url: str, show_home_button: bool = True) -> str:
        """Set the home page (opened by the Home button) to a URL.

        Args:
            url: The home page's address.
            show_home_button: Also show the Home button in the toolbar.
        """
        address = self._url(url)
        self._set_prefs(
            {"homepage_is_newtabpage": False, "homepage": address, "browser.show_home_button": bool(show_home_button)}
        )
        return address

    def set_startup_behavior(self, behavior: str) -> str:
        """Choose what the browser opens when it starts (Settings > On startup).

        Args:
            behavior: "new_tab" (the New Tab page), "continue" (where you left off) or "pages" (the pages
                set with ``set_startup_pages``).
        """
        modes = {"new_tab": 5, "continue": 1, "pages": 4}
        if behavior not in modes:
            raise ApiArgumentError(f"behavior must be one of {', '.join(modes)}, got {behavior!r}")
        self._set_pref("session.restore_on_startup", modes[behavior])
        return behavior

    def set_startup_pages(self, urls: list[str]) -> list[str]:
        """Open these pages when the browser starts ("Open a specific set of pages").

        Args:
            urls: The pages' addresses (1 to 20).
        """
        if not isinstance(urls, list) or not 1 <= len(urls) <= 20:
            raise ApiArgumentError("urls must be a list of 1 to 20 addresses")
        addresses = [self._url(str(u)) for u in urls]
        self._set_prefs({"session.startup_urls": addresses, "session.restore_on_startup": 4})
        return addresses

    def set_font_size(self, size: int) -> int:
        """Set the default font size of web pages, in pixels (Chromium's "Font size": 9 to 72).

        Args:
            size: 9 (very small), 12 (small), 16 (medium, the default), 20 (large), 24 (very large), ...
        """
        if not 9 <= int(size) <= 72:
            raise ApiArgumentError("the font size must be 9 to 72 pixels")
        self._set_pref("webkit.webprefs.default_font_size", int(size))
        return int(size)

    def set_third_party_cookies(self, blocked: bool) -> bool:
        """Block or allow third-party cookies (Settings > Privacy > Third-party cookies).

        Args:
            blocked: True to block them, False to allow them.
        """
        self._set_pref("profile.cookie_controls_mode", 1 if blocked else 0)
        return bool(blocked)

    def set_do_not_track(self, enabled: bool) -> bool:
        """Send or stop sending a "Do Not Track" request with browsing traffic.

        Args:
            enabled: True to send it.
        """
        self._set_pref("enable_do_not_track", bool(enabled))
        return bool(enabled)

    def set_default_zoom(self, percent: int) -> int:
        """Set the default page zoom (Settings > Appearance > Page zoom), in percent (25 to 500).

        Args:
            percent: E.g. 110 or 125.
        """
        if not 25 <= int(percent) <= 500:
            raise ApiArgumentError("the zoom must be 25 to 500 percent")
        script = webui_scripts.SET_ZOOM
        with self._browser() as browser:
            browser.on_webui("chrome://settings", _SETTINGS_READY, script, int(percent) / 100)
        return int(percent)

    def set_minimum_font_size(self, size: int) -> int:
        """Set the smallest font size web pages may use, in pixels (0 to 24; 0 means no minimum).

        Args:
            size: The minimum size (Settings > Appearance > Customize fonts > Minimum font size).
        """
        if not 0 <= int(size) <= 24:
            raise ApiArgumentError("the minimum font size must be 0 to 24 pixels")
        self._set_pref("webkit.webprefs.minimum_font_size", int(size))
        return int(size)

    def show_bookmarks_bar(self, visible: bool) -> bool:
        """Show or hide the bookmarks bar below the address bar.

        Args:
            visible: True to show it on every tab.
        """
        self._set_pref("bookmark_bar.show_on_all_tabs", bool(visible))
        return bool(visible)

    def set_search_suggestions(self, enabled: bool) -> bool:
        """Turn "Autocomplete searches and URLs" (search suggestions in the address bar) on or off.

        Args:
            enabled: True to show suggestions.
        """
        self._set_pref("search.suggest_enabled", bool(enabled))
        return bool(enabled)

    def _search_engines(self, browser: Browser, action: str = "list", index: int = -1) -> dict[str, Any]:
        engines = browser.on_webui(
            "chrome://settings/searchEngines",
            "window.cr && window.cr.webUIResponse",
            webui_scripts.SEARCH_ENGINES,
            action,
            index,
        )
        listed = [*engines.get("defaults", []), *engines.get("others", [])]
        default = next((e["name"] for e in listed if e.get("default")), None)
        return {"default": default, "engines": listed}

    def set_default_search_engine(self, name: str) -> str:
        """Make one of the listed search engines the default (Settings > Search engine).

        Args:
            name: The engine's name or keyword (as ``get_settings`` and the settings page show them).
        """
        with self._browser() as browser:
            listed = self._search_engines(browser)["engines"]
            wanted = name.strip().lower()
            match = next(
                (e for e in listed if wanted in (e.get("name", "").lower(), e.get("keyword", "").lower())), None
            )
            if match is None or not match.get("canBeDefault", True):
                names = ", ".join(e["name"] for e in listed if e.get("canBeDefault", True))
                raise ApiArgumentError(f"no search engine {name!r} can be the default (choose from: {names})")
            now = self._search_engines(browser, "set", int(match["modelIndex"]))["default"]
            if now != match["name"]:
                raise ApiCallError(f"Chromium kept {now!r} as the default search engine")
            return str(now)

    # ------------------------------------------------------------------ the desktop's sites
    def site_submissions(self) -> list[dict[str, Any]]:
        """The forms submitted to the desktop's web app (shop.gym.test) since the browser started."""
        from .launch import site_data_dir
        from .sites import read_submissions

        data = site_data_dir()
        return [] if data is None else list(read_submissions(data))[-MAX_RESULTS:]
