"""Shared parts of the Chrome suite: the task base (seed the desktop's sites, start Chromium, open a
page), the state readers and the oracle helpers.

Every Chrome family starts a real Chromium on a fresh profile. The sites it may visit are the
desktop's own (``*.gym.test``, served by the guest); a family that needs its own data writes it to
``SITE_SEED`` before the browser starts, and the launch moves it out of the home into the site
server's private folder. Verifiers read the live browser (``ChromeTools``' read-only calls) and the
files the agent left.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import numpy as np

from ...apps.chrome.launch import SITE_SEED as LAUNCH_SITE_SEED
from ...apps.chrome.verify import read_state
from ..base import Task, TaskContext, TaskSetupError
from ..family_kit import pick, tool_call

NEWS = "http://news.gym.test/"
SHOP = "http://shop.gym.test/"
DOCS = "http://docs.gym.test/"
#: Where a task writes the sites' data before the browser starts (see ``desktop_gym.apps.chrome.launch``).
SITE_SEED = "~/" + LAUNCH_SITE_SEED
#: The news site's articles: (slug, title); the pages are ``NEWS + "article/" + slug``.
ARTICLES = (
    ("city-opens-new-library", "City Opens New Central Library"),
    ("river-festival-returns", "River Festival Returns This Summer"),
    ("tram-line-extension-approved", "Tram Line Extension Approved"),
    ("local-team-wins-cup", "Local Team Wins the Regional Cup"),
    ("spring-weather-outlook", "Spring Weather Outlook: Mild and Wet"),
    ("museum-late-nights", "Museum Adds Late-Night Openings"),
)
BOOKMARK_TITLES = ("Read later", "Library news", "Weekend plans", "Transit", "Sports", "Weather", "Museum")
FOLDER_NAMES = ("Work", "Research", "Travel", "Reading", "Projects", "Archive", "Ideas")


def article_url(slug: str) -> str:
    """The news site's page of one article."""
    return f"{NEWS}article/{slug}"


def other(rng: np.random.Generator, pool: Sequence[Any], value: Any) -> Any:
    """An item of ``pool`` that is not ``value``."""
    return pick(rng, [item for item in pool if item != value])


def chrome_call(method: str, **arguments: Any) -> str:
    """``ChromeTools.method(arg=...)`` as an action string."""
    return tool_call("ChromeTools", method, **arguments)


class ChromeTask(Task):
    """A task in the browser: ``setup`` seeds the sites, starts Chromium and opens ``start_url``."""

    apps: ClassVar[Sequence[str]] = ("chrome",)
    max_steps = 12
    tags: ClassVar[Sequence[str]] = ("chrome",)

    def site_data(self, params: Mapping[str, Any]) -> dict[str, Any] | None:
        """The sites' data for this episode (``users``, ``products``, ``files``, ...); None for the defaults."""
        return None

    def start_url(self, params: Mapping[str, Any]) -> str:
        """The page the browser shows when the episode starts."""
        return NEWS

    def prepare(self, ctx: TaskContext) -> None:
        """Change the browser before the agent starts (bookmarks to remove, pages in the history)."""

    def setup(self, ctx: TaskContext) -> None:
        data = self.site_data(ctx.params)
        if data is not None:
            ctx.client.put_file(SITE_SEED, json.dumps(data).encode())
        launched = ctx.client.launch_app("chrome", timeout=60.0)
        if not launched.alive:
            raise TaskSetupError("Chromium exited right after it started")
        ctx.client.call_api("ChromeTools", "navigate", json.dumps({"url": self.start_url(ctx.params)}), timeout=40.0)
        self.prepare(ctx)

    @staticmethod
    def state(ctx: TaskContext, method: str, **arguments: Any) -> Any:
        """A read-only ``ChromeTools`` call on the live browser."""
        return read_state(ctx.client, method, **arguments)
