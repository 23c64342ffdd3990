"""Verifiers for plain files and folders."""

from __future__ import annotations

from .result import VerifierResult


def verify_text_file(data: bytes | None, expected: str, strip: bool = True) -> VerifierResult:
    """Check that a text file exists and its content equals ``expected``.

    Args:
        data: the file's bytes, or None when it does not exist.
        expected: the expected content.
        strip: ignore leading/trailing whitespace (e.g. the newline ``echo`` adds).
    """
    if data is None:
        return VerifierResult.failed("the file does not exist")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        return VerifierResult.failed(f"the file is not UTF-8 text: {error}")
    found, wanted = (text.strip(), expected.strip()) if strip else (text, expected)
    if found == wanted:
        return VerifierResult.passed("the file has the expected content")
    return VerifierResult.failed(
        f"the file's content differs: expected {wanted[:200]!r}, found {found[:200]!r}",
        expected=wanted[:2000],
        found=found[:2000],
    )
