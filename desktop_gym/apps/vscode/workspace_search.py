"""Search and replace across the text files of a workspace folder, as VS Code's Search view does.

Files are found by a walk that skips hidden folders (``.git``) and folders VS Code excludes by
default (``node_modules``), never follows a symlink out of the folder, and stops at caps on the
files looked at, their size and the matches returned. Matching is literal by default, or a Python
regular expression (``re``, with a size cap on the pattern). Standard library only.
"""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

#: The most files one search or replace looks at.
MAX_FILES = 5000
#: Files bigger than this are skipped (as VS Code skips large files).
MAX_FILE_BYTES = 2 * 1024 * 1024
#: The longest search text or pattern.
MAX_PATTERN_CHARS = 1000
#: Folders never searched.
SKIPPED_FOLDERS = frozenset({"node_modules", "__pycache__"})


@dataclass(frozen=True)
class Match:
    """One matching line: its file, 1-based line number and text."""

    path: Path
    line: int
    text: str


def compile_pattern(text: str, regex: bool, match_case: bool) -> re.Pattern[str]:
    """The pattern of a search: ``text`` literally, or as a regular expression.

    Raises:
        ValueError: empty, too long, or not a valid regular expression.
    """
    if not text:
        raise ValueError("the search text must not be empty")
    if len(text) > MAX_PATTERN_CHARS:
        raise ValueError(f"the search text is over {MAX_PATTERN_CHARS} characters")
    flags = 0 if match_case else re.IGNORECASE
    try:
        return re.compile(text if regex else re.escape(text), flags)
    except re.error as error:
        raise ValueError(f"not a valid regular expression: {error}") from None


def text_files(folder: Path, include: str = "") -> Iterator[Path]:
    """The workspace's text files under ``folder`` whose path relative to it matches the glob ``include``
    (all files when empty), at most :data:`MAX_FILES` looked at, in a stable order."""
    seen = 0
    for root, dirs, files in os.walk(folder, followlinks=False):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in SKIPPED_FOLDERS)
        for name in sorted(files):
            seen += 1
            if seen > MAX_FILES:
                return
            path = Path(root) / name
            relative = path.relative_to(folder).as_posix()
            if include and not (fnmatch.fnmatch(relative, include) or fnmatch.fnmatch(name, include)):
                continue
            if path.is_symlink() or not path.is_file() or path.stat().st_size > MAX_FILE_BYTES:
                continue
            yield path


def read_text(path: Path) -> str | None:
    """The file's text, None for a binary (a NUL byte) or non-UTF-8 file."""
    data = path.read_bytes()[:MAX_FILE_BYTES]
    if b"\0" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def search(folder: Path, pattern: re.Pattern[str], include: str, max_results: int) -> tuple[list[Match], bool]:
    """Matching lines under ``folder``: ``(matches, cut)``, cut when more than ``max_results`` matched."""
    found: list[Match] = []
    for path in text_files(folder, include):
        text = read_text(path)
        if text is None:
            continue
        for number, line in enumerate(text.splitlines(), start=1):
            if pattern.search(line):
                if len(found) == max_results:
                    return found, True
                found.append(Match(path, number, line))
    return found, False


def replace(folder: Path, pattern: re.Pattern[str], replacement: str, include: str, regex: bool) -> dict[Path, str]:
    """The new text of each file under ``folder`` with every match replaced (files without one are left out).

    A regular expression's replacement may name groups (``\\1``); a literal one is taken as is.
    """
    changed: dict[Path, str] = {}
    for path in text_files(folder, include):
        text = read_text(path)
        if text is None:
            continue
        new = pattern.sub(replacement if regex else lambda _m: replacement, text)
        if new != text:
            changed[path] = new
    return changed
