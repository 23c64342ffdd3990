"""What a site handler sees and returns: a parsed :class:`Request`, a :class:`Response`, and the shared
page layout. Every text that reaches a page goes through :func:`esc`. Standard library only.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

#: The domain every desktop site lives under (``news.gym.test``, ...).
SITE_DOMAIN = "gym.test"
NEWS_HOST = f"news.{SITE_DOMAIN}"
SHOP_HOST = f"shop.{SITE_DOMAIN}"
DOCS_HOST = f"docs.{SITE_DOMAIN}"
#: Every site, in the order the index lists them.
SITE_HOSTS = (NEWS_HOST, SHOP_HOST, DOCS_HOST)

HTML = "text/html; charset=utf-8"

# Plain and readable at 1280x720: one centred column, system fonts. The header comes after <main> in
# the document but is drawn on top (flex order), so the first Tab stop is the page's own first field.
_CSS = """
body{font-family:system-ui,sans-serif;font-size:16px;line-height:1.5;margin:0;color:#1d1d1f;background:#fafafa;
display:flex;flex-direction:column;min-height:100vh}
header{order:-1;background:#24466b;color:#fff;padding:10px 24px}
header a{color:#fff;margin-right:18px;text-decoration:none}
header .brand{font-weight:bold;font-size:18px}
main{box-sizing:border-box;width:100%;max-width:900px;margin:0 auto;padding:16px 24px 48px}
table{border-collapse:collapse;margin:12px 0}
th,td{border:1px solid #b8b8b8;padding:4px 10px;text-align:left}
th{background:#e8edf3}
label{display:block;margin-top:10px;font-weight:600}
input[type=text],input[type=password],input[type=email],select,textarea{font:inherit;width:340px;padding:4px}
input[type=checkbox]{margin-right:6px}
button{font:inherit;margin-top:12px;padding:5px 16px}
.error{color:#a40000;font-weight:600}
.result{margin:6px 0}
nav.pages a{margin-right:16px}
"""


@dataclass(frozen=True)
class Request:
    """One parsed request: the site's host, the decoded path, and the first value of each field."""

    method: str
    host: str
    path: str
    query: dict[str, str] = field(default_factory=dict)
    form: dict[str, str] = field(default_factory=dict)
    cookies: dict[str, str] = field(default_factory=dict)


@dataclass
class Response:
    """What the server sends back; ``headers`` are extra ones (the server adds length and type)."""

    status: int
    body: bytes = b""
    content_type: str = HTML
    headers: list[tuple[str, str]] = field(default_factory=list)


def esc(value: object) -> str:
    """``value`` as text safe inside HTML content and quoted attributes."""
    return html.escape(str(value), quote=True)


def page(title: str, body: str, *, nav: str = "", status: int = 200) -> Response:
    """A full HTML page: ``title`` (escaped here), ``body`` (already HTML) and the site's ``nav``."""
    document = (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<title>{esc(title)}</title><link rel="icon" href="data:,"><style>{_CSS}</style></head>'
        f'<body><main id="main">{body}</main>'
        f'<header><nav aria-label="Site">{nav}</nav></header></body></html>\n'
    )
    return Response(status, document.encode("utf-8"))


def nav_bar(brand: str, links: list[tuple[str, str]]) -> str:
    """A site's header links: the ``brand`` (to ``/``) then ``(href, text)`` pairs."""
    items = "".join(f'<a href="{esc(href)}">{esc(text)}</a>' for href, text in links)
    return f'<a class="brand" href="/">{esc(brand)}</a>{items}'


def message_page(status: int, title: str, text: str, *, nav: str = "") -> Response:
    """A short page with a heading and one paragraph (errors, notices)."""
    body = f'<h1>{esc(title)}</h1><p id="message">{esc(text)}</p>'
    return page(title, body, nav=nav, status=status)


def not_found(nav: str = "") -> Response:
    """The 404 page."""
    return message_page(404, "Page not found", "There is no page at this address.", nav=nav)


def method_not_allowed(allow: str = "GET, HEAD", nav: str = "") -> Response:
    """The 405 page, naming the methods allowed."""
    response = message_page(405, "Method not allowed", f"This page answers {allow} only.", nav=nav)
    response.headers.append(("Allow", allow))
    return response


def item_page(
    path: str, site: dict[str, Any], shows: tuple[tuple[str, Callable[[dict[str, Any], str], Response]], ...], nav: str
) -> Response:
    """The page of an item path: ``show(site, name)`` for the first ``(prefix, show)`` that ``path`` is
    ``prefix + name`` of (``name`` holding no ``/``, e.g. ``/article/<slug>``); else the 404 page."""
    for prefix, show in shows:
        if path.startswith(prefix) and "/" not in path[len(prefix) :]:
            return show(site, path[len(prefix) :])
    return not_found(nav)


def redirect(location: str, headers: list[tuple[str, str]] | None = None) -> Response:
    """A 303 to ``location`` (a path on the same site), with a tiny body for clients that show it."""
    body = f'<!doctype html><html><body><a href="{esc(location)}">Continue</a></body></html>'
    return Response(303, body.encode("utf-8"), headers=[("Location", location), *(headers or [])])
