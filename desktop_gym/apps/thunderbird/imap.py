"""A client of the session's IMAP server (dovecot, preauthenticated on the port in ``server.json``) and the
parsers of the server's answers that ``imaplib`` leaves as text: LIST lines and FETCH prefixes.

Each :class:`ImapSession` is one connection with a timeout; every answer is read with caps. The parsers
never raise on odd input other than :class:`MailServerError`. Standard library only.
"""

from __future__ import annotations

import imaplib
import re
from collections.abc import Callable
from pathlib import Path
from types import TracebackType

from .store import mail_root, read_json

#: Seconds one IMAP exchange may take.
IMAP_TIMEOUT_S = 15.0
#: The most bytes of one message fetched.
MAX_MESSAGE_BYTES = 25 * 1024 * 1024
_LIST = re.compile(r'^\((?P<flags>[^()]*)\) (?:"(?P<sep>(?:[^"\\]|\\.)*)"|NIL) (?P<name>.+)$')
_FETCH_UID = re.compile(r"\bUID (\d{1,10})\b")
_FETCH_SIZE = re.compile(r"\bRFC822\.SIZE (\d{1,12})\b")
_FETCH_FLAGS = re.compile(r"\bFLAGS \(([^()]*)\)")


class MailServerError(RuntimeError):
    """The session's mail server did not answer, refused, or answered something unreadable."""


def _unquote(text: str) -> str:
    if len(text) >= 2 and text[0] == '"' and text[-1] == '"':
        return re.sub(r"\\(.)", r"\1", text[1:-1])
    return text


def parse_list_line(line: bytes | str) -> dict[str, object]:
    """One LIST answer line (``(\\HasNoChildren \\Sent) "/" Sent``) as ``{"name", "flags", "separator"}``.

    Raises:
        MailServerError: the line is not a LIST answer.
    """
    text = line.decode("utf-8", errors="replace") if isinstance(line, bytes) else line
    match = _LIST.match(text.strip())
    if match is None:
        raise MailServerError(f"unreadable LIST answer: {text[:80]!r}")
    return {
        "name": _unquote(match.group("name")),
        "flags": match.group("flags").split(),
        "separator": re.sub(r"\\(.)", r"\1", match.group("sep") or ""),
    }


def parse_fetch_prefix(text: bytes | str) -> tuple[int, list[str]]:
    """The UID and flags named in a FETCH answer's prefix (``1 (UID 7 FLAGS (\\Seen) BODY[] {312}``).

    Raises:
        MailServerError: no UID in it.
    """
    line = text.decode("utf-8", errors="replace") if isinstance(text, bytes) else text
    uid = _FETCH_UID.search(line)
    if uid is None:
        raise MailServerError(f"a FETCH answer without a UID: {line[:80]!r}")
    flags = _FETCH_FLAGS.search(line)
    return int(uid.group(1)), (flags.group(1).split() if flags else [])


def quote_mailbox(name: str) -> str:
    """A checked folder name as an IMAP quoted string (names hold no quotes or backslashes)."""
    if '"' in name or "\\" in name or any(ord(c) < 32 for c in name):
        raise MailServerError(f"a folder name cannot hold quotes, backslashes or control characters: {name!r}")
    return f'"{name}"'


class ImapSession:
    """One preauthenticated connection to the session's IMAP server (use as a context manager).

    Args:
        home: The session home (the server's ports are in its ``server.json``).
    """

    def __init__(self, home: Path) -> None:
        port = read_json(mail_root(Path(home)) / "server.json").get("imap_port")
        if not isinstance(port, int) or not 0 < port < 65536:
            raise MailServerError("the mail server's port is unknown (launch thunderbird first)")
        try:
            self.imap = imaplib.IMAP4("127.0.0.1", port, timeout=IMAP_TIMEOUT_S)
        except OSError as error:
            raise MailServerError(
                f"the mail server on port {port} does not answer (launch thunderbird): {error}"
            ) from None
        if self.imap.state != "AUTH":
            self.imap.shutdown()
            raise MailServerError("the mail server did not preauthenticate the session")

    def __enter__(self) -> ImapSession:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        try:
            self.imap.logout()
        except (OSError, imaplib.IMAP4.error):
            self.imap.shutdown()

    def command(self, name: str, *args: object) -> list[object]:
        """Run one IMAP command (``imaplib`` method ``name``); its data, or :class:`MailServerError`."""
        return self._checked(name.upper(), getattr(self.imap, name), *args)

    def uid(self, command: str, *args: str) -> list[object]:
        """Run one ``UID <command>``."""
        return self._checked(f"UID {command}", self.imap.uid, command, *args)

    @staticmethod
    def _checked(label: str, call: Callable[..., tuple[str, list[object]]], *args: object) -> list[object]:
        """``call(*args)``'s data when the server answers OK; else :class:`MailServerError` naming ``label``."""
        try:
            kind, data = call(*args)
        except (OSError, imaplib.IMAP4.error) as error:
            raise MailServerError(f"the mail server refused {label}: {error}") from None
        if kind != "OK":
            detail = b" ".join(d for d in data if isinstance(d, bytes)).decode(errors="replace")[:200]
            raise MailServerError(f"the mail server refused {label}: {detail}")
        return list(data)

    def folders(self) -> list[dict[str, object]]:
        """Every folder: ``{"name", "flags", "separator"}``."""
        return [parse_list_line(line) for line in self.command("list", '""', "*") if isinstance(line, bytes)]

    def select(self, folder: str) -> int:
        """Open ``folder``; returns how many messages it holds."""
        data = self.command("select", quote_mailbox(folder))
        try:
            return int(data[0]) if data and data[0] is not None else 0
        except (TypeError, ValueError):
            return 0

    def sizes(self, uids: str) -> dict[int, int]:
        """``uid -> size in bytes`` of the messages ``uids`` (a UID set) in the open folder."""
        found: dict[int, int] = {}
        for item in self.uid("FETCH", uids, "(UID RFC822.SIZE)"):
            line = item.decode("utf-8", errors="replace") if isinstance(item, bytes) else ""
            uid, size = _FETCH_UID.search(line), _FETCH_SIZE.search(line)
            if uid and size:
                found[int(uid.group(1))] = int(size.group(1))
        return found

    def fetch(self, uids: str, what: str) -> list[tuple[int, list[str], bytes]]:
        """``UID FETCH uids (UID FLAGS what)``: ``(uid, flags, body)`` for each message that has a body part."""
        found: list[tuple[int, list[str], bytes]] = []
        for item in self.uid("FETCH", uids, f"(UID FLAGS {what})"):
            if isinstance(item, tuple) and len(item) == 2:
                uid, flags = parse_fetch_prefix(item[0])
                body = item[1] if isinstance(item[1], bytes) else b""
                if len(body) > MAX_MESSAGE_BYTES:
                    raise MailServerError(f"message {uid} is over {MAX_MESSAGE_BYTES} bytes")
                found.append((uid, flags, body))
        return found
