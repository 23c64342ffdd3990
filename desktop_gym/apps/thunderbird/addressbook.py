"""Thunderbird's personal address book, ``abook.sqlite`` in the profile: a ``properties`` table of
``(card, name, value)`` rows per contact (``DisplayName``, ``PrimaryEmail``, ``_vCard``...).

Thunderbird keeps the book open (in WAL mode; the launch lets other processes share it) and caches its
cards, so a contact written while it runs shows after its next launch. Standard library only.
"""

from __future__ import annotations

import sqlite3
import time
import uuid
from pathlib import Path

#: The most contacts read.
MAX_CONTACTS = 5000
#: Thunderbird's schema version of abook.sqlite (SQLiteDirectory.sys.mjs).
SCHEMA_VERSION = 4
SCHEMA = (
    "CREATE TABLE IF NOT EXISTS properties (card TEXT, name TEXT, value TEXT)",
    "CREATE TABLE IF NOT EXISTS lists (uid TEXT PRIMARY KEY, name TEXT, nickName TEXT, description TEXT)",
    "CREATE TABLE IF NOT EXISTS list_cards (list TEXT, card TEXT, PRIMARY KEY(list, card))",
    "CREATE INDEX IF NOT EXISTS properties_card ON properties(card)",
    "CREATE INDEX IF NOT EXISTS properties_name ON properties(name)",
)


def _vcard_text(text: str) -> str:
    return text.replace("\\", "\\\\").replace(",", "\\,").replace(";", "\\;")


def read_contacts(path: Path, writable: bool = False) -> list[dict[str, str]]:
    """Each card's ``{"card", "name", "email"}`` ([] when the book does not exist); ``writable`` opens it
    read-write, which applies a ``-wal`` file beside a copy."""
    if not Path(path).is_file():
        return []
    connection = sqlite3.connect(f"file:{path}?mode={'rw' if writable else 'ro'}", uri=True, timeout=5.0)
    try:
        rows = connection.execute(
            "SELECT card, name, value FROM properties WHERE name IN ('DisplayName', 'PrimaryEmail') LIMIT ?",
            (2 * MAX_CONTACTS,),
        ).fetchall()
    except sqlite3.DatabaseError:
        return []
    finally:
        connection.close()
    cards: dict[str, dict[str, str]] = {}
    for card, name, value in rows:
        entry = cards.setdefault(str(card), {"card": str(card), "name": "", "email": ""})
        entry["name" if name == "DisplayName" else "email"] = str(value or "")
    return list(cards.values())


def add_contact(path: Path, name: str, email: str) -> str:
    """Add a card (display name, first and last name, primary email, its vCard); returns its id."""
    card = str(uuid.uuid4())
    first, _, last = name.partition(" ")
    vcard = (
        f"BEGIN:VCARD\r\nVERSION:4.0\r\nFN:{_vcard_text(name)}\r\nN:{_vcard_text(last)};{_vcard_text(first)};;;\r\n"
        f"EMAIL;PREF=1:{email}\r\nUID:{card}\r\nEND:VCARD\r\n"
    )
    values = {
        "DisplayName": name,
        "FirstName": first,
        "LastName": last,
        "PrimaryEmail": email,
        "LowercasePrimaryEmail": email.lower(),
        "_vCard": vcard,
        "LastModifiedDate": str(int(time.time())),
    }
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    connection = sqlite3.connect(path, timeout=10.0)
    try:
        with connection:
            if connection.execute("PRAGMA user_version").fetchone()[0] == 0:  # a new book, as Thunderbird makes it
                connection.execute("PRAGMA journal_mode=WAL")
                for statement in SCHEMA:
                    connection.execute(statement)
                connection.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            connection.executemany(
                "INSERT INTO properties (card, name, value) VALUES (?, ?, ?)", [(card, k, v) for k, v in values.items()]
            )
    finally:
        connection.close()
    return card


def update_contact(path: Path, card: str, name: str | None, email: str | None) -> None:
    """Change a card's display name and/or primary email (and its vCard)."""
    connection = sqlite3.connect(path, timeout=10.0)
    try:
        with connection:
            for key, value in (("DisplayName", name), ("PrimaryEmail", email)):
                if value is not None:
                    connection.execute("DELETE FROM properties WHERE card = ? AND name = ?", (card, key))
                    connection.execute(
                        "INSERT INTO properties (card, name, value) VALUES (?, ?, ?)", (card, key, value)
                    )
            connection.execute("DELETE FROM properties WHERE card = ? AND name = '_vCard'", (card,))
    finally:
        connection.close()
