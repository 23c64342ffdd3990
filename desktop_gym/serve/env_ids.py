"""Env ids an env server can recognize later: ``<server id>-<n>-<tag>``.

The tag is an HMAC of ``<server id>-<n>`` keyed by the server's token, so a server restarted with
the same token (Ray restarts an actor with its arguments) tells an id one of its earlier runs
issued (the env is lost: ``EnvLostError``) from one no run ever issued (``NOT_FOUND``). Without
a token the tag is a plain checksum: it still tells a typo or a made-up id from an issued one.
"""

from __future__ import annotations

import hashlib
import hmac

TAG_CHARS = 8


class EnvIds:
    """Issues and checks the env ids of one server run.

    Args:
        server_id: this run's id (a fresh one per start).
        token: the server's token ("" or None: no secret).
    """

    def __init__(self, server_id: str, token: str | None) -> None:
        self.server_id = server_id
        self._key = hashlib.sha256(b"desktop-gym env id\0" + (token or "").encode()).digest()

    def _tag(self, body: str) -> str:
        return hmac.new(self._key, body.encode(), hashlib.sha256).hexdigest()[:TAG_CHARS]

    def issue(self, number: int) -> str:
        """The id of this run's ``number``-th env."""
        body = f"{self.server_id}-{number}"
        return f"{body}-{self._tag(body)}"

    def issuer(self, env_id: str) -> str | None:
        """The server id of the run that issued ``env_id`` (this one or an earlier one), or None."""
        body, _, tag = env_id.rpartition("-")
        server_id, _, number = body.partition("-")
        if not (server_id and number.isdigit() and len(tag) == TAG_CHARS):
            return None
        return server_id if hmac.compare_digest(tag, self._tag(body)) else None
