"""File, folder, CSV and command-output verifiers."""

from __future__ import annotations

import hashlib
import subprocess
from pathlib import Path

import pytest

from desktop_gym.guest import ExecResult
from desktop_gym.verifiers import files as file_checks
from desktop_gym.verifiers import verify_csv_rows


def test_text_file_equals() -> None:
    assert file_checks.verify_text_file(b"amber-1234\n", "amber-1234").success
    result = file_checks.verify_text_file(b"amber-1235\n", "amber-1234")
    assert "expected 'amber-1234', found 'amber-1235'" in result.reason
    assert "not UTF-8" in file_checks.verify_text_file(b"\xff\xfe\xfa", "x").reason


def test_exists_and_absent() -> None:
    assert file_checks.verify_file_exists(b"").success
    assert "exists but is empty" in file_checks.verify_file_exists(b"", non_empty=True).reason
    assert "does not exist" in file_checks.verify_file_exists(None).reason
    assert file_checks.verify_file_absent(None).success
    assert "still exists (3 bytes)" in file_checks.verify_file_absent(b"abc").reason


def test_contains_regex_and_sha256() -> None:
    text = b"name: amber\ncount: 42\n"
    assert file_checks.verify_file_contains(text, "count: 42").success
    assert file_checks.verify_file_contains(text, "NAME", ignore_case=True).success
    assert "does not contain 'count: 43'" in file_checks.verify_file_contains(text, "count: 43").reason
    assert file_checks.verify_file_regex(text, r"^count: \d+$").success
    assert file_checks.verify_file_regex(text, r"name: \w+\ncount: \d+", full_match=True).success
    assert "does not fully match" in file_checks.verify_file_regex(text, r"count: \d+", full_match=True).reason
    digest = hashlib.sha256(text).hexdigest()
    assert file_checks.verify_file_sha256(text, digest.upper()).success
    assert "sha256 differs" in file_checks.verify_file_sha256(text + b"!", digest).reason


def test_directory_tree_from_a_real_listing(tmp_path: Path) -> None:
    (tmp_path / "reports" / "2024").mkdir(parents=True)
    (tmp_path / "reports" / "2024" / "q1.txt").write_text("x")
    (tmp_path / "notes.md").write_text("x")
    completed = subprocess.run(
        file_checks.TREE_LISTING_COMMAND.format(path=tmp_path), shell=True, capture_output=True, text=True, check=True
    )
    listing = ExecResult(returncode=0, stdout=completed.stdout, stderr="", timed_out=False)
    assert file_checks.verify_directory_tree(listing, ["reports/2024/q1.txt", "./notes.md"]).success
    missing = file_checks.verify_directory_tree(listing, ["reports/2024/q1.txt", "notes.md", "reports/q2.txt"])
    assert "missing ['reports/q2.txt']" in missing.reason
    extra = file_checks.verify_directory_tree(completed.stdout, ["notes.md"])
    assert "unexpected ['reports', 'reports/2024', 'reports/2024/q1.txt']" in extra.reason
    assert file_checks.verify_directory_tree(completed.stdout.encode(), ["notes.md"], allow_extra=True).success
    failed = ExecResult(returncode=1, stdout="", stderr="find: no such folder", timed_out=False)
    assert "listing the folder failed (exit 1)" in file_checks.verify_directory_tree(failed, []).reason
    assert "does not exist" in file_checks.verify_directory_tree(None, []).reason


def test_csv_rows_with_header_and_options() -> None:
    data = b"Name;Qty\r\nTea;3\r\nrice;2.50\r\n\r\n"
    assert verify_csv_rows(data, [["Tea", 3], ["rice", 2.5]], header=["Name", "Qty"], delimiter=";").success
    assert verify_csv_rows(data, [["Tea", 3], ["rice", 2.5]], header=["Name", "Qty"], delimiter=None).success
    assert not verify_csv_rows(data, [["Tea", 3], ["rice", 2.5]], header=["Name", "Qty"]).success
    assert verify_csv_rows(
        data, [["Rice", 2.5], ["tea", 3]], skip_header=True, ignore_case=True, ignore_row_order=True, delimiter=";"
    ).success
    assert (
        "the CSV header differs: expected ['Item', 'Qty']"
        in verify_csv_rows(data, [], header=["Item", "Qty"], delimiter=";").reason
    )
    result = verify_csv_rows(data, [["Tea", 4], ["rice", 2.5]], skip_header=True, delimiter=";")
    assert not result.success and "row 1 column 2 differs: expected 4, found '3'" in result.reason
    assert result.score == pytest.approx(0.75)
    with_bom = "\ufeffa,b\n1,2\n".encode()
    assert verify_csv_rows(with_bom, [["a", "b"], [1, 2]]).success


def test_command_output() -> None:
    ok = ExecResult(returncode=0, stdout="3 files\nall good\n", stderr="", timed_out=False)
    assert file_checks.verify_command_output(ok, contains="all good", regex=r"^\d+ files$").success
    assert file_checks.verify_command_output(ok, equals="3 files\nall good").success
    assert "stdout differs" in file_checks.verify_command_output(ok, equals="3 files").reason
    assert "does not match" in file_checks.verify_command_output(ok, regex=r"^\d+ dirs$").reason
    assert "does not contain 'error'" in file_checks.verify_command_output(ok, contains="error").reason
    failed = ExecResult(returncode=2, stdout="", stderr="boom", timed_out=False)
    result = file_checks.verify_command_output(failed)
    assert "returncode expected 0, found 2" in result.reason and result.details["stderr"] == "boom"
    assert file_checks.verify_command_output(failed, returncode=2).success
    assert "did not run" in file_checks.verify_command_output(None).reason


def test_a_missing_file_reads_as_plain_english() -> None:
    # Was "the file file does not exist (was it saved?)".
    reason = file_checks.verify_text_file(None, "x").reason
    assert "the file does not exist" in reason and "file file" not in reason
    assert "the file does not exist" in file_checks.verify_file_sha256(None, "0" * 64).reason
