"""The one reader of the linearized accessibility tree that :func:`a11y.linearize_tree` writes.

A line reads ``<indent><role> "<name>" text="<text>" [disabled] [<states>] @(x,y,w,h) {<summary>}``
(two spaces per depth; every part after the name is optional). In an env's observation an
actionable line also carries its element id after the indent: ``  [17] push button "Save" ...``
(:mod:`desktop_gym.elements`). GUI oracles of every suite read
the observation's ``a11y_tree`` through :func:`parse_tree` and :func:`find_node`; a test checks the
reader against the writer. Pure text: importable without AT-SPI.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass

from desktop_gym.errors import A11yNodeNotFoundError

Box = tuple[int, int, int, int]
_STRING = r'"(?:[^"\\]|\\.)*"'
_LINE = re.compile(
    rf"^(?P<indent> *)(?:\[(?P<element>\d{{1,9}})\] )?(?P<role>[a-z][a-z -]*?) (?P<name>{_STRING})"
    rf"(?: text=(?P<text>{_STRING}))?"
    r"(?P<disabled> \[disabled\])?"
    r"(?: \[(?P<states>[a-z ]+(?:, [a-z ]+)*)\])?"
    r"(?: @\((?P<box>-?\d+,-?\d+,\d+,\d+)\))?"
    r"(?: \{(?P<summary>.*)\})?$"
)


@dataclass(frozen=True)
class A11yLine:
    """One node of the linearized tree.

    Attributes:
        depth: Nesting depth (indent / 2).
        role: AT-SPI role name (``"push button"``).
        name: Accessible name.
        text: Its text when it differs from the name ("" otherwise).
        states: The states the writer shows (focused, selected, checked, ...).
        enabled: False for ``[disabled]`` nodes.
        box: ``(x, y, width, height)`` on screen, or None when off screen.
        summary: The ``{...}`` summary of a node that manages its descendants (a grid), or None.
        tail: What follows the name on the line, as written.
        line: The line as written.
        element: Its element id in an env observation (``[17]`` before the role), else None.
    """

    depth: int
    role: str
    name: str
    text: str
    states: frozenset[str]
    enabled: bool
    box: Box | None
    summary: str | None
    tail: str
    line: str
    element: int | None = None

    @property
    def center(self) -> tuple[int, int]:
        """The point to click.

        Raises:
            A11yNodeNotFoundError: the node has no on-screen box.
        """
        if self.box is None:
            raise A11yNodeNotFoundError(f"{self.role} {self.name!r} has no on-screen box")
        x, y, width, height = self.box
        return x + width // 2, y + height // 2

    @property
    def label(self) -> str:
        """``role "name"`` as the tree writes it (ancestor paths use it)."""
        return f"{self.role} {json.dumps(self.name, ensure_ascii=False)}"


def parse_line(line: str) -> A11yLine | None:
    """One line of the tree, or None for lines that are not nodes (``... truncated``)."""
    match = _LINE.match(line)
    if match is None:
        return None
    box = tuple(int(value) for value in match["box"].split(",")) if match["box"] else None
    try:  # the writer's json.dumps never leaves a bad escape or a raw control character; other text may
        name = json.loads(match["name"], strict=False)
        text = json.loads(match["text"], strict=False) if match["text"] else ""
    except ValueError:
        return None
    return A11yLine(
        depth=len(match["indent"]) // 2,
        role=match["role"],
        name=name,
        text=text,
        states=frozenset(match["states"].split(", ")) if match["states"] else frozenset(),
        enabled=match["disabled"] is None,
        box=box,  # type: ignore[arg-type]
        summary=match["summary"],
        tail=line[match.end("name") :],
        line=line,
        element=int(match["element"]) if match["element"] else None,
    )


def parse_tree(tree: str) -> list[A11yLine]:
    """The nodes of a linearized tree in document order (lines that are not nodes are skipped).

    Lines end at "\n" only: names may hold other Unicode line breaks (U+0085, U+2028).
    """
    return [node for node in map(parse_line, tree.split("\n")) if node is not None]


def _nodes(tree: str | Iterable[A11yLine]) -> list[A11yLine]:
    return parse_tree(tree) if isinstance(tree, str) else list(tree)


def find_node(
    tree: str | Iterable[A11yLine],
    role: str | tuple[str, ...],
    name: str | None = None,
    within: tuple[str, str] | None = None,
    enabled_only: bool = False,
) -> A11yLine | None:
    """The first on-screen node with ``role`` (or one of several) and ``name`` (any when None).

    Args:
        tree: The linearized tree, or nodes from :func:`parse_tree`.
        role: Role name(s).
        name: Exact accessible name, or None for any.
        within: ``(role, name)`` of an ancestor the node must be under (any node that matches).
        enabled_only: Skip ``[disabled]`` nodes.

    Returns:
        The node, or None when there is no such node with a box on screen.
    """
    roles = (role,) if isinstance(role, str) else role
    inside_depth: int | None = -1 if within is None else None
    for node in _nodes(tree):
        if within is not None:
            if inside_depth is not None and node.depth <= inside_depth:
                inside_depth = None
            if inside_depth is None:
                if (node.role, node.name) == within:
                    inside_depth = node.depth
                continue
        if node.role in roles and name in (None, node.name) and node.box is not None:
            if node.enabled or not enabled_only:
                return node
    return None


def require_node(
    tree: str | Iterable[A11yLine], role: str | tuple[str, ...], name: str, within: tuple[str, str] | None = None
) -> A11yLine:
    """:func:`find_node`, raising when absent.

    Raises:
        A11yNodeNotFoundError: naming what was looked for.
    """
    node = find_node(tree, role, name, within)
    if node is None:
        roles = (role,) if isinstance(role, str) else role
        where = f" inside {within[0]} {within[1]!r}" if within else ""
        raise A11yNodeNotFoundError(f"no on-screen {' or '.join(roles)} {name!r}{where} in the accessibility tree")
    return node


def focused_with_ancestors(tree: str | Iterable[A11yLine]) -> list[tuple[A11yLine, tuple[str, ...]]]:
    """Each focused node with the labels (``role "name"``) of its ancestors, outermost first."""
    found = []
    stack: list[A11yLine] = []
    for node in _nodes(tree):
        while stack and stack[-1].depth >= node.depth:
            stack.pop()
        if "focused" in node.states:
            found.append((node, tuple(ancestor.label for ancestor in stack)))
        stack.append(node)
    return found
