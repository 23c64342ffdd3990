"""Thunderbird's preference files: ``prefs.js`` (Thunderbird writes it) and ``user.js`` (read at start,
its values win over prefs.js), one ``user_pref("key", value);`` line each.

:func:`parse_prefs` reads either file's text (strings, integers, booleans; other lines are ignored),
:func:`format_prefs` writes lines Thunderbird reads back to the same values. Thunderbird reads both files
only at start and rewrites prefs.js from memory, so a value changed while it runs takes effect at its
next launch (``user.js`` keeps it across launches). Standard library only (the guest imports it).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path

PrefValue = str | int | bool
#: The biggest preference file read.
MAX_PREFS_BYTES = 4 * 1024 * 1024
#: A preference key: dotted names of letters, digits, '_', '-', '@', '{', '}'.
PREF_KEY = re.compile(r"[A-Za-z0-9_@{}\-]+(?:\.[A-Za-z0-9_@{}\-]+)*")
MAX_KEY_LENGTH = 200
MAX_STRING_LENGTH = 4096
_LINE = re.compile(
    r"""^\s*(?:user_pref|pref|sticky_pref)\s*\(\s*"((?:[^"\\]|\\.)*)"\s*,\s*"""
    r"""("(?:[^"\\]|\\.)*"|-?\d{1,18}|true|false)\s*\)\s*;""",
)


def _unquote(text: str) -> str | None:
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, str) else None


def parse_prefs(text: str) -> dict[str, PrefValue]:
    """The preferences a prefs.js or user.js text sets (a later line wins; unreadable lines are skipped)."""
    values: dict[str, PrefValue] = {}
    for line in text.split("\n"):
        match = _LINE.match(line)
        if match is None:
            continue
        key = _unquote(f'"{match.group(1)}"')
        raw = match.group(2)
        if key is None:
            continue
        if raw.startswith('"'):
            value = _unquote(raw)
            if value is None:
                continue
            values[key] = value
        elif raw in ("true", "false"):
            values[key] = raw == "true"
        else:
            values[key] = int(raw)
    return values


def check_pref(key: str, value: PrefValue) -> None:
    """Raise ``ValueError`` unless ``key`` is a preference name and ``value`` a string, int or bool."""
    if not isinstance(key, str) or len(key) > MAX_KEY_LENGTH or not PREF_KEY.fullmatch(key):
        raise ValueError(f"{key!r} is not a preference name (dotted words, like 'mail.spellcheck.inline')")
    if isinstance(value, bool):
        return
    if isinstance(value, int):
        if not -(2**31) <= value < 2**31:
            raise ValueError(f"the value of {key} must be a 32-bit whole number, got {value}")
        return
    if not isinstance(value, str):
        raise ValueError(f"the value of {key} must be text, a whole number or true/false, got {value!r}")
    if len(value) > MAX_STRING_LENGTH or any(ord(c) < 32 for c in value):
        raise ValueError(f"the value of {key} must be one line of at most {MAX_STRING_LENGTH} characters")


def format_pref(key: str, value: PrefValue) -> str:
    """One ``user_pref(...)`` line."""
    check_pref(key, value)
    text = ("true" if value else "false") if isinstance(value, bool) else json.dumps(value, ensure_ascii=False)
    return f"user_pref({json.dumps(key)}, {text});"


def format_prefs(values: Mapping[str, PrefValue]) -> str:
    """A user.js text setting ``values``, sorted by key."""
    return "".join(format_pref(key, values[key]) + "\n" for key in sorted(values))


def read_prefs(path: Path) -> dict[str, PrefValue]:
    """The preferences in the file at ``path`` ({} when it does not exist).

    Raises:
        ValueError: the file is over :data:`MAX_PREFS_BYTES`.
    """
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_PREFS_BYTES + 1)
    except FileNotFoundError:
        return {}
    if len(data) > MAX_PREFS_BYTES:
        raise ValueError(f"{path.name} is over {MAX_PREFS_BYTES} bytes")
    return parse_prefs(data.decode("utf-8", errors="replace"))


def effective_prefs(prefs_js: str, user_js: str) -> dict[str, PrefValue]:
    """What Thunderbird uses at its next start: prefs.js, then user.js over it."""
    return {**parse_prefs(prefs_js), **parse_prefs(user_js)}
