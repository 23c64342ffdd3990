"""Reading the values Script-Fu prints: numbers, strings, ``#t``/``#f``, symbols, lists and vectors.

A reply is external text, so the reader is strict and bounded: one value, at most ``MAX_DEPTH`` levels
of nesting and ``MAX_ITEMS`` atoms. Lists and vectors become Python lists, symbols become strings.
Standard library only.
"""

from __future__ import annotations

import re

MAX_DEPTH = 32
MAX_ITEMS = 100_000
_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
_STRING_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\"}
_DELIMITERS = set('()" \t\r\n')


class SexpError(ValueError):
    """The text is not one value the reader knows (says where it stopped)."""


class _Reader:
    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        self.items = 0

    def skip_space(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos] in " \t\r\n":
            self.pos += 1

    def value(self, depth: int) -> object:
        self.skip_space()
        if self.pos >= len(self.text):
            raise SexpError("the text ended where a value was expected")
        self.items += 1
        if self.items > MAX_ITEMS:
            raise SexpError(f"more than {MAX_ITEMS} values")
        char = self.text[self.pos]
        if char == "(" or self.text.startswith("#(", self.pos):
            return self.sequence(depth)
        if char == '"':
            return self.string()
        if char == ")":
            raise SexpError(f"unexpected ')' at {self.pos}")
        return self.atom()

    def sequence(self, depth: int) -> list[object]:
        if depth >= MAX_DEPTH:
            raise SexpError(f"nested deeper than {MAX_DEPTH}")
        self.pos += 2 if self.text[self.pos] == "#" else 1
        items: list[object] = []
        while True:
            self.skip_space()
            if self.pos >= len(self.text):
                raise SexpError("a list is not closed")
            if self.text[self.pos] == ")":
                self.pos += 1
                return items
            items.append(self.value(depth + 1))

    def string(self) -> str:
        self.pos += 1
        out: list[str] = []
        while self.pos < len(self.text):
            char = self.text[self.pos]
            if char == '"':
                self.pos += 1
                return "".join(out)
            if char == "\\":
                if self.pos + 1 >= len(self.text):
                    break
                escaped = self.text[self.pos + 1]
                if escaped not in _STRING_ESCAPES:
                    raise SexpError(f"unknown escape '\\{escaped}' at {self.pos}")
                out.append(_STRING_ESCAPES[escaped])
                self.pos += 2
                continue
            out.append(char)
            self.pos += 1
        raise SexpError("a string is not closed")

    def atom(self) -> object:
        start = self.pos
        while self.pos < len(self.text) and self.text[self.pos] not in _DELIMITERS:
            self.pos += 1
        token = self.text[start : self.pos]
        if token == "#t":
            return True
        if token == "#f":
            return False
        if _NUMBER.fullmatch(token):
            number = float(token)
            return int(token) if re.fullmatch(r"[+-]?\d+", token) else number
        return token


def parse_sexp(text: str) -> object:
    """The one value printed in ``text``.

    Raises:
        SexpError: no value, more than one, or malformed (an open list or string, a bad escape).
    """
    reader = _Reader(text)
    value = reader.value(0)
    reader.skip_space()
    if reader.pos != len(text):
        raise SexpError(f"text after the value at {reader.pos}: {text[reader.pos : reader.pos + 20]!r}")
    return value
