"""The shop's sign-in: seeded users, a random session token in a cookie, and the pages around it.

``/login`` (GET form, POST check: a ``session`` cookie and a 303 to ``/account``, or a 401 with
``id="error"``), ``/account`` (needs the cookie, else a 303 to ``/login``) and ``/logout``. Sessions
live in the server's memory. Standard library only.
"""

from __future__ import annotations

import secrets
import threading
from typing import Any

from .web import Request, Response, esc, page, redirect

COOKIE = "session"
#: Sessions kept at most; the oldest is forgotten first.
MAX_SESSIONS = 1000
_COOKIE_FLAGS = "Path=/; HttpOnly; SameSite=Lax"


class Sessions:
    """Session tokens and who they sign in, thread-safe and capped at :data:`MAX_SESSIONS`."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._users: dict[str, str] = {}

    def open(self, user: str) -> str:
        """A new random token signing in ``user``."""
        token = secrets.token_urlsafe(24)
        with self._lock:
            self._users[token] = user
            while len(self._users) > MAX_SESSIONS:
                del self._users[next(iter(self._users))]
        return token

    def user(self, token: str | None) -> str | None:
        """Who ``token`` signs in, None for no or an unknown token."""
        if not token:
            return None
        with self._lock:
            return self._users.get(token)

    def close(self, token: str | None) -> None:
        """Forget ``token`` (signing out)."""
        with self._lock:
            self._users.pop(token or "", None)


def signed_in(request: Request, site: dict[str, Any], sessions: Sessions) -> str | None:
    """The user ``request``'s cookie signs in, if that user still exists in the seeded users."""
    user = sessions.user(request.cookies.get(COOKIE))
    return user if user is not None and user in site["users"] else None


def login_form(nav: str, *, username: str = "", error: str = "", status: int = 200) -> Response:
    """The sign-in page, with an ``id="error"`` message when ``error`` is given."""
    alert = f'<p id="error" class="error" role="alert">{esc(error)}</p>' if error else ""
    body = (
        f'<h1>Sign in</h1>{alert}<form id="login" method="post" action="/login">'
        '<label for="username">User name</label>'
        f'<input type="text" id="username" name="username" value="{esc(username)}" maxlength="64" '
        'autocomplete="username" required>'
        '<label for="password">Password</label>'
        '<input type="password" id="password" name="password" maxlength="128" autocomplete="current-password" required>'
        '<div><button type="submit" id="submit">Sign in</button></div></form>'
    )
    return page("Sign in - Gym Shop", body, nav=nav, status=status)


def login(request: Request, site: dict[str, Any], sessions: Sessions, nav: str) -> Response:
    """``POST /login``: the seeded password opens a session, anything else is a 401 form."""
    username = request.form.get("username", "")
    password = request.form.get("password", "")
    expected = site["users"].get(username)
    if expected is None or not secrets.compare_digest(expected.encode(), password.encode()):
        return login_form(nav, username=username, error="Wrong user name or password.", status=401)
    token = sessions.open(username)
    return redirect("/account", [("Set-Cookie", f"{COOKIE}={token}; {_COOKIE_FLAGS}")])


def account(request: Request, site: dict[str, Any], sessions: Sessions, nav: str) -> Response:
    """``/account``: who is signed in, or a 303 to ``/login``."""
    user = signed_in(request, site, sessions)
    if user is None:
        return redirect("/login")
    body = (
        f'<h1>Your account</h1><p id="user">Signed in as <strong>{esc(user)}</strong></p>'
        '<p><a id="logout" href="/logout">Sign out</a></p>'
    )
    return page("Your account - Gym Shop", body, nav=nav)


def logout(request: Request, sessions: Sessions) -> Response:
    """``/logout``: forget the session, expire the cookie, go home."""
    sessions.close(request.cookies.get(COOKIE))
    return redirect("/", [("Set-Cookie", f"{COOKIE}=; Max-Age=0; {_COOKIE_FLAGS}")])
