"""GUI oracles that point: positions come from the observation's accessibility tree, never constants.

The tree is the env's linearized text (see :mod:`desktop_gym.guest.a11y`): one node per line,
indented two spaces a level, ``role "name" [text=...] [states] @(x,y,w,h)``. An
:class:`A11yScript` plays its steps in order; a step is an action text, or a callable that reads
the observation and returns one (e.g. :func:`click_node`, which clicks the centre of a node).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ...guest.a11y_text import A11yLine, A11yNodeNotFoundError, parse_tree, require_node
from .impress_deck import CTRL_S, DONE

Step = str | Callable[[Mapping[str, Any]], str]

MENU_ITEMS = ("menu item", "check menu item", "radio menu item")
TreeNode = A11yLine  # one node of the linearized tree (desktop_gym.guest.a11y_text)


def find_node(tree: str, role: str | tuple[str, ...], name: str, within: tuple[str, str] | None = None) -> TreeNode:
    """The first on-screen node with ``role`` (or one of several) and ``name``, optionally under an
    ancestor ``(role, name)``.

    Raises:
        A11yNodeNotFoundError: naming what was looked for.
    """
    return require_node(tree, role, name, within)


def click_node(
    role: str | tuple[str, ...], name: str, within: tuple[str, str] | None = None
) -> Callable[[Mapping[str, Any]], str]:
    """A step that clicks the centre of the node ``role "name"`` found in the observation's tree."""

    def step(observation: Mapping[str, Any]) -> str:
        x, y = find_node(str(observation.get("a11y_tree", "")), role, name, within).center
        return f"click(coordinates=[{x}, {y}])"

    return step


def menu_path(*names: str) -> list[Step]:
    """Steps that open the menu bar's ``names[0]`` menu and click down to the item ``names[-1]``.

    Intermediate names are submenus (``menu`` nodes); the last is a (check / radio) ``menu item``.
    """
    steps: list[Step] = [click_node("menu", names[0], within=("menu bar", ""))]
    steps.extend(click_node("menu", name) for name in names[1:-1])
    steps.append(click_node(MENU_ITEMS, names[-1]))
    return steps


def drag_on_slide(start: tuple[float, float], end: tuple[float, float]) -> Callable[[Mapping[str, Any]], str]:
    """A step that drags between two points of the edited slide, given as fractions of its width and
    height; the slide is the ``PageShape`` panel of the tree."""

    def step(observation: Mapping[str, Any]) -> str:
        pages = [
            n
            for n in parse_tree(str(observation.get("a11y_tree", "")))
            if n.role == "panel" and n.name.startswith("PageShape")
        ]
        if not pages or pages[0].box is None:
            raise A11yNodeNotFoundError("no on-screen slide (panel 'PageShape: ...') in the accessibility tree")
        x, y, width, height = pages[0].box
        x1, y1 = x + round(width * start[0]), y + round(height * start[1])
        x2, y2 = x + round(width * end[0]), y + round(height * end[1])
        return f"drag_and_drop(drag_from_coordinates=[{x1}, {y1}], drop_on_coordinates=[{x2}, {y2}])"

    return step


class A11yScript:
    """Plays ``steps`` in order (each an action text or a callable on the observation), then ``done()``."""

    def __init__(self, steps: Sequence[Step]) -> None:
        self._steps = list(steps)
        self._index = 0

    def __call__(self, observation: Mapping[str, Any]) -> str:
        if self._index >= len(self._steps):
            return "done()"
        step = self._steps[self._index]
        self._index += 1
        return step(observation) if callable(step) else step


def saved_by_gui(*steps: Step) -> A11yScript:
    """The GUI oracle playing ``steps``, then saving with Ctrl+S and declaring success."""
    return A11yScript([*steps, CTRL_S, DONE])
