"""The desktop's offline sites: a real local server, reached as Chromium reaches it (an HTTP proxy, absolute-form
requests) and as curl does (origin form with a ``Host`` header). No desktop needed."""

from __future__ import annotations

import http.client
import http.cookiejar
import json
import re
import select
import socket
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import quote, urlencode

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from desktop_gym.apps.chrome import sites
from desktop_gym.apps.chrome.sites import (
    DOCS_HOST,
    HANDBOOK_NEEDLE,
    NEWS_HOST,
    SHOP_HOST,
    SiteServer,
    default_site,
    read_requests,
    read_submissions,
    seed,
)
from desktop_gym.apps.chrome.sites import docs as docs_site
from desktop_gym.apps.chrome.sites import store as site_store
from desktop_gym.errors import TaskSetupError

REPO = Path(__file__).resolve().parents[2]
Reply = tuple[int, dict[str, str], str]


@pytest.fixture
def server(tmp_path: Path) -> Iterator[SiteServer]:
    with SiteServer(tmp_path / "sites") as running:
        yield running


def fetch(
    server: SiteServer, host: str, path: str, *, method: str = "GET", body: bytes | None = None, **headers: str
) -> Reply:
    """One origin-form request routed by its ``Host`` header: ``(status, headers, text)``."""
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    try:
        connection.request(method, path, body=body, headers={"Host": host, **headers})
        response = connection.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read().decode()
    finally:
        connection.close()


def post_form(server: SiteServer, host: str, path: str, fields: dict[str, str], **headers: str) -> Reply:
    body = urlencode(fields).encode()
    kind = "application/x-www-form-urlencoded"
    return fetch(server, host, path, method="POST", body=body, **{"Content-Type": kind, **headers})


def browser(server: SiteServer) -> tuple[urllib.request.OpenerDirector, http.cookiejar.CookieJar]:
    """A urllib client using the server as its HTTP proxy (absolute-form requests), with cookies."""
    jar = http.cookiejar.CookieJar()
    proxy = urllib.request.ProxyHandler({"http": f"http://{server.address}"})
    return urllib.request.build_opener(proxy, urllib.request.HTTPCookieProcessor(jar)), jar


def open_page(opener: urllib.request.OpenerDirector, url: str, data: dict[str, str] | None = None) -> Reply:
    body = urlencode(data).encode() if data is not None else None
    try:
        with opener.open(url, data=body, timeout=10) as response:
            return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read().decode()
    except urllib.error.HTTPError as error:
        with error:
            return error.code, {k.lower(): v for k, v in error.headers.items()}, error.read().decode()


def title(text: str) -> str:
    found = re.search(r"<title>(.*?)</title>", text)
    assert found, "the page has no <title>"
    return found.group(1)


class _Tables(HTMLParser):
    """The cells of ``<table id=...>``: ``tables[id] = [[cell, ...], ...]``."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: dict[str, list[list[str]]] = {}
        self._table: list[list[str]] | None = None
        self._cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table":
            self._table = self.tables.setdefault(dict(attrs).get("id") or "", [])
        elif tag == "tr" and self._table is not None:
            self._table.append([])
        elif tag in ("td", "th") and self._table is not None:
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._table is not None and self._cell is not None:
            self._table[-1].append("".join(self._cell).strip())
            self._cell = None
        elif tag == "table":
            self._table = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def table(text: str, table_id: str) -> list[list[str]]:
    parser = _Tables()
    parser.feed(text)
    assert table_id in parser.tables, f"no <table id={table_id!r}>"
    return parser.tables[table_id]


# -- proxying and routing ------------------------------------------------------------------------


def test_the_proxy_serves_the_news_site_to_absolute_form_requests(server: SiteServer) -> None:
    opener, _ = browser(server)
    status, _, home = open_page(opener, "http://news.gym.test/")
    assert status == 200 and title(home) == "Gym News"
    slugs = re.findall(r'<li class="article"><a href="/article/([a-z0-9-]+)">', home)
    assert slugs == [a["slug"] for a in default_site()["articles"]] and len(slugs) == 6

    status, _, article = open_page(opener, f"http://news.gym.test/article/{slugs[2]}")
    assert status == 200
    assert '<h1 id="title">Tram Line Extension Approved</h1>' in article
    assert title(article) == "Tram Line Extension Approved - Gym News"
    assert 'id="date" datetime="2024-03-08"' in article and "university campus" in article
    assert open_page(opener, "http://news.gym.test/article/no-such-story")[0] == 404


def test_origin_form_requests_are_routed_by_the_host_header(server: SiteServer) -> None:
    assert title(fetch(server, DOCS_HOST, "/")[2]) == "Gym Docs"
    assert title(fetch(server, f"{SHOP_HOST}:80", "/")[2]) == "Gym Shop"
    status, _, own = fetch(server, server.address, "/")
    assert status == 200 and all(host in own for host in sites.SITE_HOSTS)
    assert fetch(server, "nowhere.gym.test", "/")[0] == 404


def test_hosts_outside_gym_test_get_an_offline_page(server: SiteServer) -> None:
    opener, _ = browser(server)
    status, _, text = open_page(opener, "http://example.com/search?q=news")
    assert status == 502
    assert "offline" in text and "*.gym.test" in text and "example.com" in text
    assert fetch(server, "127.0.0.1:1", "/")[0] == 502  # loopback, but another port is not the server
    assert fetch(server, "gym.test.evil.com", "/")[0] == 502
    assert post_form(server, "update.example.net", "/service", {"a": "b"})[0] == 502  # any method, any body


def test_connect_tunnels_are_refused_with_a_page(server: SiteServer) -> None:
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    try:
        connection.request("CONNECT", "shop.gym.test:443")
        response = connection.getresponse()
        assert response.status == 405 and "https" in response.read().decode()
    finally:
        connection.close()


def test_the_population_table_has_a_header_and_eight_numeric_rows(server: SiteServer) -> None:
    status, _, text = fetch(server, NEWS_HOST, "/tables/population")
    assert status == 200 and title(text) == "Population by region - Gym News"
    rows = table(text, "data")
    assert rows[0] == ["Region", "Population", "Area (km2)"]
    assert len(rows) == 9 and rows[1] == ["North Coast", "1284500", "8420"]
    assert all(row[1].isdigit() and row[2].isdigit() for row in rows[1:])


def test_the_docs_have_a_long_page_and_a_settings_table(server: SiteServer) -> None:
    status, _, handbook = fetch(server, DOCS_HOST, "/handbook")
    assert status == 200 and handbook.count(HANDBOOK_NEEDLE) == 1
    assert handbook.count('<h2 id="chapter-') >= 30 and len(handbook) > 15000
    settings_rows = table(fetch(server, DOCS_HOST, "/settings")[2], "settings")
    assert settings_rows[0] == ["Setting", "Type", "Default", "Description"]
    assert ["page_size", "number", "25", "Rows shown on one page of a list."] in settings_rows


# -- the shop --------------------------------------------------------------------------------------


def test_login_sets_a_random_session_cookie_and_shows_the_account(server: SiteServer) -> None:
    opener, jar = browser(server)
    assert "Sign in" in open_page(opener, "http://shop.gym.test/account")[2]  # redirected to /login
    status, _, text = open_page(opener, "http://shop.gym.test/login", {"username": "alice", "password": "wonderland"})
    assert status == 200 and "Signed in as <strong>alice</strong>" in text
    token = next(c.value for c in jar if c.name == "session")
    assert len(token) >= 24

    other, other_jar = browser(server)
    open_page(other, "http://shop.gym.test/login", {"username": "alice", "password": "wonderland"})
    assert next(c.value for c in other_jar if c.name == "session") != token

    status, _, home = open_page(opener, "http://shop.gym.test/logout")
    assert status == 200 and "Signed in as" not in home
    status, headers, _ = fetch(server, SHOP_HOST, "/account", Cookie=f"session={token}")
    assert status == 303 and headers["location"] == "/login"


def test_a_wrong_password_is_a_401_with_an_error_and_no_cookie(server: SiteServer) -> None:
    status, headers, text = post_form(server, SHOP_HOST, "/login", {"username": "alice", "password": "nope"})
    assert status == 401 and "set-cookie" not in headers
    assert re.search(r'id="error"[^>]*>Wrong user name or password\.<', text)
    assert 'value="alice"' in text
    assert post_form(server, SHOP_HOST, "/login", {"username": "mallory", "password": ""})[0] == 401


def test_search_is_case_insensitive_and_pages_five_at_a_time(server: SiteServer) -> None:
    first = fetch(server, SHOP_HOST, "/search?q=LAPTOP")[2]
    skus = re.findall(r'<li class="result" data-sku="([^"]+)">', first)
    assert skus == ["LAP-1001", "LAP-1002", "LAP-1003", "LAP-1004", "LAP-1005"]
    assert "6 results" in first and 'rel="next" href="/search?q=LAPTOP&amp;page=2"' in first
    assert 'rel="prev"' not in first

    second = fetch(server, SHOP_HOST, "/search?q=LAPTOP&page=2")[2]
    assert re.findall(r'data-sku="([^"]+)"', second) == ["LAP-1006"]
    assert 'rel="prev"' in second and 'rel="next"' not in second

    by_category = fetch(server, SHOP_HOST, "/search?q=audio")[2]
    assert by_category.count('class="result"') == 4
    assert fetch(server, SHOP_HOST, "/search?q=zzz-nothing")[2].count('class="result"') == 0
    product = fetch(server, SHOP_HOST, "/product/MON-5002")[2]
    assert '<h1 id="name">ClearView 27 Monitor</h1>' in product and '<span id="price">$279.00</span>' in product


def test_search_text_is_shown_escaped(server: SiteServer) -> None:
    query = "<script>alert('x')</script>\"><img src=x>"
    status, _, text = fetch(server, SHOP_HOST, "/search?" + urlencode({"q": query}))
    assert status == 200
    assert "<script>" not in text and "<img" not in text
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;&quot;&gt;&lt;img src=x&gt;" in text


def test_a_contact_message_is_stored_and_read_back(server: SiteServer) -> None:
    fields = {"name": "Ana", "email": "ana@example.org", "topic": "returns", "message": "Box arrived <b>damaged</b>."}
    status, _, text = post_form(server, SHOP_HOST, "/contact", {**fields, "subscribe": "yes"})
    assert status == 200 and 'id="thanks"' in text and "&lt;b&gt;" not in text.split('id="thanks"')[0]
    status, _, text = post_form(server, SHOP_HOST, "/contact", {**fields, "email": "not-an-email"})
    assert status == 400 and 'id="error"' in text and "Box arrived &lt;b&gt;damaged&lt;/b&gt;." in text

    assert post_form(server, SHOP_HOST, "/contact", {**fields, "topic": "bribes"})[0] == 400
    form = fetch(server, SHOP_HOST, "/contact")[2]
    assert tuple(re.findall(r'<option value="([^"]+)"', form)) == sites.CONTACT_TOPICS

    stored = read_submissions(server.data_dir)
    assert len(stored) == 1
    assert stored[0]["fields"] == {**fields, "subscribe": True}
    assert stored[0]["path"] == "/contact" and stored[0]["host"] == SHOP_HOST and stored[0]["time"] > 0


def test_contact_fields_are_capped_and_submissions_stop_at_the_cap(
    server: SiteServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(site_store, "MAX_SUBMISSIONS", 2)
    fields = {"name": "N" * 500, "email": "a@b.c", "topic": "other", "message": "m" * 9000}
    assert [post_form(server, SHOP_HOST, "/contact", fields)[0] for _ in range(3)] == [200, 200, 429]
    stored = read_submissions(server.data_dir)
    assert len(stored) == 2
    assert len(stored[0]["fields"]["name"]) == 100 and len(stored[0]["fields"]["message"]) == 4000
    assert stored[0]["fields"]["subscribe"] is False


def test_downloads_are_attachments_with_the_exact_content(server: SiteServer) -> None:
    listing = fetch(server, SHOP_HOST, "/downloads")[2]
    assert re.findall(r'href="/files/([^"]+)"', listing) == ["notes.txt", "orders.csv", "report.json"]
    status, headers, text = fetch(server, SHOP_HOST, "/files/orders.csv")
    assert status == 200
    assert headers["content-disposition"] == 'attachment; filename="orders.csv"'
    assert headers["content-type"] == "text/csv; charset=utf-8"
    assert text == default_site()["files"]["orders.csv"]
    lines = text.splitlines()
    assert lines[0] == "order_id,date,customer,sku,quantity,unit_price" and len(lines) == 11
    assert json.loads(fetch(server, SHOP_HOST, "/files/report.json")[2])["orders"] == 10


@pytest.mark.parametrize(
    "path", ["/files/../site.json", "/files/..%2fsite.json", "/files/%2e%2e%2fsite.json", "/files/.hidden", "/files/"]
)
def test_file_names_never_leave_the_seeded_files(server: SiteServer, path: str) -> None:
    seed(server.data_dir, files={"a.txt": "seeded"})
    status, headers, text = fetch(server, SHOP_HOST, path)
    assert status == 404 and "content-disposition" not in headers and '"files"' not in text


def test_seeding_overrides_products_and_files_after_the_server_started(server: SiteServer) -> None:
    products = [{"sku": "TEA-1", "name": "Green Tea <Sencha>", "category": "tea", "price": 4.5}]
    seed(server.data_dir, products=products, files={"invoice.csv": "id,total\n7,19.99\n"})
    text = fetch(server, SHOP_HOST, "/search?q=tea")[2]
    assert re.findall(r'data-sku="([^"]+)"', text) == ["TEA-1"] and "Green Tea &lt;Sencha&gt;" in text
    assert fetch(server, SHOP_HOST, "/search?q=laptop")[2].count('class="result"') == 0
    status, headers, body = fetch(server, SHOP_HOST, "/files/invoice.csv")
    assert (status, body) == (200, "id,total\n7,19.99\n")
    assert headers["content-disposition"] == 'attachment; filename="invoice.csv"'
    assert fetch(server, SHOP_HOST, "/files/orders.csv")[0] == 404
    # parts not seeded keep their defaults
    assert post_form(server, SHOP_HOST, "/login", {"username": "bob", "password": "builder42"})[0] == 303

    only = {"slug": "one", "title": "Only", "date": "", "body": "x"}
    seed(server.data_dir, users={"carol": "s3cret"}, articles=[only])
    assert post_form(server, SHOP_HOST, "/login", {"username": "carol", "password": "s3cret"})[0] == 303
    assert post_form(server, SHOP_HOST, "/login", {"username": "bob", "password": "builder42"})[0] == 401
    assert re.findall(r'href="/article/([^"]+)"', fetch(server, NEWS_HOST, "/")[2]) == ["one"]
    assert fetch(server, SHOP_HOST, "/search?q=laptop")[2].count('class="result"') == 5  # products: defaults again


def test_seeding_before_start_and_refusing_bad_entries(tmp_path: Path) -> None:
    seed(tmp_path, tables={"prices": {"title": "Prices", "columns": ["Item", "Price"], "rows": [["tea", 4.5]]}})
    with SiteServer(tmp_path) as server:
        assert table(fetch(server, NEWS_HOST, "/tables/prices")[2], "data") == [["Item", "Price"], ["tea", "4.5"]]
    with pytest.raises(TaskSetupError, match=r"products\[0\]\.price"):
        seed(tmp_path, products=[{"sku": "A", "name": "a", "category": "c", "price": "free"}])
    with pytest.raises(TaskSetupError, match=r"files\['\.\./x'\]"):
        seed(tmp_path, files={"../x": "escape"})
    with pytest.raises(TaskSetupError, match="recipes: not a part"):
        seed(tmp_path, recipes=[])
    assert "prices" in json.loads((tmp_path / sites.SITE_FILE).read_text())["tables"]  # unchanged


def test_a_broken_site_json_serves_the_defaults(server: SiteServer) -> None:
    (server.data_dir / sites.SITE_FILE).write_text("{not json")
    assert fetch(server, SHOP_HOST, "/search?q=laptop")[2].count('class="result"') == 5


# -- limits and failures ---------------------------------------------------------------------------


def test_an_oversized_body_is_a_413(server: SiteServer) -> None:
    body = b"message=" + b"x" * (sites.MAX_BODY_BYTES + 1)
    status, headers, text = fetch(
        server, SHOP_HOST, "/contact", method="POST", body=body, **{"Content-Type": "application/x-www-form-urlencoded"}
    )
    assert status == 413 and headers["connection"] == "close" and "at most" in text
    assert read_submissions(server.data_dir) == []


def test_a_too_long_address_and_too_many_headers_are_refused(server: SiteServer) -> None:
    assert fetch(server, SHOP_HOST, "/search?q=" + "a" * sites.MAX_URL_CHARS)[0] == 414
    many = {f"X-Header-{i}": "1" for i in range(80)}
    assert fetch(server, SHOP_HOST, "/", **many)[0] == 431


def test_a_failing_handler_is_a_short_500_page(server: SiteServer, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(request: object) -> object:
        raise RuntimeError("secret internals")

    monkeypatch.setattr(docs_site, "route", broken)
    status, _, text = fetch(server, DOCS_HOST, "/")
    assert status == 500 and "Server error" in text
    assert "Traceback" not in text and "secret internals" not in text
    assert fetch(server, NEWS_HOST, "/")[0] == 200  # the server goes on


def test_every_request_is_logged_and_the_log_is_capped(server: SiteServer, monkeypatch: pytest.MonkeyPatch) -> None:
    fetch(server, SHOP_HOST, "/search?q=mouse")
    fetch(server, "example.org", "/x")
    assert [(r["host"], r["path"], r["query"], r["method"], r["status"]) for r in read_requests(server.data_dir)] == [
        (SHOP_HOST, "/search", "q=mouse", "GET", 200),
        ("example.org", "/x", "", "GET", 502),
    ]
    monkeypatch.setattr(site_store, "MAX_LOG_BYTES", 4000)
    for i in range(60):
        fetch(server, NEWS_HOST, f"/article/{i}")
    log_file = server.data_dir / sites.REQUESTS_FILE
    assert log_file.stat().st_size <= 4000
    assert read_requests(server.data_dir)[-1]["path"] == "/article/59"


def test_a_slow_client_is_dropped(server: SiteServer, monkeypatch: pytest.MonkeyPatch) -> None:
    from desktop_gym.apps.chrome.sites import server as site_server

    monkeypatch.setattr(site_server._Handler, "timeout", 0.3)
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
    connection.connect()
    assert connection.sock is not None
    connection.sock.sendall(b"GET / HTTP/1.1\r\nHost: news.gym.test\r\n")  # never ends the headers
    assert connection.sock.recv(100) == b""  # closed by the server, not left hanging
    connection.close()


def test_connections_past_the_cap_are_closed_and_slots_come_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, wait_until: Callable[..., object]
) -> None:
    from desktop_gym.apps.chrome.sites import server as site_server

    monkeypatch.setattr(site_server, "MAX_CONNECTIONS", 2)
    with SiteServer(tmp_path) as server:
        idle = [socket.create_connection(("127.0.0.1", server.port), timeout=5) for _ in range(2)]
        extra = socket.create_connection(("127.0.0.1", server.port), timeout=5)
        assert extra.recv(100) == b""  # dropped on arrival: both slots are held by idle clients
        extra.close()
        for connection in idle:
            connection.close()
        assert wait_until(lambda: fetch(server, NEWS_HOST, "/")[0] == 200, 5.0, "a free connection slot")


_STATUSES = {200, 303, 400, 401, 404, 405, 411, 413, 414, 415, 429, 431, 502}
_HOSTS = [*sites.SITE_HOSTS, "gym.test", "x.gym.test", "example.com", "10.0.0.1"]
_printable = st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=120)


@pytest.fixture(scope="module")
def shared_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SiteServer]:
    with SiteServer(tmp_path_factory.mktemp("sites")) as running:
        yield running


@settings(max_examples=80)
@given(
    host=st.sampled_from(_HOSTS),
    prefix=st.sampled_from(["/", "/search?q=", "/files/", "/product/", "/article/", "/tables/", "/login?"]),
    text=_printable,
    method=st.sampled_from(["GET", "HEAD", "POST"]),
    body=_printable,
)
def test_arbitrary_addresses_never_break_the_server(
    shared_server: SiteServer, host: str, prefix: str, text: str, method: str, body: str
) -> None:
    target = f"http://{host}" + quote(prefix + text, safe="/?&=%#;:@!$'()*+,~-._")
    connection = http.client.HTTPConnection("127.0.0.1", shared_server.port, timeout=10)
    try:
        headers = {"Content-Type": "application/x-www-form-urlencoded"} if method == "POST" else {}
        connection.request(method, target, body=body.encode() if method == "POST" else None, headers=headers)
        response = connection.getresponse()
        content = response.read().decode()
    finally:
        connection.close()
    assert response.status in _STATUSES, (target, response.status)
    assert "Traceback" not in content
    if method != "HEAD":
        assert content.startswith("<!doctype html>") or response.getheader("Content-Disposition")


# -- the pages themselves ------------------------------------------------------------------------

_VOID = {"meta", "input", "br", "hr", "img", "link"}


class _Checker(HTMLParser):
    """Balanced tags, unique ids, every ``<label for>`` naming an element."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str] = []
        self.ids: list[str] = []
        self.label_targets: list[str] = []
        self.problems: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if values.get("id"):
            self.ids.append(values["id"] or "")
        if tag == "label" and values.get("for"):
            self.label_targets.append(values["for"] or "")
        if tag not in _VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if not self.stack or self.stack.pop() != tag:
            self.problems.append(f"unexpected </{tag}>")


_PAGES = [
    (NEWS_HOST, "/"),
    (NEWS_HOST, "/article/museum-late-nights"),
    (NEWS_HOST, "/tables"),
    (NEWS_HOST, "/tables/population"),
    (SHOP_HOST, "/"),
    (SHOP_HOST, "/search?q=a"),
    (SHOP_HOST, "/product/LAP-1001"),
    (SHOP_HOST, "/login"),
    (SHOP_HOST, "/contact"),
    (SHOP_HOST, "/downloads"),
    (SHOP_HOST, "/nope"),
    *[(DOCS_HOST, path) for path in ["/", *(p for p, _ in docs_site.PAGES)]],
    ("example.com", "/"),
]


@pytest.mark.parametrize(("host", "path"), _PAGES)
def test_every_page_is_well_formed_with_a_title_and_labelled_fields(server: SiteServer, host: str, path: str) -> None:
    text = fetch(server, host, path)[2]
    checker = _Checker()
    checker.feed(text)
    assert checker.problems == [] and checker.stack == [], (checker.problems, checker.stack)
    assert title(text) and len(set(checker.ids)) == len(checker.ids)
    assert set(checker.label_targets) <= set(checker.ids)


@pytest.mark.parametrize(("path", "first"), [("/login", "username"), ("/contact", "name"), ("/search", "q")])
def test_the_first_tab_stop_is_the_pages_first_field(server: SiteServer, path: str, first: str) -> None:
    text = fetch(server, SHOP_HOST, path)[2]
    focusable = re.search(r"<(a|input|select|textarea|button)\b[^>]*>", text)
    assert focusable and f'id="{first}"' in focusable.group(0), focusable  # the site's links come after <main>


def test_the_module_runs_in_the_foreground_and_prints_its_port(tmp_path: Path) -> None:
    command = [sys.executable, "-m", "desktop_gym.apps.chrome.sites", "--data", str(tmp_path)]
    process = subprocess.Popen(command, cwd=REPO, stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        ready, _, _ = select.select([process.stdout], [], [], 30)
        assert ready, "no port line within 30 s"
        line = process.stdout.readline().strip()
        assert re.fullmatch(r"port=\d+", line), line
        port = int(line.split("=")[1])
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        connection.request("GET", "/", headers={"Host": NEWS_HOST})
        assert connection.getresponse().status == 200
        connection.close()
    finally:
        process.terminate()
        assert process.wait(timeout=10) == 0


def test_the_built_in_data_is_valid_seed_data(tmp_path: Path) -> None:
    from desktop_gym.apps.chrome.sites.schema import check_parts

    assert check_parts(default_site())[1] == []
    seed(tmp_path, **default_site())  # a task may start from the defaults and change a part
    assert json.loads((tmp_path / sites.SITE_FILE).read_text())["users"] == {"alice": "wonderland", "bob": "builder42"}
