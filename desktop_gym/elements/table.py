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
from collections.abc import Iterator
from dataclasses import dataclass

from desktop_gym.guest.a11y_text import A11yLine, parse_line

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
#: The longest line read for an id; longer lines are passed over (the guest caps names at 80 chars).
MAX_LINE_CHARS = 4000
#: The order the tree writes states in (``guest.a11y._SHOWN_STATES``), kept in ``Element.states``.
_STATE_ORDER = ("focused", "selected", "checked", "pressed", "expanded", "editable", "modal", "indeterminate")


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


def _actionable(node: A11yLine | None) -> bool:
    return (
        node is not None
        and node.role in ACTIONABLE_ROLES
        and node.enabled
        and node.element is None
        and node.box is not None
        and node.box[2] > 0
        and node.box[3] > 0
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
        node = parse_line(line) if len(elements) < MAX_ELEMENTS and len(line) <= MAX_LINE_CHARS else None
        if not _actionable(node):
            out.append(line)
            continue
        assert node is not None and node.box is not None
        states = tuple(state for state in _STATE_ORDER if state in node.states)
        element = Element(len(elements) + 1, node.role, node.name, node.text, node.box, states)
        elements.append(element)
        indent = len(line) - len(line.lstrip(" "))
        out.append(f"{line[:indent]}[{element.id}] {line[indent:]}")
    return "\n".join(out), ElementTable(observation, tuple(elements))
