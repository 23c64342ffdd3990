"""Element ids from the tree text: which lines get one, that they match the boxes, that they are stable,
and that no text makes the parser raise (the names in the tree come from apps and web pages)."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from desktop_gym.actions import ActionSet, Click, ClickElement, Scroll, SelectOption, TypeText, resolve_element_action
from desktop_gym.elements import ElementTable, number_elements
from desktop_gym.errors import ElementError
from desktop_gym.guest.a11y_text import find_node, parse_line, parse_tree

TREE = "\n".join(
    [
        'application "soffice"',
        '  frame "sales.xlsx - LibreOffice Calc" @(0,0,1280,720)',
        '    push button "Save" @(92,46,44,35)',
        '    push button "Undo" [disabled] @(443,46,44,35)',
        '    text "" text="Calibri" [editable] @(4,85,171,34)',
        '    toggle button "Bold" [checked] @(328,85,33,35)',
        '    label "Font" @(1,1,10,10)',
        '    push button "Hidden" @(5,5,0,0)',
        '    table "Sheet1" [focused, editable] @(41,182,1166,479) {1048576x16384 visible A1:P24 cells: A1="x"}',
        '    link "say \\"hi\\" @(1,2,3,4)" @(10,20,30,40)',
        "... truncated (max_nodes)",
    ]
)


def test_actionable_enabled_lines_with_a_box_get_ids_in_tree_order() -> None:
    text, table = number_elements(TREE, observation=3)
    numbered = [line.strip() for line in text.splitlines() if line.strip().startswith("[")]
    assert numbered == [
        '[1] push button "Save" @(92,46,44,35)',
        '[2] text "" text="Calibri" [editable] @(4,85,171,34)',
        '[3] toggle button "Bold" [checked] @(328,85,33,35)',
        '[4] table "Sheet1" [focused, editable] @(41,182,1166,479) {1048576x16384 visible A1:P24 cells: A1="x"}',
        '[5] link "say \\"hi\\" @(1,2,3,4)" @(10,20,30,40)',
    ]
    assert [e.name for e in table] == ["Save", "", "Bold", "Sheet1", 'say "hi" @(1,2,3,4)']
    # The box is the line's own, not a box-like string inside the name.
    assert table.get(5).box == (10, 20, 30, 40)
    assert table.get(2).text == "Calibri" and table.get(2).states == ("editable",)
    assert table.get(3).center == (328 + 16, 85 + 17)
    assert table.get(0) is None and table.get(6) is None
    assert table.observation == 3 and "step 3" in table.describe() and "1-5" in table.describe()


def test_ids_are_the_same_for_the_same_tree_and_the_text_is_otherwise_unchanged() -> None:
    first_text, first = number_elements(TREE)
    second_text, second = number_elements(TREE)
    assert first_text == second_text and first == second
    assert re.sub(r"(?m)^( *)\[\d+\] ", r"\1", first_text) == TREE


def test_the_structured_form_matches_the_text() -> None:
    _, table = number_elements(TREE)
    rows = json.loads(table.to_json())
    assert [row["id"] for row in rows] == [1, 2, 3, 4, 5]
    assert rows[0] == {
        "id": 1,
        "role": "push button",
        "name": "Save",
        "text": "",
        "box": [92, 46, 44, 35],
        "states": [],
    }


def test_an_empty_tree_numbers_nothing() -> None:
    text, table = number_elements("")
    assert text == "" and len(table) == 0 and "has no elements" in table.describe()


def test_element_actions_resolve_to_the_box_centre_and_unknown_ids_name_the_observation() -> None:
    _, table = number_elements(TREE, observation=0)
    assert resolve_element_action(ClickElement(1, "right", 1), table) == Click(114, 63, "right", 1)
    assert resolve_element_action(ActionSet().parse("scroll(element=4, direction='down', amount=2)")[0], table) == (
        Scroll(0, 2, 624, 421)
    )
    assert resolve_element_action(SelectOption(2, "DejaVu Serif"), table) == TypeText(
        "DejaVu Serif", 89, 102, overwrite=True, enter=True
    )
    plain = Click(1, 2)
    assert resolve_element_action(plain, table) is plain
    with pytest.raises(ElementError, match=r"element 9 .*reset observation has elements 1-5"):
        resolve_element_action(ClickElement(9), table)
    with pytest.raises(ElementError, match="no observation has numbered elements"):
        resolve_element_action(ClickElement(1), ElementTable())


@pytest.mark.parametrize(
    "text",
    [
        "click(element=0)",
        "click(element=-3)",
        "click(element=10**9)",
        "select(element=2, option='')",
        "double_click(1.5)",
    ],
)
def test_bad_element_arguments_are_parse_errors(text: str) -> None:
    from desktop_gym.errors import ActionParseError

    with pytest.raises(ActionParseError):
        ActionSet().parse(text)


_LINE_PARTS = st.sampled_from(
    [
        "push button",
        "menu item",
        "text",
        "table cell",
        "link",
        "label",
        "frame",
        ' "',
        '"',
        "\\",
        "[disabled]",
        "@(",
        ")",
    ]
)


@settings(max_examples=400)
@given(st.lists(st.one_of(st.text(max_size=60), _LINE_PARTS), max_size=12).map(" ".join))
def test_no_line_makes_the_parser_raise(line: str) -> None:
    parse_line(line)
    text, table = number_elements(line + "\n" + line)
    assert len(text.splitlines()) == len((line + "\n" + line).splitlines())
    assert all(e.box[2] > 0 and e.box[3] > 0 for e in table)


@settings(max_examples=200)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["push button", "link", "entry", "label", "panel"]),
            st.text(max_size=20),
            st.booleans(),
            st.tuples(*(st.integers(0, 2000) for _ in range(2)), *(st.integers(0, 300) for _ in range(2))),
        ),
        max_size=20,
    )
)
def test_every_numbered_line_keeps_its_own_box(nodes: list[tuple[str, str, bool, tuple[int, int, int, int]]]) -> None:
    lines = []
    for role, name, disabled, box in nodes:
        flag = " [disabled]" if disabled else ""
        lines.append(f"  {role} {json.dumps(name, ensure_ascii=False)}{flag} @({box[0]},{box[1]},{box[2]},{box[3]})")
    text, table = number_elements("\n".join(lines))
    expected = [
        (role, name, box)
        for role, name, disabled, box in nodes
        if role in ("push button", "link", "entry") and not disabled and box[2] > 0 and box[3] > 0
    ]
    assert [(e.role, e.name, e.box) for e in table] == expected
    assert [e.id for e in table] == list(range(1, len(expected) + 1))
    for element in table:
        assert f"[{element.id}] {element.role} " in text


def test_the_tree_reader_of_gui_oracles_reads_numbered_lines_as_the_plain_ones() -> None:
    numbered, _ = number_elements(TREE)
    plain_nodes, numbered_nodes = parse_tree(TREE), parse_tree(numbered)
    assert len(plain_nodes) == len(numbered_nodes) == 10
    for plain, marked in zip(plain_nodes, numbered_nodes, strict=True):
        assert (plain.role, plain.name, plain.text, plain.box, plain.states, plain.depth) == (
            marked.role,
            marked.name,
            marked.text,
            marked.box,
            marked.states,
            marked.depth,
        )
    assert [node.element for node in numbered_nodes if node.element] == [1, 2, 3, 4, 5]
    assert find_node(numbered, "toggle button", "Bold").element == 3
