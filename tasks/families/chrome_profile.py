"""Chrome families on the browser's own state: bookmarks and the settings OSWorld checks.

Verified on the live browser (``ChromeTools.list_bookmarks`` / ``get_settings`` read what the
bookmarks and settings pages show)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

from ...apps.chrome.verify import verify_bookmark, verify_no_bookmark, verify_settings
from ...verifiers import all_of
from ...verifiers.result import VerifierResult
from ..base import Policy, ScriptedPolicy, TaskContext
from ..family_kit import api_calls, pick
from .chrome_base import (
    ARTICLES,
    BOOKMARK_TITLES,
    DOCS,
    FOLDER_NAMES,
    NEWS,
    SHOP,
    ChromeTask,
    article_url,
    chrome_call,
    other,
)

BAR = "Bookmarks bar"
OTHER = "Other bookmarks"


class BookmarkPage(ChromeTask):
    """Bookmark one news article under a given name in the bookmarks bar."""

    id = "chrome.bookmark_page"
    goal = 'In Chromium, bookmark the news article "{article}" ({url}) in the bookmarks bar, named "{title}".'
    oracles = ("api",)
    tags = ("chrome", "bookmarks")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        slug, article = pick(rng, ARTICLES)
        return {"url": article_url(slug), "article": article, "title": pick(rng, BOOKMARK_TITLES)}

    def verify(self, ctx: TaskContext) -> VerifierResult:
        p = ctx.params
        return verify_bookmark(self.state(ctx, "list_bookmarks"), p["url"], p["title"], BAR)

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        return api_calls(chrome_call("add_bookmark", url=params["url"], title=params["title"], folder=BAR))

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "title": other(rng, BOOKMARK_TITLES, params["title"])}


class BookmarkFolder(ChromeTask):
    """Make a bookmarks-bar folder holding bookmarks of two pages."""

    id = "chrome.bookmark_folder"
    goal = (
        'In Chromium, create a folder named "{folder}" in the bookmarks bar and bookmark these two pages in it: '
        '{first} (named "{first_title}") and {second} (named "{second_title}").'
    )
    oracles = ("api",)
    tags = ("chrome", "bookmarks")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        (a, a_title), (b, b_title) = pick(rng, ARTICLES, 2)
        return {
            "folder": pick(rng, FOLDER_NAMES),
            "first": article_url(a),
            "first_title": a_title,
            "second": article_url(b),
            "second_title": b_title,
        }

    def verify(self, ctx: TaskContext) -> VerifierResult:
        p = ctx.params
        marks = self.state(ctx, "list_bookmarks")
        where = f"{BAR}/{p['folder']}"
        return all_of(
            {
                "first": verify_bookmark(marks, p["first"], p["first_title"], where),
                "second": verify_bookmark(marks, p["second"], p["second_title"], where),
            }
        )

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        where = f"{BAR}/{params['folder']}"
        return api_calls(
            chrome_call("create_bookmark_folder", name=params["folder"], parent=BAR),
            chrome_call("add_bookmark", url=params["first"], title=params["first_title"], folder=where),
            chrome_call("add_bookmark", url=params["second"], title=params["second_title"], folder=where),
        )

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "folder": other(rng, FOLDER_NAMES, params["folder"])}


class RemoveBookmark(ChromeTask):
    """Delete one of several bookmarks, keeping the others."""

    id = "chrome.remove_bookmark"
    goal = "In Chromium, delete the bookmark of {url} (and only that one; keep the other bookmarks)."
    oracles = ("api",)
    tags = ("chrome", "bookmarks")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        chosen = pick(rng, ARTICLES, 3)
        marks = [[article_url(slug), title] for slug, title in chosen]
        return {"bookmarks": marks, "url": marks[int(rng.integers(3))][0]}

    def prepare(self, ctx: TaskContext) -> None:
        for url, title in ctx.params["bookmarks"]:
            ctx.client.call_api("ChromeTools", "add_bookmark", json.dumps({"url": url, "title": title}), timeout=40.0)

    def verify(self, ctx: TaskContext) -> VerifierResult:
        marks = self.state(ctx, "list_bookmarks")
        checks = {"removed": verify_no_bookmark(marks, ctx.params["url"])}
        for url, title in ctx.params["bookmarks"]:
            if url != ctx.params["url"]:
                checks[f"kept {url}"] = verify_bookmark(marks, url, title, BAR)
        return all_of(checks)

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        return api_calls(chrome_call("remove_bookmark", url=params["url"]))

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        others = [url for url, _ in params["bookmarks"] if url != params["url"]]
        return {**params, "url": pick(rng, others)}


class OneSettingTask(ChromeTask):
    """Set one setting to a value drawn from ``choices``: verified on the live settings, done with one
    ``ChromeTools`` call, perturbed by another value of ``choices``."""

    setting: ClassVar[str]
    """The name ``get_settings`` reports it under."""
    method: ClassVar[str]
    """The ``ChromeTools`` setter and its argument."""
    argument: ClassVar[str]
    choices: ClassVar[tuple[Any, ...]]
    oracles = ("api",)

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        return {"value": pick(rng, self.choices)}

    def expected(self, params: Mapping[str, Any]) -> dict[str, Any]:
        return {self.setting: params["value"]}

    def verify(self, ctx: TaskContext) -> VerifierResult:
        return verify_settings(self.state(ctx, "get_settings"), self.expected(ctx.params))

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        return api_calls(chrome_call(self.method, **{self.argument: params["value"]}))

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "value": other(rng, self.choices, params["value"])}


class SetHomepage(OneSettingTask):
    """Set the browser's home page."""

    id = "chrome.set_homepage"
    goal = "Set Chromium's home page (what the Home button opens) to {value}."
    oracles = ("api",)
    tags = ("chrome", "settings")
    setting, method, argument = "homepage", "set_homepage", "url"
    choices = (NEWS, SHOP, DOCS, f"{SHOP}downloads", f"{DOCS}keyboard-shortcuts")

    def expected(self, params: Mapping[str, Any]) -> dict[str, Any]:
        return {"homepage": params["value"], "homepage_is_newtabpage": False}


class FontSize(OneSettingTask):
    """Change the default font size of web pages."""

    id = "chrome.font_size"
    goal = "Make web pages in Chromium use a default font size of {value} pixels (Settings > Appearance > Font size)."
    oracles = ("api",)
    tags = ("chrome", "settings", "accessibility")
    setting, method, argument = "font_size", "set_font_size", "size"
    choices = (9, 12, 20, 24, 28)


class DefaultZoom(OneSettingTask):
    """Set the default page zoom."""

    id = "chrome.default_zoom"
    goal = "Set Chromium's default page zoom to {value}% (Settings > Appearance > Page zoom)."
    oracles = ("api",)
    tags = ("chrome", "settings", "accessibility")
    setting, method, argument = "default_zoom", "set_default_zoom", "percent"
    choices = (75, 90, 110, 125, 150, 175)


class MinimumFontSize(OneSettingTask):
    """Set the smallest font size pages may use."""

    id = "chrome.minimum_font_size"
    goal = (
        "For readability, make Chromium never show web page text smaller than {value} pixels (the minimum font size)."
    )
    oracles = ("api",)
    tags = ("chrome", "settings", "accessibility")
    setting, method, argument = "minimum_font_size", "set_minimum_font_size", "size"
    choices = (6, 8, 10, 12, 14, 16, 18)


class PrivacySettings(ChromeTask):
    """Turn "Do Not Track" and third-party cookie blocking on or off, as asked."""

    id = "chrome.privacy_settings"
    goal = (
        'In Chromium\'s privacy settings, {dnt_word} sending "Do Not Track" requests and {cookies_word} '
        "third-party cookies."
    )
    oracles = ("api",)
    tags = ("chrome", "settings", "privacy")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        blocked = bool(rng.integers(2))  # "Do Not Track" is off by default: it is always turned on
        return {"dnt": True, "blocked": blocked, "dnt_word": "turn on", "cookies_word": "block" if blocked else "allow"}

    def verify(self, ctx: TaskContext) -> VerifierResult:
        expected = {"do_not_track": ctx.params["dnt"], "cookie_controls_mode": 1 if ctx.params["blocked"] else 0}
        return verify_settings(self.state(ctx, "get_settings"), expected)

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        return api_calls(
            chrome_call("set_do_not_track", enabled=params["dnt"]),
            chrome_call("set_third_party_cookies", blocked=params["blocked"]),
        )

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "blocked": not params["blocked"]}


class StartupPages(ChromeTask):
    """Open a given set of pages when the browser starts."""

    id = "chrome.startup_pages"
    goal = "Make Chromium open exactly these pages when it starts, in this order: {listed}."
    oracles = ("api",)
    tags = ("chrome", "settings")
    PAGES = (NEWS, SHOP, DOCS, f"{SHOP}downloads", f"{NEWS}tables/population")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        urls = [str(u) for u in pick(rng, self.PAGES, int(rng.integers(1, 4)))]
        return {"urls": urls, "listed": ", ".join(urls)}

    def verify(self, ctx: TaskContext) -> VerifierResult:
        expected = {"startup_urls": list(ctx.params["urls"]), "restore_on_startup": 4}
        return verify_settings(self.state(ctx, "get_settings"), expected)

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        return api_calls(chrome_call("set_startup_pages", urls=list(params["urls"])))

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        urls = list(params["urls"])
        urls[-1] = other(rng, [u for u in self.PAGES if u not in urls[:-1]], urls[-1])
        return {**params, "urls": urls}


class BookmarkOtherFolder(ChromeTask):
    """Bookmark a page under "Other bookmarks" (not the bar)."""

    id = "chrome.bookmark_other_folder"
    goal = 'In Chromium, bookmark {url} in the "Other bookmarks" folder (not the bookmarks bar), named "{title}".'
    oracles = ("api",)
    tags = ("chrome", "bookmarks")
    PAGES = (SHOP, DOCS, f"{SHOP}downloads", f"{SHOP}contact", f"{NEWS}tables/population")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        return {"url": pick(rng, self.PAGES), "title": pick(rng, BOOKMARK_TITLES)}

    def verify(self, ctx: TaskContext) -> VerifierResult:
        p = ctx.params
        return verify_bookmark(self.state(ctx, "list_bookmarks"), p["url"], p["title"], OTHER)

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        return api_calls(chrome_call("add_bookmark", url=params["url"], title=params["title"], folder=OTHER))

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "url": other(rng, self.PAGES, params["url"])}


class BookmarkCurrentPage(ChromeTask):
    """Bookmark the page that is open, under its own title."""

    id = "chrome.bookmark_current_page"
    goal = 'In Chromium, bookmark the page that is open now in "Other bookmarks", keeping the page\'s own title.'
    oracles = ("api", "gui")
    tags = ("chrome", "bookmarks")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        slug, headline = pick(rng, ARTICLES)
        return {"url": article_url(slug), "title": f"{headline} - Gym News"}

    def start_url(self, params: Mapping[str, Any]) -> str:
        return params["url"]

    def verify(self, ctx: TaskContext) -> VerifierResult:
        p = ctx.params
        return verify_bookmark(self.state(ctx, "list_bookmarks"), p["url"], p["title"], OTHER)

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        return api_calls(chrome_call("add_bookmark", url=params["url"], title=params["title"], folder=OTHER))

    def gui_oracle(self, params: Mapping[str, Any]) -> Policy:
        # ctrl+d bookmarks the page under its title into Other bookmarks (a new profile's default folder).
        return ScriptedPolicy(
            ["hotkey(keys=['ctrl', 'd'])", "wait(seconds=1)", "press(key='enter')", "exit(success=True)"]
        )

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        others = [(article_url(slug), f"{headline} - Gym News") for slug, headline in ARTICLES]
        url, title = other(rng, others, (params["url"], params["title"]))
        return {**params, "url": url, "title": title}


class BarAndSuggestions(ChromeTask):
    """Show the bookmarks bar and switch address-bar suggestions as asked."""

    id = "chrome.bookmarks_bar_and_suggestions"
    goal = (
        "In Chromium, show the bookmarks bar on every tab, and {suggest_word} search and URL suggestions in the "
        "address bar."
    )
    oracles = ("api",)
    tags = ("chrome", "settings")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        suggest = bool(rng.integers(2))
        return {"bar": True, "suggest": suggest, "suggest_word": "keep" if suggest else "turn off"}

    def verify(self, ctx: TaskContext) -> VerifierResult:
        expected = {"bookmark_bar": ctx.params["bar"], "search_suggestions": ctx.params["suggest"]}
        return verify_settings(self.state(ctx, "get_settings"), expected)

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        return api_calls(
            chrome_call("show_bookmarks_bar", visible=params["bar"]),
            chrome_call("set_search_suggestions", enabled=params["suggest"]),
        )

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "suggest": not params["suggest"]}


class StartupContinue(ChromeTask):
    """Make the browser reopen the last session's pages when it starts."""

    id = "chrome.startup_continue"
    goal = 'Set Chromium to "Continue where you left off" when it starts ({page} is open now; it should come back).'
    oracles = ("api",)
    tags = ("chrome", "settings")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        return {"page": pick(rng, (NEWS, SHOP, DOCS)), "mode": "continue"}

    def start_url(self, params: Mapping[str, Any]) -> str:
        return params["page"]

    def verify(self, ctx: TaskContext) -> VerifierResult:
        expected = {"restore_on_startup": {"continue": 1, "pages": 4, "new_tab": 5}[ctx.params["mode"]]}
        return verify_settings(self.state(ctx, "get_settings"), expected)

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        return api_calls(chrome_call("set_startup_behavior", behavior=params["mode"]))

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "mode": pick(rng, ("pages", "new_tab"))}
