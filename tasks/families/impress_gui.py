"""GUI oracles that point: positions come from the observation's accessibility tree, never constants.

The tree is the env's linearized text (see :mod:`desktop_gym.guest.a11y`): one node per line,
indented two spaces a level, ``role "name" [text=...] [states] @(x,y,w,h)``. The oracles are
:class:`~desktop_gym.tasks.gui_script.GuiScript` policies; a pointer step is a
:class:`~desktop_gym.tasks.gui_script.Computed` that reads the observation (e.g. :func:`click_node`,
which clicks the centre of a node), retried while its node is not there yet.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...guest.a11y_text import A11yNodeNotFoundError, parse_tree
from .. import gui_script
from ..gui_script import Computed, Step, saved_by_gui, tree_of

__all__ = ["click_node", "drag_on_slide", "menu_path", "saved_by_gui", "type_and_leave"]  # the suite's GUI kit

MENU_ITEMS = ("menu item", "check menu item", "radio menu item")


def click_node(role: str | tuple[str, ...], name: str, within: tuple[str, str] | None = None) -> Computed:
    """A step that clicks the centre of the node ``role "name"`` found in the observation's tree
    (disabled or not, as LibreOffice's Impress menus show some items)."""
    return gui_script.click_node(role, name, within, enabled_only=False)


def menu_path(*names: str) -> list[Step]:
    """Steps that open the menu bar's ``names[0]`` menu and click down to the item ``names[-1]``.

    Intermediate names are submenus (``menu`` nodes); the last is a (check / radio) ``menu item``.
    """
    steps: list[Step] = [click_node("menu", names[0], within=("menu bar", ""))]
    steps.extend(click_node("menu", name) for name in names[1:-1])
    steps.append(click_node(MENU_ITEMS, names[-1]))
    return steps


def type_and_leave(text: str) -> list[Step]:
    """Steps that type ``text`` into the object being edited, then press Escape twice: out of its
    text, then off the object."""
    return [f"type(text={text!r})", 'press(key="escape")', 'press(key="escape")']


def drag_on_slide(start: tuple[float, float], end: tuple[float, float]) -> Computed:
    """A step that drags between two points of the edited slide, given as fractions of its width and
    height; the slide is the ``PageShape`` panel of the tree."""

    def make(observation: Mapping[str, Any]) -> str:
        pages = [n for n in parse_tree(tree_of(observation)) if n.role == "panel" and n.name.startswith("PageShape")]
        if not pages or pages[0].box is None:
            raise A11yNodeNotFoundError("no on-screen slide (panel 'PageShape: ...') in the accessibility tree")
        x, y, width, height = pages[0].box
        x1, y1 = x + round(width * start[0]), y + round(height * start[1])
        x2, y2 = x + round(width * end[0]), y + round(height * end[1])
        return f"drag_and_drop(drag_from_coordinates=[{x1}, {y1}], drop_on_coordinates=[{x2}, {y2}])"

    return Computed(make, "the edited slide (panel 'PageShape: ...')")
