"""Where the session's mail lives: the server's folder (dovecot's configuration, the Maildir store, the
outgoing spool, the ports of this launch) and Thunderbird's profile, all in the session home.

Layout under ``~/.local/share/gym-mail``: ``Maildir/`` (dovecot's Maildir++ store: ``cur``/``new``/``tmp``
for the inbox, ``.<Folder>/`` for the others), ``outgoing/`` (each message the SMTP server accepted, as
``<n>.eml`` with its envelope in ``<n>.json``), ``dovecot.conf``, ``server.json`` (the ports) and
``status.json`` (what the server has seen). The profile is ``~/.thunderbird/gym``. Standard library only.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from pathlib import Path
from typing import Any

#: The session user's mail address and name (the account Thunderbird is set up with).
USER_ADDRESS = "me@desktop.test"
USER_NAME = "Desktop User"
#: The IMAP login name Thunderbird's account carries (the server preauthenticates it).
USER_LOGIN = "me"
#: The folder of the mail server, and Thunderbird's profile, relative to the home.
MAIL_ROOT = ".local/share/gym-mail"
PROFILE = ".thunderbird/gym"
#: The IMAP server's name in Thunderbird's folder URIs and profile folder.
IMAP_HOST = "127.0.0.1"
#: The folders every store has (dovecot creates them), by special use.
SPECIAL_FOLDERS = {"Sent": "\\Sent", "Drafts": "\\Drafts", "Trash": "\\Trash", "Archive": "\\Archive"}
#: The biggest JSON state file read.
MAX_STATE_BYTES = 64 * 1024
#: The dovecot IMAP binary (run per connection, preauthenticated).
DOVECOT_IMAP = "/usr/lib/dovecot/imap"
_FOLDER = re.compile(r"[A-Za-z0-9][A-Za-z0-9 _-]{0,63}")


def mail_root(home: Path) -> Path:
    """The mail server's folder of the session at ``home``."""
    return Path(home) / MAIL_ROOT


def maildir(home: Path, folder: str = "INBOX") -> Path:
    """The Maildir of ``folder`` (``INBOX``, ``Sent``, ``Archive/2024``)."""
    base = mail_root(home) / "Maildir"
    return base if folder == "INBOX" else base / ("." + folder.replace("/", "."))


def outgoing(home: Path) -> Path:
    """The spool of what the SMTP server accepted."""
    return mail_root(home) / "outgoing"


def profile_dir(home: Path) -> Path:
    """Thunderbird's profile of the session."""
    return Path(home) / PROFILE


def imap_dir(home: Path) -> Path:
    """The profile's folder of the IMAP account (its msgFilterRules.dat, folder summaries)."""
    return profile_dir(home) / "ImapMail" / IMAP_HOST


def check_folder_name(name: str) -> str:
    """``name`` if it is a folder name the tools accept (``Projects``, ``Archive/2024``).

    Raises:
        ValueError: not 1-3 parts of letters, digits, spaces, '_' or '-' separated by '/'.
    """
    parts = name.split("/") if isinstance(name, str) else []
    if not 1 <= len(parts) <= 3 or not all(_FOLDER.fullmatch(part) and part == part.strip() for part in parts):
        raise ValueError(
            f"{name!r} is not a folder name: 1-64 letters, digits, spaces, '_' or '-' (nested: 'Parent/Child')"
        )
    return name


def write_json(path: Path, value: Any) -> None:
    """Write ``value`` as JSON to ``path`` atomically (a reader never sees half a file)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    with os.fdopen(fd, "w") as handle:
        json.dump(value, handle)
    os.replace(name, path)


def read_json(path: Path) -> dict[str, Any]:
    """A JSON object from ``path`` ({} when absent or unreadable)."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_STATE_BYTES + 1)
        value = json.loads(data) if len(data) <= MAX_STATE_BYTES else {}
    except (OSError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def dovecot_config(home: Path) -> str:
    """dovecot's configuration for the session's store (read by ``imap -c``)."""
    root = mail_root(home)
    boxes = "".join(
        f"  mailbox {name} {{\n    special_use = {use}\n    auto = subscribe\n  }}\n"
        for name, use in SPECIAL_FOLDERS.items()
    )
    return (
        f"mail_location = maildir:{root / 'Maildir'}\n"
        f"log_path = {root / 'imap.log'}\n"
        "mail_max_userip_connections = 64\n"
        f"namespace inbox {{\n  inbox = yes\n  separator = /\n{boxes}}}\n"
    )
