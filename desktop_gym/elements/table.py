"""Element ids: the actionable nodes of the accessibility text, numbered for one observation.

The guest's tree text has one node a line (``<indent><role> "<name>" text="..." [states] @(x,y,w,h)``,
see :func:`desktop_gym.guest.a11y.linearize_tree`). :func:`number_elements` gives each line an agent
can act on (an actionable role, enabled, with an on-screen box) an id, written in front of the role:
``  [17] push button "Save" @(412,30,24,24)``. Ids count from 1 in tree order, so an unchanged tree
gets the same ids. The :class:`ElementTable` keeps what each id points at, with the observation it
came from, for the actions that name an element (``click(element=17)``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass

#: Roles an agent can click, type into, scroll or select in (AT-SPI's names).
ACTIONABLE_ROLES = frozenset(
    (
        "push button|toggle button|check box|radio button|menu item|check menu item|radio menu item|menu"
        "|combo box|text|entry|password text|spin button|slider|link|list item|page tab|table cell|tree item"
        "|icon|paragraph|document text|terminal|table|list|tree table|tree"
        "|document spreadsheet|document presentation"
    ).split("|")
)
#: The most elements one observation numbers (a tree text holds at most ``a11y_max_nodes`` lines anyway).
MAX_ELEMENTS = 5000
#: The longest line the parser reads; longer lines are passed over (the guest caps names at 80 chars).
MAX_LINE_CHARS = 4000

_TAIL = re.compile(
    r"^(?P<disabled> \[disabled\])?(?: \[(?P<states>[a-z, ]+)\])?"
    r"(?: @\((?P<x>-?\d{1,9}),(?P<y>-?\d{1,9}),(?P<w>\d{1,9}),(?P<h>\d{1,9})\))?(?: \{.*\})?$",
    re.DOTALL,
)
_DECODER = json.JSONDecoder()


@dataclass(frozen=True)
class Element:
    """One actionable node of an observation.

    Attributes:
        id: Its number in the observation (1-based, tree order).
        role: AT-SPI role (``"push button"``).
        name: Accessible name (may be empty).
        text: Text content shown on its line (may be empty).
        box: ``(x, y, width, height)`` in screen pixels.
        states: The states its line shows (``("focused",)``).
    """

    id: int
    role: str
    name: str
    text: str
    box: tuple[int, int, int, int]
    states: tuple[str, ...] = ()

    @property
    def center(self) -> tuple[int, int]:
        """The point an action on it aims at: its box's centre."""
        x, y, width, height = self.box
        return x + width // 2, y + height // 2

    def to_dict(self) -> dict[str, object]:
        """A JSON-ready form (the observation's ``elements`` part)."""
        return {
            "id": self.id,
            "role": self.role,
            "name": self.name,
            "text": self.text,
            "box": list(self.box),
            "states": list(self.states),
        }


@dataclass(frozen=True)
class ParsedLine:
    """One line of tree text, taken apart (``None`` fields: not on the line)."""

    indent: str
    role: str
    name: str
    text: str
    disabled: bool
    states: tuple[str, ...]
    box: tuple[int, int, int, int] | None


def parse_line(line: str) -> ParsedLine | None:
    """Take one tree line apart; None for a line that is not a node (``... truncated``) or malformed.

    Never raises: the text comes from apps, whose names may hold anything.
    """
    if len(line) > MAX_LINE_CHARS:
        return None
    body = line.lstrip(" ")
    indent = line[: len(line) - len(body)]
    role, sep, rest = body.partition(' "')
    if not sep or not role or '"' in role:
        return None
    try:
        name, end = _DECODER.raw_decode('"' + rest)
        rest = ('"' + rest)[end:]
        text = ""
        if rest.startswith(" text="):
            text, end = _DECODER.raw_decode(rest, len(" text="))
            rest = rest[end:]
    except (json.JSONDecodeError, ValueError):
        return None
    if not isinstance(name, str) or not isinstance(text, str):
        return None
    tail = _TAIL.match(rest)
    if tail is None:
        return None
    states = tuple(s.strip() for s in (tail["states"] or "").split(",") if s.strip())
    box = None
    if tail["x"] is not None:
        box = (int(tail["x"]), int(tail["y"]), int(tail["w"]), int(tail["h"]))
    return ParsedLine(indent, role, name, text, bool(tail["disabled"]), states, box)


def _actionable(parsed: ParsedLine) -> bool:
    return (
        parsed.role in ACTIONABLE_ROLES
        and not parsed.disabled
        and parsed.box is not None
        and parsed.box[2] > 0
        and parsed.box[3] > 0
    )


@dataclass(frozen=True)
class ElementTable:
    """The elements of one observation, by id.

    Attributes:
        observation: Which observation numbered them (0 after ``reset``, the step number after a step).
        elements: The elements in id order.
    """

    observation: int = -1
    elements: tuple[Element, ...] = ()

    def get(self, element_id: int) -> Element | None:
        """The element with this id, or None."""
        if 1 <= element_id <= len(self.elements):
            return self.elements[element_id - 1]
        return None

    def __len__(self) -> int:
        return len(self.elements)

    def __iter__(self) -> Iterator[Element]:
        return iter(self.elements)

    def describe(self) -> str:
        """Which observation the ids come from and their range, for error messages."""
        name = "the reset observation" if self.observation == 0 else f"the observation of step {self.observation}"
        if self.observation < 0:
            return "no observation has numbered elements yet"
        if not self.elements:
            return f"{name} has no elements"
        return f"{name} has elements 1-{len(self.elements)}"

    def to_json(self) -> str:
        """The elements as a JSON list (the observation's ``elements`` part)."""
        return json.dumps([element.to_dict() for element in self.elements], ensure_ascii=False)


def number_elements(tree_text: str, observation: int = 0) -> tuple[str, ElementTable]:
    """Give each actionable line of ``tree_text`` an id.

    Args:
        tree_text: The accessibility tree text from the guest.
        observation: The observation's number, kept in the table for error messages.

    Returns:
        The text with ``[id] `` written after each numbered line's indent, and the table of ids.
    """
    lines = tree_text.split("\n") if tree_text else []
    elements: list[Element] = []
    out: list[str] = []
    for line in lines:
        parsed = parse_line(line) if len(elements) < MAX_ELEMENTS else None
        if parsed is None or not _actionable(parsed):
            out.append(line)
            continue
        assert parsed.box is not None
        element = Element(len(elements) + 1, parsed.role, parsed.name, parsed.text, parsed.box, parsed.states)
        elements.append(element)
        out.append(f"{parsed.indent}[{element.id}] {line[len(parsed.indent) :]}")
    return "\n".join(out), ElementTable(observation, tuple(elements))
