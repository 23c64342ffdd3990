"""Verifiers of the live browser's state: its settings, the active tab's URL, the open tabs, bookmarks.

Each reads what one read-only ``ChromeTools`` call returns (``BROWSER_READS``): a JSON task's leaf
names that call in ``chrome`` (``{"name": "chrome_settings", "chrome": "get_settings", "args":
{...}}``) and the task fetches it from the running browser before the check. URLs compare as
:func:`same_url` says: the address bar's view of a page, so ``https://www.a.org/`` is ``http://a.org``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from .registry import register_verifier
from .result import VerifierResult

#: Each browser verifier -> the read-only ``ChromeTools`` call whose result it judges.
BROWSER_READS = {
    "chrome_settings": "get_settings",
    "chrome_url": "get_url",
    "chrome_tabs": "list_tabs",
    "chrome_bookmarks": "list_bookmarks",
}


def normal_url(url: str) -> str:
    """``url`` as the address bar shows it: ``http``/``https`` alike, host lower-case without a leading
    ``www.``, a lone ``/`` path dropped; query and fragment kept (OSWorld compares URLs this way)."""
    parts = urlsplit(url.strip())
    scheme = (parts.scheme or "http").lower()
    scheme = "https" if scheme == "http" else scheme
    host = parts.netloc.lower().removeprefix("www.")
    path = "" if parts.path == "/" else parts.path
    return urlunsplit((scheme, host, path, parts.query, parts.fragment))


def same_url(first: str, second: str) -> bool:
    """Whether two URLs name the same page as :func:`normal_url` sees it."""
    return normal_url(first) == normal_url(second)


def _unread(state: Any, kind: type, call: str) -> VerifierResult | None:
    if not isinstance(state, kind):
        return VerifierResult.failed(f"the browser's state was not read ({call} gave {type(state).__name__})")
    return None


@register_verifier("chrome_settings", reads="live")
def verify_chrome_settings(
    settings: Mapping[str, Any] | None,
    expected: Mapping[str, Any] | None = None,
    between: Mapping[str, Sequence[float]] | None = None,
) -> VerifierResult:
    """Check browser settings as ``ChromeTools.get_settings`` reads them.

    Args:
        settings: the settings read (``do_not_track``, ``font_size``, ``default_search_engine``, ...).
        expected: settings that must have exactly this value and type (``True`` is not ``1``).
        between: settings that must be a number strictly between the two bounds (``{"font_size": [16, 99999]}``).
    """
    from desktop_gym.apps.chrome.verify import verify_settings

    unread = _unread(settings, Mapping, "get_settings")
    if unread is not None:
        return unread
    if not expected and not between:
        return VerifierResult.failed("chrome_settings was given no setting to check (expected or between)")
    if expected:
        result = verify_settings(settings, expected)  # type: ignore[arg-type]
        if not result.success:
            return result
    for name, (low, high) in (between or {}).items():
        found = settings.get(name)  # type: ignore[union-attr]
        if isinstance(found, bool) or not isinstance(found, int | float) or not low < found < high:
            return VerifierResult.failed(f"the setting {name} is {found!r}, expected between {low} and {high}")
    return VerifierResult.passed(f"the settings {', '.join([*(expected or {}), *(between or {})])} are as asked")


@register_verifier("chrome_url", reads="live")
def verify_chrome_url(url: str | None, equals: str | None = None, patterns: Sequence[str] = ()) -> VerifierResult:
    """Check the active tab's URL (``ChromeTools.get_url``).

    Args:
        url: the active tab's URL.
        equals: the URL it must be (as :func:`same_url` compares).
        patterns: regular expressions that must each be found in it (``re.search``).
    """
    unread = _unread(url, str, "get_url")
    if unread is not None:
        return unread
    if equals is None and not patterns:
        return VerifierResult.failed("chrome_url was given nothing to check (equals or patterns)")
    if equals is not None and not same_url(url, equals):  # type: ignore[arg-type]
        return VerifierResult.failed(f"the active tab shows {url!r}, expected {equals!r}", found=url)
    for pattern in patterns:
        if not re.search(pattern, url):  # type: ignore[arg-type]
            return VerifierResult.failed(f"the active tab's URL {url!r} does not match /{pattern}/", found=url)
    return VerifierResult.passed(f"the active tab shows {url}")


@register_verifier("chrome_tabs", reads="live")
def verify_chrome_tabs(tabs: Sequence[Mapping[str, Any]] | None, urls: Sequence[str]) -> VerifierResult:
    """Check that the open tabs are exactly ``urls``, in any order (``ChromeTools.list_tabs``).

    Args:
        tabs: the open tabs, each with its ``url``.
        urls: the pages that must be open, one tab each, and no other tab (URLs compare as :func:`same_url`).
    """
    unread = _unread(tabs, list, "list_tabs")
    if unread is not None:
        return unread
    found = [str(tab.get("url", "")) for tab in tabs]  # type: ignore[union-attr]
    if sorted(map(normal_url, found)) != sorted(map(normal_url, urls)):
        return VerifierResult.failed(f"the open tabs are {found[:20]}, expected {list(urls)}", found=found[:20])
    return VerifierResult.passed(f"the {len(found)} expected tabs are open")


@register_verifier("chrome_bookmarks", reads="live")
def verify_chrome_bookmarks(
    bookmarks: Sequence[Mapping[str, Any]] | None, folder: str, urls: Sequence[str]
) -> VerifierResult:
    """Check the set of URLs bookmarked directly in one folder (``ChromeTools.list_bookmarks``).

    Args:
        bookmarks: every bookmark, each with its ``folder`` path and ``url``.
        folder: the folder's path, e.g. ``Bookmarks bar`` (case-insensitive); its subfolders do not count.
        urls: the URLs that must be bookmarked there, and no other (exact strings, duplicates allowed).
    """
    unread = _unread(bookmarks, list, "list_bookmarks")
    if unread is not None:
        return unread
    inside = {
        str(mark.get("url", ""))
        for mark in bookmarks  # type: ignore[union-attr]
        if str(mark.get("folder", "")).casefold() == folder.casefold()
    }
    if inside != set(urls):
        missing, extra = sorted(set(urls) - inside), sorted(inside - set(urls))
        return VerifierResult.failed(
            f"the bookmarks in {folder!r} differ: missing {missing[:10]}, unexpected {extra[:10]}",
            missing=missing[:20],
            unexpected=extra[:20],
        )
    return VerifierResult.passed(f"{folder!r} holds the {len(inside)} expected bookmarks")
