"""Thunderbird's message filters, ``msgFilterRules.dat`` in the account's profile folder: ``key="value"``
lines, each filter starting at ``name=``, its actions as ``action``/``actionValue`` pairs and its match as
one ``condition`` (``AND (subject,contains,invoice)``).

:func:`parse_filters` reads the file's text (odd lines are skipped), :func:`format_filters` writes it back.
Thunderbird reads the file when it loads the account (at start), so a filter written while it runs is
used from its next launch. Standard library only.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

#: The fields and operators a condition the tools write may use.
FIELDS = ("subject", "from", "to", "cc", "body")
OPERATORS = ("contains", "doesn't contain", "is", "begins with", "ends with")
#: The actions the tools write, with whether they take a folder.
ACTIONS = {"Move to folder": True, "Copy to folder": True, "Mark read": False, "Mark flagged": False, "Delete": False}
#: Manual run + on new mail (Thunderbird's type bits).
FILTER_TYPE = "17"
MAX_FILTERS = 200
_LINE = re.compile(r'^([A-Za-z]+)="((?:[^"\\]|\\.)*)"\s*$')
_CONDITION = re.compile(r'(AND|OR) \(([^,()]+),([^,()]+),("(?:[^"\\]|\\.)*"|[^()]*)\)')
#: Text a condition's value may hold (no quotes, backslashes, commas or parentheses).
VALUE = re.compile(r"[^\"\\(),\x00-\x1f]{1,100}")


def _unescape(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text)


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


def parse_conditions(text: str) -> list[dict[str, str]]:
    """The ``{"join", "field", "operator", "value"}`` terms of a ``condition`` value."""
    terms = []
    for join, field, operator, value in _CONDITION.findall(text):
        value = _unescape(value[1:-1]) if value.startswith('"') and value.endswith('"') and len(value) > 1 else value
        terms.append({"join": join, "field": field.strip(), "operator": operator.strip(), "value": value})
    return terms


def parse_filters(text: str) -> dict[str, Any]:
    """``{"header": {...}, "filters": [{"name", "enabled", "type", "actions": [(action, value)], "conditions"}]}``."""
    header: dict[str, str] = {}
    filters: list[dict[str, Any]] = []
    for line in text.split("\n"):
        match = _LINE.match(line)
        if match is None:
            continue
        key, value = match.group(1), _unescape(match.group(2))
        if key == "name":
            filters.append({"name": value, "enabled": True, "type": "", "actions": [], "conditions": []})
        elif not filters:
            header[key] = value
        elif key == "enabled":
            filters[-1]["enabled"] = value == "yes"
        elif key == "type":
            filters[-1]["type"] = value
        elif key == "action":
            filters[-1]["actions"].append([value, ""])
        elif key == "actionValue" and filters[-1]["actions"]:
            filters[-1]["actions"][-1][1] = value
        elif key == "condition":
            filters[-1]["conditions"] = parse_conditions(value)
    return {"header": header, "filters": filters}


def format_condition(terms: Sequence[dict[str, str]]) -> str:
    """A ``condition`` value from ``{"join", "field", "operator", "value"}`` terms."""
    return " ".join(f"{t['join']} ({t['field']},{t['operator']},{t['value']})" for t in terms)


def format_filters(parsed: dict[str, Any]) -> str:
    """The file's text for :func:`parse_filters`' structure (version 9, logging off unless set)."""
    header = {"version": "9", "logging": "no", **parsed.get("header", {})}
    lines = [f'{key}="{_escape(value)}"' for key, value in header.items()]
    for item in parsed.get("filters", []):
        lines.append(f'name="{_escape(item["name"])}"')
        lines.append(f'enabled="{"yes" if item.get("enabled", True) else "no"}"')
        lines.append(f'type="{_escape(item.get("type") or FILTER_TYPE)}"')
        for action, value in item.get("actions", []):
            lines.append(f'action="{_escape(action)}"')
            if value:
                lines.append(f'actionValue="{_escape(value)}"')
        lines.append(f'condition="{_escape(format_condition(item.get("conditions", [])))}"')
    return "\n".join(lines) + "\n"
