"""The shape of ``site.json``: each part's entries checked, bad ones named and dropped.

:func:`check_parts` returns the entries that are valid and one message per problem (``"products[2].price:
not a number"``); :func:`~.store.seed` refuses any problem, the server skips the bad entries and logs
them. Standard library only.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

#: A file name served under ``/files/``: no folders, no dot files, no spaces.
FILE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")
#: A product sku, article slug or table name as it appears in a URL.
SLUG = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,79}")
MAX_TEXT = 200
MAX_FILE_CHARS = 1024 * 1024
MAX_ARTICLE_CHARS = 50_000
MAX_ENTRIES = 1000
MAX_TABLE_ROWS = 500

Problems = list[str]


def _text(value: object, where: str, problems: Problems, *, limit: int = MAX_TEXT) -> str | None:
    if not isinstance(value, str):
        problems.append(f"{where}: expected a string, got {type(value).__name__}")
        return None
    if len(value) > limit:
        problems.append(f"{where}: longer than {limit} characters")
        return None
    return value


def _name(value: object, where: str, problems: Problems, pattern: re.Pattern[str]) -> str | None:
    if not isinstance(value, str) or not pattern.fullmatch(value) or ".." in value:
        problems.append(f"{where}: {value!r} does not match {pattern.pattern}")
        return None
    return value


def _users(value: object, problems: Problems) -> dict[str, str]:
    out: dict[str, str] = {}
    for name, password in _mapping(value, "users", problems).items():
        user = _text(name, f"users[{name!r}]", problems, limit=64)
        secret = _text(password, f"users[{name!r}]", problems, limit=128)
        if user and secret is not None:
            out[user] = secret
    return out


def _product(entry: dict[str, Any], where: str, problems: Problems) -> dict[str, Any] | None:
    sku = _name(entry.get("sku"), f"{where}.sku", problems, SLUG)
    name = _text(entry.get("name"), f"{where}.name", problems)
    category = _text(entry.get("category"), f"{where}.category", problems)
    price = entry.get("price")
    if isinstance(price, bool) or not isinstance(price, int | float) or not math.isfinite(price) or price < 0:
        problems.append(f"{where}.price: expected a number >= 0, got {price!r}")
        return None
    description = _text(entry.get("description", ""), f"{where}.description", problems, limit=2000)
    if sku is None or name is None or category is None or description is None:
        return None
    return {"sku": sku, "name": name, "category": category, "price": float(price), "description": description}


def _article(entry: dict[str, Any], where: str, problems: Problems) -> dict[str, Any] | None:
    slug = _name(entry.get("slug"), f"{where}.slug", problems, SLUG)
    title = _text(entry.get("title"), f"{where}.title", problems)
    date = _text(entry.get("date", ""), f"{where}.date", problems, limit=40)
    body = entry.get("body", "")
    if isinstance(body, list | tuple) and all(isinstance(p, str) for p in body):
        body = "\n\n".join(body)
    text = _text(body, f"{where}.body", problems, limit=MAX_ARTICLE_CHARS)
    if slug is None or title is None or date is None or text is None:
        return None
    return {"slug": slug, "title": title, "date": date, "body": text}


def _table(value: object, where: str, problems: Problems) -> dict[str, Any] | None:
    table = _mapping(value, where, problems)
    title = _text(table.get("title", ""), f"{where}.title", problems)
    columns = table.get("columns")
    rows = table.get("rows")
    if not isinstance(columns, list | tuple) or not columns or not all(isinstance(c, str) for c in columns):
        problems.append(f"{where}.columns: expected a non-empty list of strings")
        return None
    if not isinstance(rows, list | tuple) or len(rows) > MAX_TABLE_ROWS:
        problems.append(f"{where}.rows: expected a list of at most {MAX_TABLE_ROWS} rows")
        return None
    cells = (str, int, float)
    for i, row in enumerate(rows):
        if not isinstance(row, list | tuple) or len(row) != len(columns) or not all(isinstance(c, cells) for c in row):
            problems.append(f"{where}.rows[{i}]: expected {len(columns)} strings or numbers")
            return None
    if title is None:
        return None
    return {"title": title, "columns": list(columns), "rows": [list(r) for r in rows]}


def _mapping(value: object, where: str, problems: Problems) -> dict[str, Any]:
    if not isinstance(value, dict):
        problems.append(f"{where}: expected an object, got {type(value).__name__}")
        return {}
    if len(value) > MAX_ENTRIES:
        problems.append(f"{where}: more than {MAX_ENTRIES} entries")
        return {}
    return value


def _records(
    value: object, part: str, key: str, check: Callable[[dict[str, Any], str, Problems], dict[str, Any] | None]
) -> tuple[list[dict[str, Any]], Problems]:
    problems: Problems = []
    if not isinstance(value, list | tuple) or len(value) > MAX_ENTRIES:
        return [], [f"{part}: expected a list of at most {MAX_ENTRIES} objects"]
    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    for i, entry in enumerate(value):
        where = f"{part}[{i}]"
        record = check(entry, where, problems) if isinstance(entry, dict) else None
        if not isinstance(entry, dict):
            problems.append(f"{where}: expected an object")
        elif record is not None and record[key] in seen:
            problems.append(f"{where}.{key}: {record[key]!r} appears twice")
        elif record is not None:
            seen.add(record[key])
            out.append(record)
    return out, problems


def _files(value: object, problems: Problems) -> dict[str, str]:
    out: dict[str, str] = {}
    for name, text in _mapping(value, "files", problems).items():
        if _name(name, f"files[{name!r}]", problems, FILE_NAME):
            content = _text(text, f"files[{name!r}]", problems, limit=MAX_FILE_CHARS)
            if content is not None:
                out[name] = content
    return out


def _tables(value: object, problems: Problems) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, table in _mapping(value, "tables", problems).items():
        if _name(name, f"tables[{name!r}]", problems, SLUG):
            checked = _table(table, f"tables[{name!r}]", problems)
            if checked is not None:
                out[name] = checked
    return out


#: Every part ``site.json`` may hold.
PARTS = ("users", "products", "files", "articles", "tables")


def check_parts(parts: dict[str, Any]) -> tuple[dict[str, Any], Problems]:
    """The valid entries of each part in ``parts`` and a message for each problem found."""
    known = ", ".join(PARTS)
    problems: Problems = [f"{name}: not a part of site.json (one of {known})" for name in parts if name not in PARTS]
    clean: dict[str, Any] = {}
    if "users" in parts:
        clean["users"] = _users(parts["users"], problems)
    if "files" in parts:
        clean["files"] = _files(parts["files"], problems)
    if "tables" in parts:
        clean["tables"] = _tables(parts["tables"], problems)
    for part, key, check in (("products", "sku", _product), ("articles", "slug", _article)):
        if part in parts:
            clean[part], found = _records(parts[part], part, key, check)
            problems.extend(found)
    return clean, problems
