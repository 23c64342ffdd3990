"""The whole-document state verifiers mined tasks use (``xlsx_state``, ``docx_state``, ``pptx_state``):
equal states pass, and any change, wanted or not, fails naming where."""

from __future__ import annotations

import io

import openpyxl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from openpyxl.styles import Font, PatternFill

from desktop_gym.tasks.artifacts import docx_bytes, pptx_bytes, xlsx_bytes
from desktop_gym.verifiers import (
    document_state,
    presentation_state,
    verify_docx_state,
    verify_pptx_state,
    verify_xlsx_state,
    workbook_state,
)

ROWS = [["Item", "Units"], ["Amber", 4], ["Birch", 7.5]]


def _book(edit=None) -> bytes:
    book = openpyxl.load_workbook(io.BytesIO(xlsx_bytes(ROWS, sheet_title="Stock")))
    if edit is not None:
        edit(book)
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()


def test_a_workbook_state_reads_cells_formulas_marks_and_sheets() -> None:
    def edit(book: openpyxl.Workbook) -> None:
        sheet = book["Stock"]
        sheet["B4"] = "=SUM( B2:B3 )"
        sheet["A1"].font = Font(bold=True)
        sheet["A2"].fill = PatternFill("solid", fgColor="FFFF00")
        sheet["B2"].number_format = "0.00"
        book.create_sheet("Notes")

    state = workbook_state(_book(edit))
    assert state["sheets"] == ["Stock", "Notes"]
    assert state["cells"]["Stock"] == {
        "A1": "Item",
        "B1": "Units",
        "A2": "Amber",
        "B2": 4,
        "A3": "Birch",
        "B3": 7.5,
        "B4": "=SUM(B2:B3)",
    }
    assert state["bold"]["Stock"] == ["A1"] and state["fill"]["Stock"] == {"A2": "FFFF00"}
    assert state["number_format"]["Stock"] == {"B2": "0.00"} and state["cells"]["Notes"] == {}


@pytest.mark.parametrize(
    ("edit", "named"),
    [
        (lambda b: b["Stock"].__setitem__("B2", 5), "Stock!B2 cells"),
        (lambda b: b["Stock"].__setitem__("D9", "extra"), "Stock!D9 cells"),  # something else changed
        (lambda b: setattr(b["Stock"]["A3"], "font", Font(bold=True)), "Stock bold"),
        (lambda b: setattr(b["Stock"], "title", "Stuff"), "sheets are ['Stuff']"),
    ],
)
def test_xlsx_state_fails_on_any_difference_and_names_it(edit, named: str) -> None:
    expected = workbook_state(_book())
    assert verify_xlsx_state(_book(), expected).success
    verdict = verify_xlsx_state(_book(edit), expected)
    assert not verdict.success and named in verdict.reason


def test_state_verifiers_fail_cleanly_on_missing_and_broken_files() -> None:
    for verify in (verify_xlsx_state, verify_docx_state, verify_pptx_state):
        assert not verify(None, {}).success
        assert not verify(b"not a zip", {}).success


def test_docx_state_reads_styles_alignment_and_marked_stretches() -> None:
    data = docx_bytes(["The amber fox ran.", "A birch stood."], heading="Notes")
    state = document_state(data)
    assert [p["text"] for p in state["paragraphs"]] == ["Notes", "The amber fox ran.", "A birch stood."]
    assert state["paragraphs"][0]["style"] == "Heading 1" and state["paragraphs"][1]["align"] == "left"
    assert verify_docx_state(data, state).success
    import docx

    document = docx.Document(io.BytesIO(data))
    document.paragraphs[2].runs[0].bold = True
    buffer = io.BytesIO()
    document.save(buffer)
    verdict = verify_docx_state(buffer.getvalue(), state)
    assert not verdict.success and "paragraph 2 bold" in verdict.reason
    assert document_state(buffer.getvalue())["paragraphs"][2]["bold"] == ["A birch stood."]


def test_pptx_state_reads_titles_texts_and_notes_and_ignores_empty_placeholders() -> None:
    data = pptx_bytes(
        [
            {"title": "Review", "layout": "Title Slide"},
            {"title": "Plan", "layout": "Title and Content", "body": ["One", "Two"], "notes": "Say hi."},
            {"title": "Empty", "layout": "Title and Content"},
        ]
    )
    state = presentation_state(data)
    assert state["slides"] == [
        {"title": "Review", "texts": [], "notes": ""},
        {"title": "Plan", "texts": ["One\nTwo"], "notes": "Say hi."},
        {"title": "Empty", "texts": [], "notes": ""},
    ]
    assert verify_pptx_state(data, state).success
    moved = pptx_bytes(
        [{"title": "Review", "layout": "Title Slide"}, {"title": "Empty"}, {"title": "Plan", "body": ["One", "Two"]}]
    )
    verdict = verify_pptx_state(moved, state)
    assert not verdict.success and "slide 2 title" in verdict.reason


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.lists(
            st.one_of(st.integers(-(10**6), 10**6), st.text("abcXYZ ", min_size=1, max_size=8)), min_size=1, max_size=4
        ),
        min_size=1,
        max_size=6,
    )
)
def test_any_written_table_reads_back_as_its_own_state(rows: list[list[object]]) -> None:
    data = xlsx_bytes(rows, sheet_title="S")
    state = workbook_state(data)
    assert verify_xlsx_state(data, state).success
    filled = {ref for ref, value in state["cells"]["S"].items()}
    assert len(filled) == sum(1 for row in rows for v in row if v not in (None, ""))
