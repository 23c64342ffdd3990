"""The verifier registry, composition, and robustness of every registered verifier to bad files."""

from __future__ import annotations

from typing import Any

import pytest

from desktop_gym.verifiers import (
    UnknownVerifierError,
    VerifierResult,
    all_of,
    any_of,
    get_verifier,
    get_verifier_spec,
    list_verifiers,
    not_,
    register_verifier,
    verify_xlsx_cells,
)

# Minimal keyword arguments for every file verifier, used to feed each one broken files.
FILE_VERIFIER_KWARGS: dict[str, dict[str, Any]] = {
    "xlsx_cells": {"expected": {"A1": 1}},
    "xlsx_formulas": {"expected": {"A1": None}},
    "xlsx_number_formats": {"expected": {"A1": "0.00"}},
    "xlsx_font": {"cells": "A1", "bold": True},
    "xlsx_column_widths": {"expected": {"A": 10}},
    "xlsx_sheet_names": {"expected": ["Sheet1"]},
    "xlsx_sorted": {"column": "A"},
    "xlsx_state": {"expected": {"sheets": ["Sheet1"]}},
    "docx_state": {"expected": {"paragraphs": []}},
    "pptx_state": {"expected": {"slides": []}},
    "xlsx_autofilter": {},
    "xlsx_freeze_panes": {"cell": "B2"},
    "xlsx_conditional_formatting": {},
    "xlsx_charts": {},
    "xlsx_pivot_tables": {},
    "sheet_table": {"expected_rows": [[1]]},
    "csv_rows": {"expected_rows": [["a"]]},
    "docx_paragraph": {"text": "x"},
    "document_text": {"text": "x"},
    "docx_paragraph_count": {"count": 1},
    "docx_font": {"text": "x", "bold": True},
    "docx_paragraph_style": {"text": "x", "heading": 1},
    "docx_alignment": {"text": "x", "alignment": "center"},
    "docx_line_spacing": {"text": "x", "multiple": 1.5},
    "docx_tables": {},
    "docx_page_setup": {"orientation": "portrait"},
    "docx_header_footer": {"text": "x"},
    "docx_list": {"items": ["x"], "kind": "bullet"},
    "docx_page_number": {},
    "document_format": {"file_format": "odt"},
    "pdf_document": {},
    "pptx_slide_count": {"count": 1},
    "pptx_text": {"text": "x"},
    "pptx_title": {"slide": 1, "title": "x"},
    "pptx_layout": {"slide": 1, "layout": "Title Slide"},
    "pptx_background": {"color": "FF0000"},
    "pptx_notes": {"slide": 1, "text": "x"},
    "pptx_transitions": {},
    "pptx_shapes": {"slide": 1},
    "pptx_slide_titles": {"titles": ["x"]},
    "pptx_slide_texts": {"slides": [["x"]]},
    "pptx_autoshape": {"slide": 1, "geometry": "rect"},
    "pptx_title_font_size": {"slide": 1, "size": 24},
    "odp_slide_titles": {"titles": ["x"]},
    "pdf_pages": {"count": 1},
    "text_file": {"expected": "x"},
    "file_exists": {},
    "file_absent": {},
    "file_contains": {"text": "x"},
    "file_regex": {"pattern": "x"},
    "file_sha256": {"sha256": "00"},
    "tar_archive": {"expected": ["x"]},
    "xlsx_conditional_rule": {"cell_range": "A1:A3", "operator": "greater", "value": 1},
    "xlsx_fill": {"cells": "A1", "color": "FF0000"},
    "xlsx_merged_cells": {"cell_range": "A1:B1"},
    "docx_formatted_text": {"prop": "highlight", "expected": ["x"]},
    "docx_run_fonts": {"name": "Arial"},
    "docx_page_breaks": {},
    "docx_paragraph_alignment": {"alignment": "center"},
    "docx_equations": {},
    "pptx_orientation": {"orientation": "portrait"},
    "pptx_media": {},
    "pptx_slide_number_color": {"color": "red"},
    "pptx_picture_fills_slide": {},
    "archive_members": {"expected": {"a.txt": None}},
    "pdf_text": {"pages": ["x"]},
    "image_similar": {"width": 1, "height": 1, "thumbnail": [0] * 768},
    "image_properties": {"format": "png"},
    "image_close_to": {"width": 1, "height": 1, "grid": [0, 0, 0], "cells": 1},
    "image_grayscale": {},
    "image_color_count": {"max_colors": 2},
    "image_brightness": {"low": 0, "high": 255},
    "image_region_ink": {"box": [0, 0, 1, 1], "color": [0, 0, 0]},
    "vscode_settings": {"expected": {"editor.tabSize": 2}},
    "vscode_keybinding": {"key": "ctrl+alt+f", "command": "editor.action.formatDocument"},
    "vscode_extensions": {"installed": {"acme.tool": ""}},
    "vlc_preferences": {"expected": {"qt-max-volume": 200}},
    "vlc_snapshot": {"width": 1, "height": 1, "color": [0, 0, 0]},
    "mail_prefs": {"user_js": None, "expected": {"mail.spellcheck.inline": False}},
    "mail_filter": {"field": "subject", "operator": "contains", "value": "x", "action": "Delete"},
    "mail_contact": {"name": "Ana Lima", "email": "ana@example.com"},
}

BROKEN_FILES = {
    "garbage": b"\x00\x01 definitely not a document \xff",
    "empty": b"",
    "truncated zip": b"PK\x03\x04" + b"\x00" * 40,
}


def test_every_file_verifier_is_covered_by_the_robustness_table() -> None:
    assert sorted(FILE_VERIFIER_KWARGS) == list_verifiers("file")


@pytest.mark.parametrize("name", sorted(FILE_VERIFIER_KWARGS))
def test_missing_file_fails_without_raising(name: str) -> None:
    result = get_verifier(name)(None, **FILE_VERIFIER_KWARGS[name])
    assert isinstance(result, VerifierResult)
    if name == "file_absent":
        assert result.success
    else:
        assert not result.success
        assert "does not exist" in result.reason


@pytest.mark.parametrize("broken", sorted(BROKEN_FILES))
@pytest.mark.parametrize("name", sorted(FILE_VERIFIER_KWARGS))
def test_malformed_file_fails_without_raising(name: str, broken: str) -> None:
    result = get_verifier(name)(BROKEN_FILES[broken], **FILE_VERIFIER_KWARGS[name])
    assert isinstance(result, VerifierResult)
    if name not in (
        "file_exists",
        "file_absent",
        "file_regex",
        "file_contains",
        "text_file",
        "csv_rows",
        "file_sha256",
        "vlc_preferences",  # a text file: garbage sets no key, so VLC's defaults stand (and fail the check)
        "mail_prefs",  # text files: garbage sets no preference, so the check fails
        "mail_filter",  # a text file: garbage holds no filter, so the check fails
    ):
        assert not result.success
        assert "not a readable" in result.reason or "not UTF-8" in result.reason


def test_get_verifier_returns_the_registered_function_with_its_declared_reads() -> None:
    assert get_verifier("xlsx_cells") is verify_xlsx_cells
    assert verify_xlsx_cells.reads == "file"  # type: ignore[attr-defined]
    assert get_verifier_spec("command_output").reads == "live"
    assert "directory_tree" in list_verifiers("live")


def test_unknown_verifier_names_the_known_ones() -> None:
    with pytest.raises(UnknownVerifierError, match="no verifier named 'xlsx_cell'.*xlsx_cells"):
        get_verifier("xlsx_cell")


def test_registering_twice_or_with_a_bad_reads_is_an_error() -> None:
    with pytest.raises(ValueError, match="already registered"):
        register_verifier("xlsx_cells")(lambda data: VerifierResult.passed("ok"))
    with pytest.raises(ValueError, match="reads must be"):
        register_verifier("test_bad_reads", reads="screen")  # type: ignore[arg-type]


OK = VerifierResult.passed("fine")
BAD = VerifierResult.failed("cell B2 differs", score=0.5)


def test_all_of_names_the_failed_check_and_averages_scores() -> None:
    result = all_of({"totals": OK, "chart": BAD})
    assert not result.success
    assert result.reason == "chart failed: cell B2 differs"
    assert result.score == pytest.approx(0.75)
    assert result.details["failed_checks"] == ["chart"]
    assert all_of([OK, OK]).success and all_of([OK, OK]).score == 1.0
    assert all_of([OK, BAD]).reason.startswith("check 2 failed")


def test_any_of_passes_on_one_and_lists_all_reasons_otherwise() -> None:
    assert any_of([BAD, OK]).reason == "check 2 passed: fine"
    result = any_of({"a": BAD, "b": VerifierResult.failed("no chart")})
    assert not result.success and result.score == 0.5
    assert "a: cell B2 differs" in result.reason and "b: no chart" in result.reason


def test_not_inverts_and_quotes_the_negated_reason() -> None:
    assert not_(BAD).success
    negated = not_(OK, name="draft file exists")
    assert not negated.success and negated.reason == "draft file exists passed but must not: fine"


def test_composition_rejects_non_results() -> None:
    with pytest.raises(TypeError, match="check 1 is a bool"):
        all_of([True])  # type: ignore[list-item]


def test_every_verifier_module_is_imported_by_the_package() -> None:
    import pathlib

    import desktop_gym.verifiers as package

    folder = pathlib.Path(package.__file__).parent
    registering = {
        path.stem for path in folder.glob("*.py") if "@register_verifier(" in path.read_text(encoding="utf-8")
    }
    init = (folder / "__init__.py").read_text(encoding="utf-8")
    assert registering and all(f"from .{module} import" in init for module in registering)
    assert not [path.name for path in folder.glob("*_extra.py")]


def test_check_failed_raised_inside_a_verifier_becomes_a_failed_result() -> None:
    from desktop_gym.verifiers import CheckFailed

    @register_verifier("test_check_failed_guard", reads="live")
    def needs_a_slide(data: bytes | None) -> VerifierResult:
        raise CheckFailed("slide 3 does not exist", score=0.25, slides=2)

    result = needs_a_slide(b"")
    assert not result.success and result.score == 0.25
    assert result.reason == "slide 3 does not exist"
    assert result.details == {"slides": 2, "verifier": "test_check_failed_guard"}
