"""The desktop's web server: an HTTP forward proxy that serves the ``*.gym.test`` sites itself.

Chromium runs with ``--proxy-server=http://127.0.0.1:PORT``, so its requests arrive in absolute form
(``GET http://shop.gym.test/search?q=x HTTP/1.1``); origin-form requests (curl, tests) are routed by
their ``Host`` header. Any other host gets a 502 page saying the desktop is offline; ``CONNECT``
(https) a 405. Every limit an agent could push is capped (URL, headers, body, fields, connections,
socket idle time), every handler error is a short 500 page (the traceback goes to the log), and
every request is logged to the data folder (:mod:`.store`). Standard library only.
"""

from __future__ import annotations

import functools
import logging
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from . import docs, news
from .shop import Shop
from .store import SiteStore
from .web import DOCS_HOST, NEWS_HOST, SHOP_HOST, SITE_DOMAIN, SITE_HOSTS, Request, Response, esc, message_page, page

log = logging.getLogger(__name__)

#: The longest request target accepted (longer: 414).
MAX_URL_CHARS = 4096
#: The biggest request body accepted (bigger: 413).
MAX_BODY_BYTES = 64 * 1024
#: Headers a request may carry (more: 431).
MAX_HEADERS = 64
#: Query or form fields parsed at most (more: 400), and the characters each value keeps.
MAX_FIELDS = 100
MAX_FIELD_CHARS = 4096
#: Seconds a connection may sit without sending a byte before it is dropped.
SOCKET_TIMEOUT_S = 10.0
#: Connections served at once; more are closed on arrival.
MAX_CONNECTIONS = 128


class _Reject(Exception):
    """A request refused before it reaches a site (the response says why)."""

    def __init__(self, response: Response, *, close: bool = False) -> None:
        super().__init__(response.status)
        self.response, self.close = response, close


def _index(address: str) -> Response:
    items = "".join(f'<li><a href="http://{host}/">{host}</a></li>' for host in SITE_HOSTS)
    body = f'<h1>Desktop sites</h1><p>Serving on {esc(address)}:</p><ul id="sites">{items}</ul>'
    return page("Desktop sites", body)


def _offline(host: str) -> Response:
    links = ", ".join(f'<a href="http://{h}/">{h}</a>' for h in SITE_HOSTS)
    body = (
        f'<h1>No connection</h1><p id="message">{esc(host) or "This site"} cannot be reached: this desktop is '
        f"offline. Only the *.{SITE_DOMAIN} sites exist: {links}.</p>"
    )
    return page("Offline", body, status=502)


class SiteApp:
    """Routes a parsed request to its site over the store's current data."""

    def __init__(self, store: SiteStore) -> None:
        self.store = store
        self.shop = Shop(store)

    def respond(self, request: Request) -> Response:
        """The answer of the site at ``request.host`` (a 404 page for an unknown ``*.gym.test``)."""
        site = self.store.site()
        if request.host == NEWS_HOST:
            return news.route(request, site)
        if request.host == SHOP_HOST:
            return self.shop.route(request, site)
        if request.host == DOCS_HOST:
            return docs.route(request)
        if request.host in (SITE_DOMAIN, f"www.{SITE_DOMAIN}") and request.path == "/":
            return _index(SITE_DOMAIN)
        return message_page(404, "No such site", f"There is no site at {request.host}.")


def _too_large() -> Response:
    return message_page(413, "Too large", f"Request bodies are at most {MAX_BODY_BYTES} bytes.")


def _first_values(text: str) -> dict[str, str]:
    try:
        fields = parse_qs(text, keep_blank_values=True, max_num_fields=MAX_FIELDS)
    except ValueError as error:  # too many fields
        raise _Reject(message_page(400, "Bad request", "Too many fields."), close=True) from error
    return {name[:200]: values[0][:MAX_FIELD_CHARS] for name, values in fields.items()}


def _cookies(header: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in header.split(";")[:50]:
        name, _, value = item.strip().partition("=")
        if name:
            out.setdefault(name, value.strip().strip('"'))
    return out


def _split_host(netloc: str) -> tuple[str, int | None]:
    """``(host name, port)`` of a ``Host`` header or a URL's authority; ValueError if malformed."""
    parts = urlsplit("//" + netloc)
    return (parts.hostname or "").rstrip(".").lower(), parts.port


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "GymSites/1.0"
    sys_version = ""
    timeout = SOCKET_TIMEOUT_S
    server: _Server

    def do_GET(self) -> None:
        self._serve()

    do_HEAD = do_POST = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = do_GET

    def do_CONNECT(self) -> None:
        text = f"Secure (https) connections are not available; use http:// addresses of *.{SITE_DOMAIN}."
        self._finish(message_page(405, "No secure connections", text), self.path.split(":")[0], "", close=True)

    def _serve(self) -> None:
        host, path, query = "", self.path, ""
        close = False
        try:
            host, port, path, query = self._target()
            body = self._body()
            if self._is_own(host, port):
                raise _Reject(self._own_page(self._normal_path(path)))
            if host != SITE_DOMAIN and not host.endswith("." + SITE_DOMAIN):
                raise _Reject(_offline(host))
            form = self._form(body) if self.command == "POST" else {}
            request = Request(
                method=self.command,
                host=host,
                path=self._normal_path(path),
                query=_first_values(query),
                form=form,
                cookies=_cookies(self.headers.get("Cookie", "")),
            )
            response = self.server.app.respond(request)
        except _Reject as reject:
            response, close = reject.response, reject.close
        except (TimeoutError, ConnectionError):
            raise  # the client is gone or too slow: the connection is dropped, nothing to answer
        except Exception:
            log.exception("site server: %s %s failed", self.command, self.path[:200])
            response = message_page(500, "Server error", "The page could not be shown.")
        self._finish(response, host, path, query, close=close)

    def _own_page(self, path: str) -> Response:
        return _index(self.server.address) if path == "/" else message_page(404, "Page not found", "Try /.")

    def _target(self) -> tuple[str, int | None, str, str]:
        """``(host, port, path, query)`` of the request line (absolute form) or the ``Host`` header."""
        if len(self.path) > MAX_URL_CHARS:
            text = f"Addresses are at most {MAX_URL_CHARS} characters."
            raise _Reject(message_page(414, "Address too long", text), close=True)
        if len(self.headers) > MAX_HEADERS:
            raise _Reject(message_page(431, "Too many headers", f"At most {MAX_HEADERS} headers."), close=True)
        bad = _Reject(message_page(400, "Bad request", "The address is malformed."), close=True)
        try:
            if self.path.startswith("/"):
                target = urlsplit(self.path)
                host, port = _split_host(self.headers.get("Host", ""))
            elif self.path.lower().startswith("http://"):
                target = urlsplit(self.path)
                host, port = _split_host(target.netloc)
            else:
                raise bad
        except ValueError as error:
            raise bad from error
        if not host:
            raise bad
        return host, port, target.path or "/", target.query

    def _is_own(self, host: str, port: int | None) -> bool:
        return host in ("127.0.0.1", "localhost", self.server.host) and port == self.server.port

    @staticmethod
    def _normal_path(path: str) -> str:
        decoded = unquote(path, errors="replace")
        return decoded.rstrip("/") or "/"

    def _body(self) -> bytes:
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            raise _Reject(message_page(411, "Length required", "Send a Content-Length."), close=True)
        length = self._content_length()
        if length > MAX_BODY_BYTES:
            raise _Reject(_too_large(), close=True)
        body = self.rfile.read(length) if length else b""
        if len(body) != length:
            raise _Reject(message_page(400, "Bad request", "The body ended early."), close=True)
        return body

    def _form(self, body: bytes) -> dict[str, str]:
        kind = self.headers.get("Content-Type", "").split(";")[0].strip().lower()
        if kind not in ("", "application/x-www-form-urlencoded"):
            raise _Reject(message_page(415, "Unsupported form", "Forms are sent URL-encoded."))
        return _first_values(body.decode("utf-8", "replace"))

    def _content_length(self) -> int:
        text = self.headers.get("Content-Length", "0").strip() or "0"
        if not text.isdigit() or len(text) > 12:
            raise _Reject(message_page(400, "Bad request", "Content-Length is not a number."), close=True)
        return int(text)

    def handle_expect_100(self) -> bool:
        """Refuse an oversized body before the client sends it."""
        try:
            too_big = self._content_length() > MAX_BODY_BYTES
        except _Reject:
            too_big = True
        if too_big:
            self._finish(_too_large(), "", "", close=True)
            return False
        return super().handle_expect_100()

    def _finish(self, response: Response, host: str, path: str, query: str = "", *, close: bool = False) -> None:
        # Logged before answering: once a client has its page, a verifier reading the log sees the visit.
        self.server.store.log_request(self.command or "", host, path, query, response.status)
        self.send_response(response.status)
        self.send_header("Content-Type", response.content_type)
        self.send_header("Content-Length", str(len(response.body)))
        self.send_header("Cache-Control", "no-store")
        for name, value in response.headers:
            self.send_header(name, value)
        if close:
            self.send_header("Connection", "close")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(response.body)

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """Errors found while parsing the request (bad line, too many headers): our short page."""
        title = self.responses.get(code, ("Error", ""))[0]
        self.close_connection = True
        response = message_page(code, title, explain or message or title)
        self._finish(response, "", getattr(self, "path", "")[:200], close=True)

    def log_message(self, format: str, *args: Any) -> None:
        log.debug("site server %s: " + format, self.address_string(), *args)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False

    def __init__(self, address: tuple[str, int], app: SiteApp) -> None:
        super().__init__(address, _Handler)
        self.app, self.store = app, app.store
        self.host, self.port = str(self.server_address[0]), int(self.server_address[1])
        self.address = f"{self.host}:{self.port}"
        self._slots = threading.BoundedSemaphore(MAX_CONNECTIONS)

    def process_request(self, request: Any, client_address: Any) -> None:
        if not self._slots.acquire(blocking=False):
            log.warning("site server: %d connections open, dropped one from %s", MAX_CONNECTIONS, client_address)
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)
        except Exception:
            self._slots.release()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._slots.release()

    def handle_error(self, request: Any, client_address: Any) -> None:
        log.debug("site server: connection from %s failed", client_address, exc_info=True)


class SiteServer:
    """The ``*.gym.test`` sites over ``data_dir``, served (and proxied) on ``host:port``.

    Args:
        data_dir: the data folder (:mod:`.store`): ``site.json`` seeds, logs and submissions.
        host: the address to listen on.
        port: the port; 0 lets the system pick one (read it from :attr:`port` after :meth:`start`).
    """

    def __init__(self, data_dir: Path, host: str = "127.0.0.1", port: int = 0) -> None:
        self.data_dir = Path(data_dir)
        self._bind = (host, port)
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> SiteServer:
        """Listen and serve on a daemon thread (once); returns self."""
        if self._server is None:
            self.data_dir.mkdir(parents=True, exist_ok=True)
            self._server = _Server(self._bind, SiteApp(SiteStore(self.data_dir)))
            # A short poll interval: close() waits for the loop to notice, at most this long.
            serve = functools.partial(self._server.serve_forever, poll_interval=0.1)
            self._thread = threading.Thread(target=serve, name="site-server", daemon=True)
            self._thread.start()
        return self

    def _running(self) -> _Server:
        if self._server is None:
            raise RuntimeError(f"the site server for {self.data_dir} is not started (call start())")
        return self._server

    @property
    def port(self) -> int:
        """The port served on."""
        return self._running().port

    @property
    def address(self) -> str:
        """``"HOST:PORT"``, what Chromium's ``--proxy-server=http://...`` names."""
        return self._running().address

    def close(self) -> None:
        """Stop serving and release the port (idempotent)."""
        server, self._server = self._server, None
        if server is not None:
            server.shutdown()
            server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5.0)
            self._thread = None

    def __enter__(self) -> SiteServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()
