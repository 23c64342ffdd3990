"""Parameters of JSON tasks: seeded samplers and ``{name}`` templates.

A parameter is a fixed value or one sampler (``choice``, ``integer``, ``words``, ``template``),
drawn from the env's ``np.random.Generator`` in the order written, so a seed fixes every value.
Templates use ``str.format`` syntax restricted to plain names (``{token}``, ``{n:03d}``,
``{text!r}``): no attribute or index access, so a task file cannot reach into Python objects.
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np

from ..errors import TemplateError

BUILTIN_WORDS = (
    "amber", "birch", "cedar", "cobalt", "coral", "delta", "ember", "falcon", "fjord", "garnet",
    "harbor", "hazel", "indigo", "jasper", "juniper", "kestrel", "lagoon", "lilac", "maple", "meadow",
    "nectar", "onyx", "orchid", "pebble", "quartz", "raven", "saffron", "sierra", "tundra", "umber",
    "velvet", "willow", "yarrow", "zephyr",
)  # fmt: skip
SAMPLERS = ("value", "choice", "integer", "words", "template")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_WHOLE_FIELD = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
_MAX_REDRAWS = 100


def template_fields(text: str) -> list[str]:
    """The parameter names a template uses, in order.

    Raises:
        TemplateError: unbalanced braces, an empty ``{}``, or a field that is not a plain name.
    """
    names: list[str] = []
    try:
        parsed = list(string.Formatter().parse(text))
    except ValueError as error:
        raise TemplateError(
            f"malformed template {text[:60]!r}: {error} (write {{{{ and }}}} for literal braces)"
        ) from None
    for _literal, field, spec, _conversion in parsed:
        if field is None:
            continue
        if not _NAME.fullmatch(field):
            raise TemplateError(f"template field {{{field}}} must be a plain parameter name (in {text[:60]!r})")
        if spec and "{" in spec:
            raise TemplateError(f"nested fields in a format spec are not supported (in {text[:60]!r})")
        names.append(field)
    return names


def iter_strings(value: Any, path: str = "") -> Iterator[tuple[str, str]]:
    """Every string in a JSON value (dict keys included) with its JSON path, e.g. ``args.expected.{cell}``."""
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, Mapping):
        for key, item in value.items():
            child = f"{path}.{key}" if path else str(key)
            yield child, str(key)
            yield from iter_strings(item, child)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from iter_strings(item, f"{path}[{index}]")


def fill(value: Any, params: Mapping[str, Any]) -> Any:
    """``value`` with every template filled from ``params`` (recursively through lists and dicts).

    A string that is exactly ``"{name}"`` becomes the parameter itself, keeping its type (so
    ``{"B2": "{total}"}`` compares a number with a number); other strings are formatted.
    """
    if isinstance(value, str):
        whole = _WHOLE_FIELD.fullmatch(value)
        if whole:
            return params[whole.group(1)]
        template_fields(value)  # refuses attribute and index access before format() sees the text
        return value.format_map(params)
    if isinstance(value, Mapping):
        return {str(fill(key, params)): fill(item, params) for key, item in value.items()}
    if isinstance(value, list):
        return [fill(item, params) for item in value]
    return value


def _plain(value: Any) -> Any:
    """numpy scalars -> Python scalars, so parameters stay JSON-serializable."""
    return value.item() if isinstance(value, np.generic) else value


def sample_value(spec: Any, rng: np.random.Generator, params: Mapping[str, Any]) -> Any:
    """Draw one parameter value from its spec (see the module docstring)."""
    if not isinstance(spec, Mapping):
        return spec
    ((kind, arg),) = spec.items()
    if kind == "value":
        return arg
    if kind == "choice":
        return arg[int(rng.integers(len(arg)))]
    if kind == "integer":
        return int(rng.integers(arg["min"], arg["max"] + 1))
    if kind == "words":
        pool = list(arg.get("from", BUILTIN_WORDS))
        count = int(arg.get("count", 1))
        picked = rng.choice(len(pool), size=count, replace=False)
        return str(arg.get("sep", " ")).join(pool[int(i)] for i in picked)
    if kind == "template":
        return fill(arg, params)
    raise ValueError(f"unknown parameter sampler {kind!r} (known: {', '.join(SAMPLERS)})")


def sample_params(specs: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
    """All parameters of a task, drawn in the order written."""
    params: dict[str, Any] = {}
    for name, spec in specs.items():
        params[name] = _plain(sample_value(spec, rng, params))
    return params


def perturbed_value(spec: Any, true_value: Any, rng: np.random.Generator, params: Mapping[str, Any]) -> Any:
    """A wrong value for a parameter: fixed or templated (from the true parameters), or redrawn until it differs.

    Raises:
        ValueError: the perturbation cannot produce a value different from ``true_value``.
    """
    is_sampler = isinstance(spec, Mapping) and next(iter(spec)) in ("choice", "integer", "words")
    for _ in range(_MAX_REDRAWS if is_sampler else 1):
        if isinstance(spec, Mapping):
            value = _plain(sample_value(spec, rng, params))
        else:
            value = fill(spec, params)
        if value != true_value:
            return value
    raise ValueError(f"perturb gives the true value {true_value!r} again; it must make the value wrong")


def check_sampler(spec: Any) -> str | None:
    """Why a sampler spec cannot work (e.g. ``integer`` with min > max), or None."""
    if not isinstance(spec, Mapping):
        return None
    ((kind, arg),) = spec.items()
    if kind == "integer" and arg["min"] > arg["max"]:
        return f"integer sampler has min {arg['min']} > max {arg['max']}"
    if kind == "words":
        pool = arg.get("from", BUILTIN_WORDS)
        if int(arg.get("count", 1)) > len(pool):
            return f"words sampler wants {arg.get('count')} distinct words from a list of {len(pool)}"
    return None
