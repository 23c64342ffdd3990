"""OSWorld's observation types as named presets, and its text formats for the tree.

``DesktopEnv(observation="som")`` takes a preset's parts; ``DesktopEnv(a11y_format="osworld")`` writes
the tree as OSWorld's agents read it: a tab-separated table with the header
``tag name text class description position (top-left x&y) size (w&h)`` (OSWorld's
``linearize_accessibility_tree``), or with a set-of-marks screenshot, the marks' table
``index tag name text`` (its ``tag_screenshot``), whose indices are the element ids.
"""

from __future__ import annotations

from desktop_gym.guest.a11y_text import parse_line

from .table import ElementTable

#: The parts every preset shares: the task, the focus, the offered APIs and the last action's feedback.
_COMMON = ("instruction", "focused_app", "api", "last_action_result", "last_action_error")
#: OSWorld's ``observation_type`` values -> observation parts.
OBSERVATION_PRESETS: dict[str, tuple[str, ...]] = {
    "screenshot": ("instruction", "screenshot", *_COMMON[1:]),
    "a11y_tree": ("instruction", "a11y_tree", *_COMMON[1:]),
    "screenshot_a11y_tree": ("instruction", "screenshot", "a11y_tree", *_COMMON[1:]),
    "som": ("instruction", "som_screenshot", "a11y_tree", *_COMMON[1:]),
}
#: How the ``a11y_tree`` part is written.
A11Y_FORMATS = ("text", "osworld")
TREE_HEADER = "tag\tname\ttext\tclass\tdescription\tposition (top-left x&y)\tsize (w&h)"
MARKS_HEADER = "index\ttag\tname\ttext"


def _cell(text: str) -> str:
    """A table cell as OSWorld writes it: quoted (quotes doubled) when it holds a quote; tabs and
    newlines become spaces so that a row stays one row."""
    text = text.replace("\t", " ").replace("\n", " ")
    return f'"{text.replace(chr(34), chr(34) * 2)}"' if '"' in text else text


def _tag(role: str) -> str:
    return role.replace(" ", "-")


def osworld_tree(tree_text: str) -> str:
    """The tree text as OSWorld's linearized table: one row a node that has a box on the screen."""
    rows = [TREE_HEADER]
    for line in tree_text.split("\n") if tree_text else []:
        parsed = parse_line(line)
        if parsed is None or parsed.box is None or parsed.box[2] <= 0 or parsed.box[3] <= 0:
            continue
        x, y, width, height = parsed.box
        text = _cell(parsed.text) if parsed.text else '""'
        rows.append(f"{_tag(parsed.role)}\t{_cell(parsed.name)}\t{text}\t\t\t({x}, {y})\t({width}, {height})")
    return "\n".join(rows)


def osworld_marks(table: ElementTable) -> str:
    """The set-of-marks table: one row a mark, its index being the element id."""
    rows = [MARKS_HEADER]
    for element in table:
        text = _cell(element.text) if element.text else '""'
        rows.append(f"{element.id}\t{_tag(element.role)}\t{_cell(element.name)}\t{text}")
    return "\n".join(rows)
