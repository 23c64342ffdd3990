"""Checks of ``ThunderbirdTools``' arguments: each returns the value or raises :class:`ApiArgumentError`
naming the argument. Standard library only."""

from __future__ import annotations

import re
from typing import Any

from ..tools_base import ApiArgumentError
from .store import check_folder_name

#: The most messages one listing returns, recipients of one message, and attachments sent at once.
MAX_LIST = 200
MAX_RECIPIENTS = 20
MAX_ATTACHMENTS = 5
MAX_ATTACHMENT_BYTES = 10 * 1024 * 1024
MAX_SUBJECT = 300
MAX_BODY = 50000
SMTP_TIMEOUT_S = 15.0
FLAGS = {"read": "\\Seen", "starred": "\\Flagged", "replied": "\\Answered"}
_ADDRESS = re.compile(r"[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9.-]{1,190}\.[A-Za-z]{2,24}")
NAME_TEXT = re.compile(r"[^\x00-\x1f<>\"]{1,100}")
PATH_TEXT = re.compile(r"[^\x00-\x1f]{1,1024}")


def checked_text(value: Any, name: str, limit: int, empty: bool = False) -> str:
    """``value`` if it is text of at most ``limit`` characters (not blank unless ``empty``)."""
    if not isinstance(value, str) or (not value.strip() and not empty) or len(value) > limit:
        raise ApiArgumentError(f"{name} must be text of {'0' if empty else '1'}-{limit} characters, got {value!r}")
    return value


def one_line(value: Any, name: str, limit: int) -> str:
    """``value`` if it is one line of text of at most ``limit`` characters."""
    text = checked_text(value, name, limit)
    if any(ord(c) < 32 for c in text):
        raise ApiArgumentError(f"{name} must be one line of text")
    return text


def addresses(value: Any, name: str, allow_empty: bool = False) -> list[str]:
    """The mail addresses in ``value`` (one or a list of 1-20; none when ``allow_empty``)."""
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list) or not all(isinstance(item, str) for item in items):
        raise ApiArgumentError(f"{name} must be an address or a list of addresses, got {value!r}")
    items = [item.strip() for item in items if item.strip()]
    if (not items and not allow_empty) or len(items) > MAX_RECIPIENTS:
        raise ApiArgumentError(f"{name} must name 1-{MAX_RECIPIENTS} addresses")
    for item in items:
        if not _ADDRESS.fullmatch(item):
            raise ApiArgumentError(f"{item!r} in {name} is not a mail address like 'ana@example.com'")
    return items


def uid_number(value: Any) -> int:
    """``value`` if it is a message uid (a positive 32-bit whole number)."""
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value < 2**32:
        raise ApiArgumentError(
            f"uid must be a message's uid from list_messages (a positive whole number), got {value!r}"
        )
    return value


def folder_name(value: Any, name: str = "folder") -> str:
    """``value`` as a folder name the tools accept ("INBOX" for any case of inbox)."""
    if value == "INBOX" or (isinstance(value, str) and value.lower() == "inbox"):
        return "INBOX"
    try:
        return check_folder_name(value)
    except ValueError as error:
        raise ApiArgumentError(f"{name}: {error}") from None
