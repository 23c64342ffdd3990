"""What every ``ChromeTools`` call shares: a DevTools connection per call, URL and path checks, caps."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, ClassVar
from urllib.parse import unquote, urlsplit

from ..devtools import DevToolsError, connect
from ..devtools_browser import Browser
from ..tools_base import ApiArgumentError, ApiCallError, AppTools
from .profile import DOWNLOADS_DIR, profile_dir

#: Caps on what one call may ask for or return.
MAX_TEXT_CHARS = 20000
MAX_URL_CHARS = 2048
MAX_RESULTS = 200
#: URL schemes an agent may open (``javascript:`` and ``file:`` outside the home are refused).
ALLOWED_SCHEMES = ("http", "https", "about", "chrome", "data", "file")


class ChromeToolsBase(AppTools):
    """The plumbing of the browser's tools (no tool methods of its own)."""

    uses_uno: ClassVar[bool] = False

    @contextmanager
    def _browser(self, timeout: float = 10.0) -> Iterator[Browser]:
        try:
            devtools = connect(profile_dir(self.home), timeout=timeout)
        except DevToolsError as error:
            raise ApiCallError(f"the browser is not running (launch chrome first): {error}") from None
        try:
            yield Browser(devtools)
        except DevToolsError as error:
            raise ApiCallError(f"the browser refused: {error}") from None
        finally:
            devtools.close()

    def _url(self, url: str) -> str:
        url = url.strip()
        if not url or len(url) > MAX_URL_CHARS:
            raise ApiArgumentError(f"a URL must have 1 to {MAX_URL_CHARS} characters")
        if url.startswith("~/"):
            url = (self.home / url[2:]).as_uri()
        scheme = urlsplit(url).scheme.lower()
        if not scheme:
            url, scheme = "http://" + url, "http"
        if scheme not in ALLOWED_SCHEMES:
            raise ApiArgumentError(f"cannot open a {scheme}: URL (allowed: {', '.join(ALLOWED_SCHEMES)})")
        if scheme == "file":
            self._home_path(unquote(urlsplit(url).path))  # a file of the session, not of the machine
        return url

    @staticmethod
    def _tab(browser: Browser, index: int | None) -> dict[str, Any]:
        pages = browser.pages()
        if index is None:
            return browser.active_page()
        if not 0 <= index < len(pages):
            raise ApiArgumentError(f"no tab {index}: {len(pages)} tabs are open (0 to {len(pages) - 1})")
        return pages[index]

    @staticmethod
    def _page_call(browser: Browser, script: str, *args: Any) -> Any:
        try:
            return browser.call(script, *args)
        except DevToolsError as error:
            raise ApiArgumentError(str(error).removeprefix("Error: ")) from None

    def _download_folder(self) -> Path:
        return self.home / DOWNLOADS_DIR

    def _home_path(self, path: str) -> Path:
        raw = Path(path[2:] if path.startswith("~/") else path)
        target = (raw if raw.is_absolute() else self.home / raw).resolve()
        if not target.is_relative_to(self.home.resolve()):
            raise ApiArgumentError(f"{path!r} is outside the home folder")
        return target
