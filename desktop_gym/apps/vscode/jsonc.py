"""VS Code's settings files are JSON with comments (``//`` and ``/* */``) and trailing commas: read them.

:func:`parse_jsonc` strips the comments and the trailing commas outside strings, then parses strict
JSON, so a value VS Code reads is the value read here. Writing goes back as plain JSON (VS Code reads
that too; comments in a file a tool rewrote are not kept). Standard library only.
"""

from __future__ import annotations

import json
from typing import Any

#: The biggest settings text parsed.
MAX_JSONC_CHARS = 2 * 1024 * 1024


def strip_jsonc(text: str) -> str:
    """``text`` without comments and trailing commas (strings are kept as they are).

    Raises:
        ValueError: an unterminated block comment or string, or text over :data:`MAX_JSONC_CHARS`.
    """
    if len(text) > MAX_JSONC_CHARS:
        raise ValueError(f"the settings text is over {MAX_JSONC_CHARS} characters")
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        char = text[i]
        if char == '"':
            end = i + 1
            while end < n and text[end] != '"':
                end += 2 if text[end] == "\\" else 1
            if end >= n:
                raise ValueError(f"unterminated string at character {i}")
            out.append(text[i : end + 1])
            i = end + 1
        elif text.startswith("//", i):
            newline = text.find("\n", i)
            i = n if newline < 0 else newline
        elif text.startswith("/*", i):
            close = text.find("*/", i + 2)
            if close < 0:
                raise ValueError(f"unterminated comment at character {i}")
            out.append(" ")
            i = close + 2
        elif char in "}]":
            _drop_trailing_comma(out)
            out.append(char)
            i += 1
        else:
            out.append(char)
            i += 1
    return "".join(out)


def _drop_trailing_comma(out: list[str]) -> None:
    """Remove a ``,`` that only whitespace separates from the closing bracket being added."""
    for index in range(len(out) - 1, -1, -1):
        piece = out[index]
        if piece.strip() == "":
            continue
        if piece == ",":
            del out[index]
        return


def parse_jsonc(text: str) -> Any:
    """The value of a JSON-with-comments text; an empty (or comment-only) text is ``None``.

    Raises:
        ValueError: not valid JSON once comments and trailing commas are removed (names where).
    """
    stripped = strip_jsonc(text.lstrip("\ufeff"))
    if not stripped.strip():
        return None
    return json.loads(stripped)
