"""Verifiers of mail (Thunderbird on the session's own server): where a message is and its flags (the
server's folders, as read-only ``ThunderbirdTools`` calls list them), what was sent (the SMTP server's
spool, raw messages), Thunderbird's preferences (prefs.js and user.js), message filters
(msgFilterRules.dat) and the address book (abook.sqlite).

Strict: a message is found by its Message-ID in exactly one folder; a sent message must go to exactly
the recipients asked, with the subject asked; a preference compares by type and value.
"""

from __future__ import annotations

import hashlib
import sqlite3
import tempfile
from collections.abc import Mapping, Sequence
from email.utils import getaddresses
from typing import Any

from ._load import guarded_read
from .registry import register_verifier
from .result import VerifierResult

#: Each live mail verifier -> the read-only ``ThunderbirdTools`` call whose result it judges.
MAIL_READS = {"mail_location": "list_messages", "mail_flags": "list_messages", "mail_folders": "list_folders"}
#: The biggest profile file read.
MAX_FILE_BYTES = 16 * 1024 * 1024


def _where(folders: Mapping[str, Sequence[Mapping[str, Any]]], message_id: str) -> list[str]:
    return [name for name, items in folders.items() for m in items if m.get("message_id") == message_id]


@register_verifier("mail_location", reads="live")
def verify_mail_location(
    folders: Mapping[str, Sequence[Mapping[str, Any]]], message_id: str, folder: str | None
) -> VerifierResult:
    """The message ``message_id`` is in ``folder`` once and in no other folder (``folder`` None: in none)."""
    found = _where(folders, message_id)
    if folder is None:
        if found:
            return VerifierResult.failed(f"the message is still in {', '.join(found)}")
        return VerifierResult.passed("the message is gone from every folder")
    if found != [folder]:
        return VerifierResult.failed(f"the message is in {found or 'no folder'}, expected only in {folder}")
    return VerifierResult.passed(f"the message is in {folder}")


@register_verifier("mail_flags", reads="live")
def verify_mail_flags(
    messages: Sequence[Mapping[str, Any]], expected: Mapping[str, Mapping[str, bool]]
) -> VerifierResult:
    """Each message named in ``expected`` (by Message-ID) has each flag ('read', 'starred', 'replied') on or
    off as asked."""
    by_id = {m.get("message_id"): m for m in messages}
    for message_id, flags in expected.items():
        if message_id not in by_id:
            return VerifierResult.failed(f"the message {message_id} is not in the folder")
        has = set(by_id[message_id].get("flags", []))
        for flag, on in flags.items():
            if (flag in has) != on:
                subject = by_id[message_id].get("subject", "")
                return VerifierResult.failed(f"{subject!r} is {'not ' if on else ''}{flag}", flag=flag)
    return VerifierResult.passed(f"the {len(expected)} messages have the flags asked")


@register_verifier("mail_folders", reads="live")
def verify_mail_folders(folders: Sequence[Mapping[str, Any]], present: Sequence[str]) -> VerifierResult:
    """Each folder in ``present`` exists (by exact name)."""
    names = {str(f.get("name")) for f in folders}
    missing = [name for name in present if name not in names]
    if missing:
        return VerifierResult.failed(f"no folder {', '.join(missing)}", found=sorted(names))
    return VerifierResult.passed(f"the folders {', '.join(present)} exist")


def _parse(raw: bytes) -> Any:
    from email import policy
    from email.parser import BytesParser

    return BytesParser(policy=policy.default).parsebytes(raw)


def _addresses(message: Any, *names: str) -> set[str]:
    values = [str(message.get(name, "") or "") for name in names]
    return {address.lower() for _, address in getaddresses(values) if address}


@register_verifier("mail_sent", reads="live")
def verify_mail_sent(
    spooled: Sequence[bytes],
    to: Sequence[str],
    subject: str | None = None,
    subject_startswith: str | None = None,
    text_contains: Sequence[str] = (),
    in_reply_to: str | None = None,
    attachment: Mapping[str, Any] | None = None,
) -> VerifierResult:
    """Exactly one spooled message goes to exactly the addresses ``to`` (To and Cc), with ``subject`` (or
    one starting with ``subject_startswith``), its text containing each of ``text_contains``, answering
    ``in_reply_to`` when given, and carrying ``attachment`` (``{"filename", "sha256"}`` or ``{"filename",
    "check": callable(bytes) -> VerifierResult}``) when given."""
    wanted = {address.lower() for address in to}
    messages = [guarded_read("mail message", _parse, raw) for raw in spooled]
    matching = [m for m in messages if _addresses(m, "To", "Cc") == wanted]
    if len(matching) != 1:
        sent = [sorted(_addresses(m, "To", "Cc")) for m in messages]
        return VerifierResult.failed(f"{len(matching)} messages went to {sorted(wanted)}, expected one", sent=sent)
    message = matching[0]
    found_subject = str(message.get("Subject", "") or "")
    if subject is not None and found_subject.strip() != subject:
        return VerifierResult.failed(f"the subject is {found_subject!r}, expected {subject!r}")
    if subject_startswith is not None and not found_subject.lower().startswith(subject_startswith.lower()):
        return VerifierResult.failed(f"the subject is {found_subject!r}, expected it to start {subject_startswith!r}")
    body = message.get_body(preferencelist=("plain", "html"))
    text = str(body.get_content()) if body is not None else ""
    for piece in text_contains:
        if piece.casefold() not in text.casefold():
            return VerifierResult.failed(f"the message's text does not contain {piece!r}")
    if in_reply_to is not None and str(message.get("In-Reply-To", "")).strip() != in_reply_to:
        return VerifierResult.failed(f"the message does not answer {in_reply_to}")
    if attachment is not None:
        files = {str(p.get_filename()): p.get_payload(decode=True) or b"" for p in message.iter_attachments()}
        data = files.get(str(attachment["filename"]))
        if data is None:
            return VerifierResult.failed(f"no attachment {attachment['filename']!r} (found {sorted(files)})")
        if "sha256" in attachment and hashlib.sha256(data).hexdigest() != attachment["sha256"]:
            return VerifierResult.failed(f"the attachment {attachment['filename']!r} is not the file asked")
        if "check" in attachment:
            return attachment["check"](data)
    return VerifierResult.passed(f"one message went to {', '.join(sorted(wanted))} as asked")


def _prefs(data: bytes | None) -> dict[str, Any]:
    from ..apps.thunderbird.prefs import parse_prefs

    if data is None:
        return {}
    if len(data) > MAX_FILE_BYTES:
        raise ValueError("the preference file is too big")
    return parse_prefs(data.decode("utf-8", errors="replace"))


@register_verifier("mail_prefs", reads="file")
def verify_mail_prefs(prefs_js: bytes | None, user_js: bytes | None, expected: Mapping[str, Any]) -> VerifierResult:
    """Each ``expected`` preference has that value (same type) as Thunderbird applies it at its next start:
    prefs.js, then user.js over it. ``None`` expects the key unset."""
    if prefs_js is None and user_js is None:
        return VerifierResult.failed("prefs.js does not exist (nor user.js)")
    values = {**guarded_read("prefs.js", _prefs, prefs_js), **guarded_read("user.js", _prefs, user_js)}
    for key, value in expected.items():
        found = values.get(key)
        if type(found) is not type(value) or found != value:
            return VerifierResult.failed(f"{key} is {found!r}, expected {value!r}", key=key)
    return VerifierResult.passed(f"{', '.join(expected)} are set as asked")


@register_verifier("mail_filter", reads="file")
def verify_mail_filter(
    rules: bytes | None, field: str, operator: str, value: str, action: str, folder_uri: str = ""
) -> VerifierResult:
    """An enabled filter in msgFilterRules.dat matches ``field`` ``operator`` ``value`` (one condition, value
    case-insensitive) and has ``action`` (with ``folder_uri`` for Move/Copy)."""
    from ..apps.thunderbird.filters import parse_filters

    if rules is None:
        return VerifierResult.failed("msgFilterRules.dat does not exist")
    parsed = guarded_read("msgFilterRules.dat", parse_filters, rules[:MAX_FILE_BYTES].decode("utf-8", "replace"))
    for item in parsed["filters"]:
        terms = item["conditions"]
        if not item["enabled"] or len(terms) != 1:
            continue
        term = terms[0]
        if (term["field"], term["operator"]) != (field, operator) or term["value"].casefold() != value.casefold():
            continue
        if [action, folder_uri] in [list(a) for a in item["actions"]]:
            return VerifierResult.passed(f"the filter {item['name']!r} does {action} for {field} {operator} {value}")
    names = [f["name"] for f in parsed["filters"]]
    return VerifierResult.failed(f"no enabled filter does {action} for {field} {operator} {value!r}", filters=names)


def _contacts(data: bytes, wal: bytes | None) -> list[dict[str, str]]:
    from pathlib import Path

    from ..apps.thunderbird.addressbook import read_contacts

    with tempfile.TemporaryDirectory() as folder:
        book = Path(folder) / "abook.sqlite"
        book.write_bytes(data)
        if wal:  # Thunderbird's recent changes sit in the write-ahead log until a checkpoint
            Path(folder, "abook.sqlite-wal").write_bytes(wal)
        connection = sqlite3.connect(book)
        try:
            connection.execute("SELECT count(*) FROM properties").fetchone()  # not a book: unreadable
        finally:
            connection.close()
        return read_contacts(book, writable=True)


@register_verifier("mail_contact", reads="file")
def verify_mail_contact(abook: bytes | None, name: str, email: str, wal: bytes | None = None) -> VerifierResult:
    """The address book (``abook.sqlite`` and its ``-wal``) has exactly one contact with ``email``, named
    ``name`` (case-insensitive email)."""
    if abook is None:
        return VerifierResult.failed("the address book does not exist")
    if len(abook) + len(wal or b"") > MAX_FILE_BYTES:
        return VerifierResult.failed("the address book is too big")
    contacts = guarded_read("abook.sqlite", _contacts, abook, wal)
    found = [c for c in contacts if c["email"].lower() == email.lower()]
    if len(found) != 1:
        return VerifierResult.failed(f"{len(found)} contacts have {email}, expected one")
    if found[0]["name"] != name:
        return VerifierResult.failed(f"the contact {email} is named {found[0]['name']!r}, expected {name!r}")
    return VerifierResult.passed(f"{name} <{email}> is in the address book")
