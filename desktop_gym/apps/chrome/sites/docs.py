"""``docs.gym.test``: static help pages, one of them long (find-in-page, scrolling) and one a settings
reference table. The text is fixed, so task URLs and phrases are stable. Standard library only.
"""

from __future__ import annotations

from .web import Request, Response, esc, method_not_allowed, nav_bar, not_found, page

#: ``(path, title)`` of every page but the index, in reading order.
PAGES = (
    ("/getting-started", "Getting started"),
    ("/keyboard-shortcuts", "Keyboard shortcuts"),
    ("/settings", "Settings reference"),
    ("/handbook", "The operations handbook"),
)
NAV = nav_bar("Gym Docs", [(path, title) for path, title in PAGES])

#: One sentence that appears once, deep in the handbook (a find-in-page target).
HANDBOOK_NEEDLE = "The maintenance window starts at 02:30 on Sundays."
_NEEDLE_CHAPTER = 23

_CHAPTERS = (
    "Accounts", "Backups", "Billing", "Calendars", "Certificates", "Cleanup", "Databases", "Deployments",
    "Email", "Encryption", "Exports", "Firewalls", "Groups", "Imports", "Invoices", "Keys", "Licences",
    "Logging", "Mailing lists", "Monitoring", "Networks", "Notifications", "Passwords", "Maintenance",
    "Printers", "Quotas", "Reports", "Retention", "Scheduling", "Storage", "Support", "Updates",
)  # fmt: skip

_SHORTCUTS = (
    ("Ctrl+L", "Focus the address bar"),
    ("Ctrl+T", "Open a new tab"),
    ("Ctrl+W", "Close the current tab"),
    ("Ctrl+F", "Find text in the page"),
    ("Ctrl+D", "Bookmark the page"),
    ("Ctrl+H", "Show the history"),
    ("Ctrl+J", "Show the downloads"),
    ("Ctrl+R", "Reload the page"),
)

# (setting, type, default, description)
_SETTINGS = (
    ("language", "text", "en-US", "The language of menus and messages."),
    ("timezone", "text", "UTC", "The time zone dates are shown in."),
    ("page_size", "number", "25", "Rows shown on one page of a list."),
    ("theme", "choice", "light", "The colour theme: light, dark or system."),
    ("autosave_minutes", "number", "10", "Minutes between automatic saves; 0 turns autosave off."),
    ("notifications", "boolean", "true", "Whether to show desktop notifications."),
    ("backup_copies", "number", "7", "How many daily backups to keep."),
    ("session_timeout", "number", "30", "Minutes of inactivity before signing out."),
    ("export_format", "choice", "csv", "The default file format of exports: csv, xlsx or json."),
    ("start_page", "text", "/home", "The page opened after signing in."),
)


def _index() -> Response:
    items = "".join(f'<li><a href="{path}">{esc(title)}</a></li>' for path, title in PAGES)
    body = f'<h1>Gym Docs</h1><p>Help pages for the desktop\'s tools.</p><ul id="pages">{items}</ul>'
    return page("Gym Docs", body, nav=NAV)


def _getting_started() -> Response:
    body = (
        "<h1>Getting started</h1>"
        '<h2 id="sign-in">Sign in</h2><p>Open the shop at shop.gym.test and choose <em>Sign in</em>. '
        "Your user name and password are given by your administrator.</p>"
        '<h2 id="find">Find what you need</h2><p>Use the search box on the shop to look up products by name '
        "or category. Results come five to a page.</p>"
        '<h2 id="files">Download files</h2><p>The <em>Downloads</em> page lists the files you can save: '
        "order exports, notes and reports.</p>"
        '<h2 id="help">Get help</h2><p>Write to the support team with the contact form. '
        "Every message gets an answer within two working days.</p>"
    )
    return page("Getting started - Gym Docs", body, nav=NAV)


def _shortcuts() -> Response:
    items = "".join(f"<dt><kbd>{esc(keys)}</kbd></dt><dd>{esc(what)}</dd>" for keys, what in _SHORTCUTS)
    body = f'<h1>Keyboard shortcuts</h1><dl id="shortcuts">{items}</dl>'
    return page("Keyboard shortcuts - Gym Docs", body, nav=NAV)


def _settings() -> Response:
    head = "".join(f'<th scope="col">{name}</th>' for name in ("Setting", "Type", "Default", "Description"))
    rows = "".join(
        f'<tr id="setting-{esc(name)}"><td><code>{esc(name)}</code></td><td>{esc(kind)}</td>'
        f"<td>{esc(default)}</td><td>{esc(text)}</td></tr>"
        for name, kind, default, text in _SETTINGS
    )
    body = (
        "<h1>Settings reference</h1><p>Every setting, its type and its default value.</p>"
        f'<table id="settings"><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>'
    )
    return page("Settings reference - Gym Docs", body, nav=NAV)


def _chapter(number: int, topic: str) -> str:
    name = topic.lower()
    paragraphs = [
        f"Chapter {number} covers {name}. Read it before you change anything related to {name}, "
        f"and keep a note of each change in the team log.",
        f"Requests about {name} are answered by the operations desk. A routine request takes about "
        f"{number % 5 + 1} working days; an urgent one is handled the same day.",
        f"The {name} checklist has {number % 7 + 3} steps. Tick each step off as you go and ask a "
        f"colleague to review the result.",
    ]
    if number == _NEEDLE_CHAPTER:
        paragraphs.insert(1, HANDBOOK_NEEDLE + " No changes are made outside it.")
    text = "".join(f"<p>{esc(p)}</p>" for p in paragraphs)
    return f'<section><h2 id="chapter-{number}">{number}. {esc(topic)}</h2>{text}</section>'


def _handbook() -> Response:
    chapters = list(enumerate(_CHAPTERS, start=1))
    contents = "".join(f'<li><a href="#chapter-{n}">{esc(topic)}</a></li>' for n, topic in chapters)
    body = (
        "<h1>The operations handbook</h1>"
        f'<nav aria-label="Contents"><h2 id="contents">Contents</h2><ol id="toc">{contents}</ol></nav>'
        + "".join(_chapter(n, topic) for n, topic in chapters)
        + '<p id="end">End of the handbook.</p>'
    )
    return page("The operations handbook - Gym Docs", body, nav=NAV)


_ROUTES = {
    "/": _index,
    "/getting-started": _getting_started,
    "/keyboard-shortcuts": _shortcuts,
    "/settings": _settings,
    "/handbook": _handbook,
}


def route(request: Request) -> Response:
    """The docs site's answer to ``request`` (GET only)."""
    if request.method not in ("GET", "HEAD"):
        return method_not_allowed(nav=NAV)
    show = _ROUTES.get(request.path)
    return show() if show else not_found(NAV)
