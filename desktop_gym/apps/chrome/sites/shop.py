"""``shop.gym.test``: a small web shop over the seeded products, users and files.

Pages: ``/`` home, ``/search?q=&page=`` (5 results a page, ``rel="next"``/``rel="prev"`` links),
``/product/<sku>``, ``/login``, ``/account``, ``/logout`` (:mod:`.accounts`), ``/contact`` (its POST is
stored as a submission, answered with ``id="thanks"``), ``/downloads`` and ``/files/<name>`` (an
attachment). Standard library only.
"""

from __future__ import annotations

import mimetypes
from typing import Any
from urllib.parse import urlencode

from . import accounts
from .schema import FILE_NAME
from .store import SiteStore
from .web import Request, Response, esc, item_page, message_page, method_not_allowed, nav_bar, not_found, page

NAV = nav_bar(
    "Gym Shop",
    [("/search", "Search"), ("/downloads", "Downloads"), ("/contact", "Contact"), ("/account", "Account")],
)
PAGE_SIZE = 5
#: The contact form's topic options (the `<select name="topic">` values).
CONTACT_TOPICS = ("order", "returns", "billing", "other")
#: The contact form's text fields and the longest value each keeps.
CONTACT_FIELDS = {"name": 100, "email": 200, "message": 4000}
_TYPES = {".csv": "text/csv", ".txt": "text/plain", ".json": "application/json", ".md": "text/markdown"}


def _price(value: float) -> str:
    return f"${value:,.2f}"


def _search_form(query: str) -> str:
    return (
        '<form id="search" role="search" method="get" action="/search">'
        '<label for="q">Search products</label>'
        f'<input type="text" id="q" name="q" value="{esc(query)}" maxlength="200">'
        ' <button type="submit">Search</button></form>'
    )


def _home(site: dict[str, Any], user: str | None) -> Response:
    categories = sorted({p["category"] for p in site["products"]})
    links = "".join(f'<li><a href="/search?{esc(urlencode({"q": c}))}">{esc(c)}</a></li>' for c in categories)
    status = f"Signed in as {esc(user)}" if user else '<a href="/login">Sign in</a>'
    body = (
        f'<h1>Welcome to Gym Shop</h1><p id="status">{status}</p>{_search_form("")}'
        f'<h2>Categories</h2><ul id="categories">{links}</ul>'
    )
    return page("Gym Shop", body, nav=NAV)


def _page_number(text: str) -> int:
    return int(text) if text.isdigit() and len(text) < 7 else 1


def _search(request: Request, site: dict[str, Any]) -> Response:
    query = request.query.get("q", "").strip()
    needle = query.casefold()
    found = [p for p in site["products"] if needle in p["name"].casefold() or needle in p["category"].casefold()]
    pages = max(1, -(-len(found) // PAGE_SIZE))
    number = min(max(1, _page_number(request.query.get("page", "1"))), pages)
    shown = found[(number - 1) * PAGE_SIZE : number * PAGE_SIZE]
    items = "".join(
        f'<li class="result" data-sku="{esc(p["sku"])}"><a href="/product/{esc(p["sku"])}">{esc(p["name"])}</a> '
        f'<span class="category">{esc(p["category"])}</span> <span class="price">{_price(p["price"])}</span></li>'
        for p in shown
    )
    links = []
    for rel, target, text in (("prev", number - 1, "Previous"), ("next", number + 1, "Next")):
        if 1 <= target <= pages:
            href = "/search?" + urlencode({"q": query, "page": target})
            links.append(f'<a rel="{rel}" href="{esc(href)}">{text}</a>')
    summary = f"{len(found)} results for \u201c{esc(query)}\u201d, page {number} of {pages}"
    body = (
        f'<h1>Search</h1>{_search_form(query)}<p id="summary">{summary}</p>'
        f'<ol id="results">{items}</ol><nav class="pages" aria-label="Pages">{"".join(links)}</nav>'
    )
    return page(f"Search: {query} - Gym Shop" if query else "Search - Gym Shop", body, nav=NAV)


def _product(site: dict[str, Any], sku: str) -> Response:
    product = next((p for p in site["products"] if p["sku"] == sku), None)
    if product is None:
        return not_found(NAV)
    body = (
        f'<h1 id="name">{esc(product["name"])}</h1>'
        f'<p>Price: <span id="price">{_price(product["price"])}</span></p>'
        f'<p>Category: <span id="category">{esc(product["category"])}</span></p>'
        f'<p>SKU: <span id="sku">{esc(product["sku"])}</span></p>'
        + (f'<p id="description">{esc(product["description"])}</p>' if product["description"] else "")
    )
    return page(f"{product['name']} - Gym Shop", body, nav=NAV)


def _contact_form(values: dict[str, str], *, error: str = "", status: int = 200) -> Response:
    def field(name: str, label: str, kind: str) -> str:
        limit = CONTACT_FIELDS[name]
        value = esc(values.get(name, ""))
        return (
            f'<label for="{name}">{label}</label>'
            f'<input type="{kind}" id="{name}" name="{name}" value="{value}" maxlength="{limit}" required>'
        )

    options = "".join(
        f'<option value="{t}"{" selected" if values.get("topic") == t else ""}>{t.capitalize()}</option>'
        for t in CONTACT_TOPICS
    )
    checked = " checked" if values.get("subscribe") else ""
    alert = f'<p id="error" class="error" role="alert">{esc(error)}</p>' if error else ""
    body = (
        f'<h1>Contact us</h1>{alert}<form id="contact" method="post" action="/contact">'
        f"{field('name', 'Name', 'text')}{field('email', 'Email', 'email')}"
        f'<label for="topic">Topic</label><select id="topic" name="topic">{options}</select>'
        '<label for="message">Message</label>'
        f'<textarea id="message" name="message" rows="6" cols="50" maxlength="{CONTACT_FIELDS["message"]}" required>'
        f"{esc(values.get('message', ''))}</textarea>"
        f'<div><input type="checkbox" id="subscribe" name="subscribe" value="yes"{checked}>'
        '<label for="subscribe" style="display:inline">Send me the newsletter</label></div>'
        '<div><button type="submit" id="send">Send</button></div></form>'
    )
    return page("Contact us - Gym Shop", body, nav=NAV, status=status)


def _contact_problem(fields: dict[str, Any]) -> str:
    if not fields["name"].strip() or not fields["message"].strip():
        return "Please fill in your name and a message."
    if "@" not in fields["email"]:
        return "Please enter a valid email address."
    if fields["topic"] not in CONTACT_TOPICS:
        return "Please choose a topic from the list."
    return ""


def _contact(request: Request, store: SiteStore) -> Response:
    fields: dict[str, Any] = {name: request.form.get(name, "")[:limit] for name, limit in CONTACT_FIELDS.items()}
    fields["topic"] = request.form.get("topic", "")[:40]
    fields["subscribe"] = "subscribe" in request.form
    problem = _contact_problem(fields)
    if problem:
        shown = {k: v for k, v in fields.items() if isinstance(v, str)}
        shown["subscribe"] = "yes" if fields["subscribe"] else ""
        return _contact_form(shown, error=problem, status=400)
    if not store.add_submission(request.host, request.path, fields):
        return message_page(429, "Too many messages", "The shop is not taking more messages.", nav=NAV)
    thanks = f"Thanks, {esc(fields['name'])}! We will answer at {esc(fields['email'])}."
    body = f'<h1>Thank you</h1><p id="thanks">{thanks}</p>'
    return page("Message sent - Gym Shop", body, nav=NAV)


def _downloads(site: dict[str, Any]) -> Response:
    items = "".join(
        f'<li><a href="/files/{esc(name)}" download>{esc(name)}</a> '
        f'<span class="size">({len(text.encode("utf-8"))} bytes)</span></li>'
        for name, text in sorted(site["files"].items())
    )
    return page("Downloads - Gym Shop", f'<h1>Downloads</h1><ul id="files">{items}</ul>', nav=NAV)


def _file(site: dict[str, Any], name: str) -> Response:
    text = site["files"].get(name) if FILE_NAME.fullmatch(name) and ".." not in name else None
    if text is None:
        return not_found(NAV)
    suffix = name[name.rfind(".") :].lower() if "." in name else ""
    kind = _TYPES.get(suffix) or mimetypes.types_map.get(suffix, "application/octet-stream")
    if kind.startswith("text/") or kind == "application/json":
        kind += "; charset=utf-8"
    disposition = ("Content-Disposition", f'attachment; filename="{name}"')
    return Response(200, text.encode("utf-8"), kind, [disposition])


class Shop:
    """The shop site: routes requests over the current site data, keeps sessions, stores submissions."""

    def __init__(self, store: SiteStore) -> None:
        self.store = store
        self.sessions = accounts.Sessions()

    def route(self, request: Request, site: dict[str, Any]) -> Response:
        """The shop's answer to ``request``."""
        path, method = request.path, request.method
        reading = method in ("GET", "HEAD")
        if path in ("/login", "/contact", "/logout"):
            if not reading and method != "POST":
                return method_not_allowed("GET, HEAD, POST", NAV)
            return self._form_page(request, site, posted=method == "POST")
        if not reading:
            return method_not_allowed(nav=NAV)
        if path == "/":
            return _home(site, accounts.signed_in(request, site, self.sessions))
        if path == "/search":
            return _search(request, site)
        if path == "/account":
            return accounts.account(request, site, self.sessions, NAV)
        if path == "/downloads":
            return _downloads(site)
        return item_page(path, site, (("/product/", _product), ("/files/", _file)), NAV)

    def _form_page(self, request: Request, site: dict[str, Any], *, posted: bool) -> Response:
        if request.path == "/logout":
            return accounts.logout(request, self.sessions)
        if request.path == "/login":
            if posted:
                return accounts.login(request, site, self.sessions, NAV)
            return accounts.login_form(NAV)
        return _contact(request, self.store) if posted else _contact_form({})
