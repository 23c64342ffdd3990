"""The tree reader reads back exactly what the tree writer (a11y._format_line) writes."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from desktop_gym.guest import a11y
from desktop_gym.guest.a11y_text import (
    A11yNodeNotFoundError,
    find_node,
    focused_with_ancestors,
    parse_tree,
    require_node,
)

ROLES = st.sampled_from(["push button", "menu item", "page tab", "table", "text", "check menu item", "tool bar"])
SHOWN = list(a11y._SHOWN_STATES)
short_text = st.text(max_size=a11y.MAX_NAME_CHARS)
box = st.tuples(st.integers(-50, 3000), st.integers(-50, 3000), st.integers(1, 3000), st.integers(1, 3000))


def _write(role: str, name: str, text: str, states: set[str], raw_box, depth: int, summary: str | None) -> str:
    visit = a11y._Visit(node=None, depth=depth, app="app", offset=0)
    line = a11y._format_line(visit, role, frozenset(states), raw_box, name, text, depth)
    return line + (" {" + summary + "}" if summary is not None else "")


@given(
    role=ROLES,
    name=short_text,
    text=st.text(max_size=a11y.MAX_TEXT_CHARS),
    shown=st.sets(st.sampled_from(SHOWN)),
    enabled=st.booleans(),
    raw_box=st.none() | box,
    depth=st.integers(0, 12),
    summary=st.none()
    | st.text(alphabet=st.characters(blacklist_characters="\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"), max_size=40),  # noqa: E501
)
def test_reader_reads_what_the_writer_writes(role, name, text, shown, enabled, raw_box, depth, summary) -> None:
    states = shown | ({"enabled", "sensitive"} if enabled else set())
    line = _write(role, name, text, states, raw_box, depth, summary)
    (node,) = parse_tree(line)
    assert (node.depth, node.role, node.name) == (depth, role, name)
    assert node.text == (text if text != name else "")
    assert node.states == frozenset(shown) and node.enabled == enabled
    assert node.box == raw_box and node.summary == summary and node.line == line


TREE = "\n".join(
    [
        'frame "Untitled 1 - LibreOffice Calc" [focused]',
        '  menu bar "" @(0,0,1280,30)',
        '    menu "Data" @(300,4,50,22)',
        '  dialog "Sort" [modal]',
        '    push button "OK" [disabled] @(600,500,80,30)',
        '    push button "OK" @(700,500,80,30)',
        '  table "Sheet Sheet1" [focused] @(0,100,1280,500) {1048576 rows x 1024 columns, visible A1:Z40}',
        "... truncated (max_nodes)",
    ]
)


def test_find_node_by_role_name_ancestor_and_state() -> None:
    assert len(parse_tree(TREE)) == 7
    assert find_node(TREE, "push button", "OK").box == (600, 500, 80, 30)
    assert find_node(TREE, "push button", "OK", enabled_only=True).box == (700, 500, 80, 30)
    assert find_node(TREE, "menu", "Data", within=("menu bar", "")).center == (325, 15)
    assert find_node(TREE, "menu", "Data", within=("dialog", "Sort")) is None
    assert find_node(TREE, ("menu", "table"), None).role == "menu"
    grid = find_node(TREE, "table", "Sheet Sheet1")
    assert grid.summary.startswith("1048576 rows") and "focused" in grid.states
    assert find_node(TREE, "frame", "Untitled 1 - LibreOffice Calc") is None  # no box: not clickable


def test_focused_nodes_carry_their_ancestors_and_not_found_is_one_error() -> None:
    focused = [(node.role, ancestors) for node, ancestors in focused_with_ancestors(TREE)]
    assert focused == [("frame", ()), ("table", ('frame "Untitled 1 - LibreOffice Calc"',))]
    with pytest.raises(A11yNodeNotFoundError, match=r"no on-screen push button 'Cancel' inside dialog 'Sort'"):
        require_node(TREE, "push button", "Cancel", within=("dialog", "Sort"))
