"""Limits on task files: what a task file from a stranger may ask of the loader and the desktop.

A task file is data. It may only name paths inside the session home (``~/...``, normalized before
the check, so ``~/../x`` is refused), may not create setuid/setgid/sticky files, and may not make
loading or parameter expansion unbounded: the JSON's nesting, its integers, the verifier tree's
depth, format widths, integer samplers and the length a template can expand to are all capped
here, and refused at load with a message naming the field.
"""

from __future__ import annotations

import json
import posixpath
import string
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..errors import TaskFileError

MAX_JSON_DEPTH = 64
"""Deepest nesting of lists and objects in a task file."""
MAX_VERIFIER_DEPTH = 16
"""Deepest nesting of all / any / not in a verifier tree."""
MAX_INT_DIGITS = 18
"""Most digits of an integer in a task file (int64 holds 18 for sure)."""
MAX_SAMPLER_INT = 10**15
"""Largest magnitude of an ``integer`` sampler's min and max."""
MAX_FORMAT_WIDTH = 1000
"""Largest width or precision in a template's format spec (``{n:>1000}``)."""
MAX_EXPANDED_CHARS = 100_000
"""Longest text a parameter or template may expand to."""
PATH_FIELDS = {"put_file": ("path",), "copy_file": ("src", "dst"), "open": ("path",)}
"""The setup step fields that name a file in the desktop."""
SPECIAL_MODE_BITS = 0o7000  # setuid, setgid, sticky


class _HugeIntError(ValueError):
    pass


def _bounded_int(text: str) -> int:
    digits = text.lstrip("-")
    if len(digits) > MAX_INT_DIGITS:
        raise _HugeIntError(f"an integer with {len(digits)} digits (at most {MAX_INT_DIGITS})")
    return int(text)


def read_task_json(path: Path, source: str) -> Any:
    """Read and parse a task file, refusing what would break or stall the loader.

    Raises:
        TaskFileError: unreadable, not UTF-8, not JSON, nested too deeply or holding a huge integer.
    """
    try:
        text = path.read_bytes().decode("utf-8")
    except OSError as error:
        raise TaskFileError(source, "", f"cannot read the file: {error.strerror}") from None
    except UnicodeDecodeError as error:
        raise TaskFileError(source, f"byte {error.start}", "the file is not UTF-8 text") from None
    try:
        data = json.loads(text, parse_int=_bounded_int)
    except json.JSONDecodeError as error:
        raise TaskFileError(
            source, f"line {error.lineno} column {error.colno}", f"not valid JSON: {error.msg}"
        ) from None
    except _HugeIntError as error:
        raise TaskFileError(source, "", str(error)) from None
    except RecursionError:
        raise TaskFileError(source, "", f"the JSON is nested more than {MAX_JSON_DEPTH} levels deep") from None
    return data  # the loader checks the depth next, the verifier tree's first (its message is clearer)


def _short_path(path: str, depth: int) -> str:
    return path if len(path) <= 80 else f"{path[:60]}... (depth {depth})"


def too_deep(data: Any, limit: int) -> str | None:
    """The JSON path of the first value nested deeper than ``limit``, or None (no recursion)."""
    stack: list[tuple[Any, str, int]] = [(data, "", 0)]
    while stack:
        value, path, depth = stack.pop()
        if depth > limit:
            return _short_path(path, depth) or "top level"
        if isinstance(value, Mapping):
            stack.extend((item, f"{path}.{key}" if path else str(key), depth + 1) for key, item in value.items())
        elif isinstance(value, list):
            stack.extend((item, f"{path}[{index}]", depth + 1) for index, item in enumerate(value))
    return None


def verifier_too_deep(node: Any, path: str = "verifier") -> str | None:
    """Where a verifier tree nests all / any / not more than :data:`MAX_VERIFIER_DEPTH` deep, or None."""
    stack: list[tuple[Any, str, int]] = [(node, path, 0)]
    while stack:
        value, where, depth = stack.pop()
        if depth > MAX_VERIFIER_DEPTH:
            return _short_path(where, depth)
        if not isinstance(value, Mapping):
            continue
        for key in ("all", "any"):
            children = value.get(key)
            if isinstance(children, list):
                stack.extend((child, f"{where}.{key}[{i}]", depth + 1) for i, child in enumerate(children))
        if "not" in value:
            stack.append((value["not"], f"{where}.not", depth + 1))
    return None


def home_path(path: str, field: str = "path") -> str:
    """``path`` normalized and confined to the session home: ``~/a/../b`` -> ``~/b``.

    Raises:
        ValueError: the path is not under ``~/`` (absolute, ``~user``, relative) or leaves the home.
    """
    if not isinstance(path, str) or not path.strip():
        raise ValueError(f"{field}: must be a path under the session home such as '~/notes.txt', got {path!r}")
    if path == "~":
        return path
    if not path.startswith("~/"):
        raise ValueError(f"{field}: {path[:200]!r} must start with '~/' (task files only reach the session home)")
    rest = posixpath.normpath(path[2:])
    if rest == ".." or rest.startswith("../") or rest.startswith("/"):
        raise ValueError(f"{field}: {path[:200]!r} leaves the session home")
    return "~" if rest == "." else f"~/{rest}"


def mode_problem(mode: Any) -> str | None:
    """Why a ``put_file`` mode is refused (setuid, setgid or sticky bits), or None."""
    if isinstance(mode, int) and not isinstance(mode, bool) and mode & SPECIAL_MODE_BITS:
        return f"mode {mode:#o} sets setuid/setgid/sticky bits; only permission bits (0o777) are allowed"
    return None


def _spec_width(spec: str) -> int:
    """The width or precision a format spec asks for (the largest number in it)."""
    numbers, current = [], ""
    for char in spec + " ":
        if char.isdigit():
            current += char
        elif current:
            numbers.append(current)
            current = ""
    if any(len(n) > 6 for n in numbers):
        return MAX_FORMAT_WIDTH + 1
    return max((int(n) for n in numbers), default=0)


def template_problem(text: str) -> str | None:
    """Why a template's format specs would expand without bound (``{word:>2000000000}``), or None."""
    try:
        parsed = list(string.Formatter().parse(text))
    except ValueError:
        return None  # malformed templates are reported by json_params.template_fields
    for _literal, field, spec, _conversion in parsed:
        if field is not None and spec and _spec_width(spec) > MAX_FORMAT_WIDTH:
            return f"the format spec {{{field}:{spec[:20]}}} asks for more than {MAX_FORMAT_WIDTH} characters"
    return None


def _template_bound(text: str, bounds: Mapping[str, int]) -> int:
    total = 0
    for literal, field, spec, _conversion in string.Formatter().parse(text):
        total += len(literal)
        if field is not None:
            total += max(bounds.get(field, 0), _spec_width(spec or "")) + 2 * bool(_conversion)
    return total


def _value_bound(value: Any) -> int:
    return len(value) if isinstance(value, str) else len(json.dumps(value, default=str))


def sampler_problem(spec: Any, bounds: dict[str, int], name: str) -> str | None:
    """Check one parameter against the limits and record how long it can get in ``bounds``.

    Returns:
        Why the parameter is refused, or None.
    """
    if not isinstance(spec, Mapping) or len(spec) != 1:
        bounds[name] = _value_bound(spec)
    else:
        ((kind, arg),) = spec.items()
        if kind == "integer" and isinstance(arg, Mapping):
            for end in ("min", "max"):
                value = arg.get(end)
                if not isinstance(value, int) or isinstance(value, bool) or abs(value) > MAX_SAMPLER_INT:
                    return f"integer sampler {end} must be an integer of at most {MAX_SAMPLER_INT:.0e} in magnitude"
            bounds[name] = max(len(str(arg["min"])), len(str(arg["max"])))
        elif kind == "choice" and isinstance(arg, list):
            bounds[name] = max((_value_bound(item) for item in arg), default=0)
        elif kind == "words" and isinstance(arg, Mapping):
            pool = arg.get("from") or ["x" * 10]
            count = arg.get("count", 1) if isinstance(arg.get("count", 1), int) else 1
            longest = max((_value_bound(word) for word in pool), default=0)
            bounds[name] = count * (longest + len(str(arg.get("sep", " "))))
        elif kind == "template" and isinstance(arg, str):
            problem = template_problem(arg)
            if problem:
                return problem
            try:
                bounds[name] = _template_bound(arg, bounds)
            except ValueError:
                bounds[name] = len(arg)
        else:
            bounds[name] = _value_bound(arg)
    if bounds[name] > MAX_EXPANDED_CHARS:
        return f"the parameter can expand to {bounds[name]} characters (at most {MAX_EXPANDED_CHARS})"
    return None


def expansion_problem(text: str, bounds: Mapping[str, int]) -> str | None:
    """Why filling a template (with parameters as long as ``bounds`` allows) would be too long, or None."""
    problem = template_problem(text)
    if problem:
        return problem
    try:
        length = _template_bound(text, bounds)
    except ValueError:
        return None
    if length > MAX_EXPANDED_CHARS:
        return f"the template can expand to {length} characters (at most {MAX_EXPANDED_CHARS})"
    return None
