"""Mail messages as the tools show and make them: a summary of a fetched message (sender, subject, flags,
attachments), its text, and new messages, replies and forwards built with the standard ``email`` package.
Standard library only.
"""

from __future__ import annotations

import mimetypes
from collections.abc import Sequence
from datetime import datetime, timezone
from email import policy
from email.message import EmailMessage, Message
from email.parser import BytesParser
from email.utils import format_datetime, getaddresses, make_msgid, parseaddr
from typing import Any

from .store import USER_ADDRESS, USER_NAME

#: The most characters of a message's text returned.
MAX_TEXT_CHARS = 20000
#: IMAP flags as the tools name them.
FLAG_NAMES = {"\\Seen": "read", "\\Flagged": "starred", "\\Answered": "replied", "\\Draft": "draft"}


def parse_message(raw: bytes) -> EmailMessage:
    """The message in ``raw`` (headers decoded; malformed parts are kept as they are)."""
    message = BytesParser(policy=policy.default).parsebytes(raw)
    assert isinstance(message, EmailMessage)
    return message


def _header(message: Message, name: str) -> str:
    try:
        return str(message.get(name, "") or "")
    except (ValueError, TypeError, IndexError):  # a malformed header the policy cannot parse
        return ""


def attachments(message: EmailMessage) -> list[tuple[str, str, bytes]]:
    """``(filename, content type, bytes)`` of each attachment."""
    found = []
    for part in message.iter_attachments():
        name = part.get_filename()
        if not name:
            continue
        payload = part.get_payload(decode=True)
        found.append((str(name), part.get_content_type(), payload if isinstance(payload, bytes) else b""))
    return found


def text_of(message: EmailMessage) -> str:
    """The message's plain text (its HTML's text when it has no plain part), at most MAX_TEXT_CHARS."""
    body = message.get_body(preferencelist=("plain", "html"))
    if body is None:
        return ""
    try:
        text = body.get_content()
    except (LookupError, ValueError):
        payload = body.get_payload(decode=True)
        text = payload.decode("utf-8", errors="replace") if isinstance(payload, bytes) else ""
    return str(text)[:MAX_TEXT_CHARS]


def summary(uid: int, flags: Sequence[str], raw: bytes, full: bool = False) -> dict[str, Any]:
    """What an agent sees of a message: uid, from, to, cc, subject, date, message_id, flags, attachments
    (and its text when ``full``)."""
    message = parse_message(raw)
    found = {
        "uid": uid,
        "from": _header(message, "From"),
        "to": _header(message, "To"),
        "cc": _header(message, "Cc"),
        "subject": _header(message, "Subject"),
        "date": _header(message, "Date"),
        "message_id": _header(message, "Message-ID").strip(),
        "flags": sorted(FLAG_NAMES.get(flag, flag) for flag in flags if flag != "\\Recent"),
        "attachments": [{"filename": n, "content_type": t, "size": len(b)} for n, t, b in attachments(message)],
    }
    if full:
        found["text"] = text_of(message)
    return found


def build_message(
    to: Sequence[str],
    subject: str,
    body: str,
    cc: Sequence[str] = (),
    files: Sequence[tuple[str, bytes]] = (),
    in_reply_to: str = "",
    references: str = "",
    forwarded: Sequence[tuple[str, str, bytes]] = (),
) -> EmailMessage:
    """A message from the session's user (attachments from ``files`` and ``forwarded``)."""
    message = EmailMessage()
    message["From"] = f"{USER_NAME} <{USER_ADDRESS}>"
    message["To"] = ", ".join(to)
    if cc:
        message["Cc"] = ", ".join(cc)
    message["Subject"] = subject
    message["Date"] = format_datetime(datetime.now(timezone.utc))
    message["Message-ID"] = make_msgid(domain="desktop.test")
    if in_reply_to:
        message["In-Reply-To"] = in_reply_to
        message["References"] = f"{references} {in_reply_to}".strip()
    message.set_content(body)
    for name, data in files:
        kind = mimetypes.guess_type(name)[0] or "application/octet-stream"
        main, _, sub = kind.partition("/")
        message.add_attachment(data, maintype=main, subtype=sub, filename=name)
    for name, kind, data in forwarded:
        main, _, sub = kind.partition("/")
        message.add_attachment(data, maintype=main, subtype=sub or "octet-stream", filename=name)
    return message


def quoted(message: EmailMessage) -> str:
    """The original's text, each line quoted with '> '."""
    return "\n".join("> " + line for line in text_of(message).splitlines())


def reply_to_address(message: EmailMessage) -> str:
    """Where a reply goes: Reply-To, else From."""
    return parseaddr(_header(message, "Reply-To") or _header(message, "From"))[1]


def all_addresses(message: EmailMessage, *names: str) -> list[str]:
    """The addresses in the named headers."""
    return [address for _, address in getaddresses([_header(message, name) for name in names]) if address]
