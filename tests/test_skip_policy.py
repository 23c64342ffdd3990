"""The skip allowlist: parsed strictly, and every skip not on it is reported."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from .support.skip_policy import AllowedSkip, read_allowlist, unexpected_skips

REPO_ALLOWLIST = Path(__file__).resolve().parent / "skip_allowlist.txt"


def test_repository_allowlist_parses_and_stays_short() -> None:
    entries = read_allowlist(REPO_ALLOWLIST)
    assert 1 <= len(entries) <= 5
    assert all(entry.why for entry in entries)


def test_only_skips_off_the_list_are_reported() -> None:
    allowlist = [AllowedSkip("tests/backends/test_qemu_backend.py::*", "not built", "needs KVM")]
    skipped = [
        ("tests/backends/test_qemu_backend.py::test_desktop", "the desktop guest is not built: ..."),
        ("tests/guest/test_a11y.py::test_tree", "needs xdotool"),
        ("tests/backends/test_qemu_backend.py::test_boot", "qemu is not installed"),
    ]
    assert unexpected_skips(skipped, allowlist) == skipped[1:]


def test_a_malformed_line_is_named(tmp_path: Path) -> None:
    path = tmp_path / "allow.txt"
    path.write_text("# fine\n\ntests/x.py::* | reason | why\ntests/y.py::* | no why\n")
    with pytest.raises(ValueError, match=r"allow.txt:4: expected"):
        read_allowlist(path)


field = st.text(alphabet=st.characters(blacklist_characters="|\n\r#", blacklist_categories=("Cs",)), min_size=1).filter(
    lambda s: s.strip() == s and s.strip()
)


@given(st.lists(st.tuples(field, field, field), max_size=10))
def test_written_lines_read_back(entries: list[tuple[str, str, str]]) -> None:
    text = "".join(f"{a} | {b} | {c}\n" for a, b, c in entries)
    path = Path(f"/tmp/skip-allowlist-{abs(hash(text))}.txt")
    try:
        path.write_text(text)
        assert [(e.node_glob, e.reason_part, e.why) for e in read_allowlist(path)] == entries
    finally:
        path.unlink(missing_ok=True)
