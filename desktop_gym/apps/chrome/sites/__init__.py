"""The desktop's offline web: ``news.gym.test``, ``shop.gym.test`` and ``docs.gym.test``, served by one
local server that is also Chromium's HTTP proxy (no other host is reachable).

A task seeds the sites with :func:`seed` (``site.json`` in the data folder) and a verifier reads what
happened with :func:`read_submissions` and :func:`read_requests`. Standard library only: the guest
runs it (``python -m desktop_gym.apps.chrome.sites --data DIR``).
"""

from __future__ import annotations

from .defaults import default_site
from .docs import HANDBOOK_NEEDLE
from .server import MAX_BODY_BYTES, MAX_URL_CHARS, SiteServer
from .shop import CONTACT_TOPICS
from .store import (
    MAX_SUBMISSIONS,
    REQUESTS_FILE,
    SITE_FILE,
    SUBMISSIONS_FILE,
    clear_state,
    read_requests,
    read_submissions,
    seed,
)
from .web import DOCS_HOST, NEWS_HOST, SHOP_HOST, SITE_DOMAIN, SITE_HOSTS

__all__ = [
    "CONTACT_TOPICS",
    "DOCS_HOST",
    "HANDBOOK_NEEDLE",
    "MAX_BODY_BYTES",
    "MAX_SUBMISSIONS",
    "MAX_URL_CHARS",
    "NEWS_HOST",
    "REQUESTS_FILE",
    "SHOP_HOST",
    "SITE_DOMAIN",
    "SITE_FILE",
    "SITE_HOSTS",
    "SUBMISSIONS_FILE",
    "SiteServer",
    "clear_state",
    "default_site",
    "read_requests",
    "read_submissions",
    "seed",
]
