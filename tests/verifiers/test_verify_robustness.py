"""The robustness suite: every registered file verifier fed hostile files fails with a reason, fast.

Missing, empty, garbage, truncated, corrupt, password-protected, huge, zip bombs, XML entity
expansion and deeply nested XML, each built from a real xlsx, docx and pptx; and every document
handed to every verifier of another format. Time per call is bounded here and measured (with
memory) by ``bench/bench_verifier_robustness.py``.
"""

from __future__ import annotations

import time

import pytest

from desktop_gym.tasks.artifacts import docx_bytes, pptx_bytes, xlsx_bytes
from desktop_gym.verifiers import VerifierResult, get_verifier, list_verifiers
from desktop_gym.verifiers._limits import check_package
from desktop_gym.verifiers.hostile_files import BILLION_LAUGHS, hostile_variants, replace_part

from .test_verify_registry import FILE_VERIFIER_KWARGS

# Verifiers whose check is about the bytes or the file's existence, not about a parsed document.
BYTE_LEVEL = {"file_exists", "file_absent", "file_regex", "file_contains", "text_file", "csv_rows", "file_sha256"}
SECONDS_PER_CALL = 5.0  # generous for a shared 2-core machine; the bench shows typical times in ms

TEMPLATES = {
    "xlsx": lambda: xlsx_bytes([["Item", "Qty"], ["Tea", 3]]),
    "docx": lambda: docx_bytes(["x", "Some text"], heading="x"),
    "pptx": lambda: pptx_bytes([{"title": "x", "body": "x"}]),
}
VARIANTS = sorted(hostile_variants(TEMPLATES["xlsx"]()))
FORMAT_OF = {"xlsx": "xlsx", "sheet": "xlsx", "docx": "docx", "document": "docx", "pptx": "pptx", "odp": "pptx"}


@pytest.fixture(scope="module")
def hostile() -> dict[tuple[str, str], bytes | None]:
    """(template kind, variant name) -> the hostile bytes."""
    return {
        (kind, name): make()
        for kind, template in TEMPLATES.items()
        for name, make in hostile_variants(template()).items()
    }


def _call(name: str, data: bytes | None) -> tuple[VerifierResult, float]:
    started = time.perf_counter()
    result = get_verifier(name)(data, **FILE_VERIFIER_KWARGS[name])
    return result, time.perf_counter() - started


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("kind", sorted(TEMPLATES))
def test_every_file_verifier_fails_hostile_files_with_a_reason(
    hostile: dict[tuple[str, str], bytes | None], kind: str, variant: str
) -> None:
    data = hostile[(kind, variant)]
    for name in list_verifiers("file"):
        result, seconds = _call(name, data)
        assert isinstance(result, VerifierResult), name
        assert result.reason, name
        assert seconds < SECONDS_PER_CALL, f"{name} took {seconds:.1f}s on a {variant} {kind}"
        if name not in BYTE_LEVEL | {"file_absent"}:
            assert not result.success, f"{name} passed a {variant} {kind}: {result.reason}"


@pytest.mark.parametrize("kind", sorted(TEMPLATES))
def test_a_document_of_another_format_fails_every_verifier_of_a_format(kind: str) -> None:
    data = TEMPLATES[kind]()
    for name in list_verifiers("file"):
        own = FORMAT_OF.get(name.split("_", 1)[0])
        if own is None or own == kind:
            continue
        result, _ = _call(name, data)
        assert not result.success, f"{name} passed a {kind}: {result.reason}"


def test_the_bounds_name_what_they_rejected(hostile: dict[tuple[str, str], bytes | None]) -> None:
    reasons = {
        variant: get_verifier("xlsx_cells")(hostile[("xlsx", variant)], expected={"A1": 1}).reason
        for variant in VARIANTS
    }
    assert "does not exist" in reasons["missing"]
    assert "password-protected" in reasons["password-protected"]
    assert "password-protected" in reasons["password-protected odf"]
    assert "MiB" in reasons["huge"] and "over" in reasons["huge"]
    assert "zip bomb" in reasons["zip bomb"]
    assert "DTD" in reasons["entity expansion"]
    assert "deeper than" in reasons["deep xml"]
    for variant in ("empty", "garbage", "truncated", "corrupt"):
        assert "not a readable" in reasons[variant] or "not readable" in reasons[variant], variant


def test_an_entity_bomb_in_any_part_is_refused_before_parsing() -> None:
    template = TEMPLATES["docx"]()
    with pytest.raises(Exception, match="DTD"):
        check_package(replace_part(template, "docProps/core.xml", BILLION_LAUGHS), "docx document")
    check_package(template, "docx document")  # a real document passes the bounds
