"""``news.gym.test``: a home page of articles, the articles, and data tables (``/tables/<name>``).

Standard library only.
"""

from __future__ import annotations

from typing import Any

from .web import Request, Response, esc, item_page, method_not_allowed, nav_bar, not_found, page

NAV = nav_bar("Gym News", [("/", "Home"), ("/tables", "Data tables")])


def _home(site: dict[str, Any]) -> Response:
    items = "".join(
        f'<li class="article"><a href="/article/{esc(a["slug"])}">{esc(a["title"])}</a> '
        f'<time datetime="{esc(a["date"])}">{esc(a["date"])}</time></li>'
        for a in site["articles"]
    )
    body = f'<h1>Latest news</h1><ul id="articles">{items}</ul><p><a href="/tables">Data tables</a></p>'
    return page("Gym News", body, nav=NAV)


def _article(site: dict[str, Any], slug: str) -> Response:
    article = next((a for a in site["articles"] if a["slug"] == slug), None)
    if article is None:
        return not_found(NAV)
    paragraphs = "".join(f"<p>{esc(p.strip())}</p>" for p in article["body"].split("\n\n") if p.strip())
    body = (
        f'<article><h1 id="title">{esc(article["title"])}</h1>'
        f'<p><time id="date" datetime="{esc(article["date"])}">{esc(article["date"])}</time></p>'
        f'<div id="body">{paragraphs}</div></article><p><a href="/">Back to the news</a></p>'
    )
    return page(f"{article['title']} - Gym News", body, nav=NAV)


def _tables(site: dict[str, Any]) -> Response:
    items = "".join(
        f'<li><a href="/tables/{esc(name)}">{esc(table["title"] or name)}</a></li>'
        for name, table in site["tables"].items()
    )
    return page("Data tables - Gym News", f'<h1>Data tables</h1><ul id="tables">{items}</ul>', nav=NAV)


def _table(site: dict[str, Any], name: str) -> Response:
    table = site["tables"].get(name)
    if table is None:
        return not_found(NAV)
    title = table["title"] or name
    head = "".join(f'<th scope="col">{esc(column)}</th>' for column in table["columns"])
    rows = "".join("<tr>" + "".join(f"<td>{esc(cell)}</td>" for cell in row) + "</tr>" for row in table["rows"])
    body = (
        f"<h1>{esc(title)}</h1>"
        f'<table id="data"><caption>{esc(title)}</caption><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>'
    )
    return page(f"{title} - Gym News", body, nav=NAV)


def route(request: Request, site: dict[str, Any]) -> Response:
    """The news site's answer to ``request`` (GET only; anything else is a 405)."""
    if request.method not in ("GET", "HEAD"):
        return method_not_allowed(nav=NAV)
    path = request.path
    if path == "/":
        return _home(site)
    if path == "/tables":
        return _tables(site)
    return item_page(path, site, (("/article/", _article), ("/tables/", _table)), NAV)
