"""VLC's preferences file, ``~/.config/vlc/vlcrc``: read its keys and change some in place.

VLC 3 reads ``key=value`` lines whatever ``[module]`` section they sit in; ``#key=value`` is a default
left unset. A change rewrites the line of the key (uncommenting it) or appends it, keeping every other
line, and writes atomically. VLC writes the file back from memory when it exits, so a change made while
VLC runs is lost: :mod:`.tools` changes the file only while VLC is closed. Standard library only.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path

#: The file, relative to the session home.
VLCRC = ".config/vlc/vlcrc"
#: The biggest vlcrc read (VLC's own is ~90 KB).
MAX_VLCRC_BYTES = 1024 * 1024
_KEY = re.compile(r"[a-z0-9][a-z0-9-]{0,63}")
_LINE = re.compile(r"^(#?)([a-z0-9][a-z0-9-]*)=(.*)$")


def vlcrc_path(home: Path) -> Path:
    """The vlcrc of the session whose home is ``home``."""
    return Path(home) / VLCRC


def parse_vlcrc(text: str) -> dict[str, str]:
    """The keys set (not commented out) in vlcrc ``text``; a later line of a key wins."""
    values: dict[str, str] = {}
    for raw in text.lstrip("\ufeff").splitlines():
        match = _LINE.match(raw.strip())
        if match and not match.group(1):
            values[match.group(2)] = match.group(3)
    return values


def set_vlcrc(text: str, updates: Mapping[str, str]) -> str:
    """``text`` with each key of ``updates`` set (values stripped): its (first) line replaced, or appended
    under ``[core]``.

    Raises:
        ValueError: a key is not a VLC option name or a value holds a line break.
    """
    for key, value in updates.items():
        if not _KEY.fullmatch(key):
            raise ValueError(f"{key!r} is not a VLC option name")
        if value.splitlines() not in ([], [value]):
            raise ValueError(f"the value of {key} holds a line break")
    updates = {key: value.strip() for key, value in updates.items()}
    lines = text.splitlines()
    done: set[str] = set()
    out: list[str] = []
    for raw in lines:
        match = _LINE.match(raw.strip())
        key = match.group(2) if match else None
        if key in updates:
            if key not in done:
                out.append(f"{key}={updates[key]}")
                done.add(key)
            continue  # a second line of the key would win over ours
        out.append(raw)
    missing = [key for key in updates if key not in done]
    if missing:
        out += ["", "[core] # desktop-gym"] + [f"{key}={updates[key]}" for key in missing]
    return "\n".join(out) + "\n"


def read_vlcrc(home: Path) -> str:
    """The session's vlcrc text ("" when there is none).

    Raises:
        ValueError: the file is over :data:`MAX_VLCRC_BYTES`.
    """
    path = vlcrc_path(home)
    if not path.is_file():
        return ""
    if path.stat().st_size > MAX_VLCRC_BYTES:
        raise ValueError(f"{VLCRC} is over {MAX_VLCRC_BYTES} bytes")
    return path.read_text(encoding="utf-8", errors="replace")


def update_vlcrc(home: Path, updates: Mapping[str, str]) -> dict[str, str]:
    """Set ``updates`` in the session's vlcrc (created if missing), atomically; returns its keys now."""
    path = vlcrc_path(home)
    path.parent.mkdir(parents=True, exist_ok=True)
    text = set_vlcrc(read_vlcrc(home), updates)
    temp = path.with_name(f".vlcrc.{os.getpid()}.tmp")
    temp.write_text(text, encoding="utf-8")
    os.chmod(temp, 0o600)
    os.replace(temp, path)
    return parse_vlcrc(text)
