"""Verifiers for plain files, folders and command output."""

from __future__ import annotations

import hashlib
import posixpath
import re
from collections.abc import Iterable
from typing import Protocol

from ._load import DocumentError, require
from .registry import register_verifier
from .result import VerifierResult

# Lists a folder's contents as relative paths, one a line, for ``verify_directory_tree``.
TREE_LISTING_COMMAND = "find {path} -mindepth 1 -printf '%P\\n'"


class CommandOutput(Protocol):
    """What command verifiers read: ``desktop_gym.guest.ExecResult`` or anything shaped like it."""

    returncode: int
    stdout: str


def _text(data: bytes | None) -> str:
    data = require(data, "file")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise DocumentError(f"the file is not UTF-8 text: {error}", "unreadable") from error


@register_verifier("text_file", reads="file")
def verify_text_file(data: bytes | None, expected: str, strip: bool = True) -> VerifierResult:
    """Check that a text file exists and its content equals ``expected``.

    Args:
        data: the file's bytes, or None when it does not exist.
        expected: the expected content.
        strip: ignore leading/trailing whitespace (e.g. the newline ``echo`` adds).
    """
    text = _text(data)
    found, wanted = (text.strip(), expected.strip()) if strip else (text, expected)
    if found == wanted:
        return VerifierResult.passed("the file has the expected content")
    return VerifierResult.failed(
        f"the file's content differs: expected {wanted[:200]!r}, found {found[:200]!r}",
        expected=wanted[:2000],
        found=found[:2000],
    )


@register_verifier("file_exists", reads="file")
def verify_file_exists(data: bytes | None, non_empty: bool = False) -> VerifierResult:
    """Check that a file exists (and, with ``non_empty``, has content).

    Args:
        data: the file's bytes, or None when it does not exist.
        non_empty: also require at least one byte.
    """
    if data is None:
        return VerifierResult.failed("the file does not exist")
    if non_empty and not data:
        return VerifierResult.failed("the file exists but is empty", size=0)
    return VerifierResult.passed(f"the file exists ({len(data)} bytes)", size=len(data))


@register_verifier("file_absent", reads="file")
def verify_file_absent(data: bytes | None) -> VerifierResult:
    """Check that a file does not exist (e.g. it was deleted or moved away).

    Args:
        data: the file's bytes, or None when it does not exist.
    """
    if data is None:
        return VerifierResult.passed("the file does not exist, as required")
    return VerifierResult.failed(f"the file still exists ({len(data)} bytes)", size=len(data))


@register_verifier("file_contains", reads="file")
def verify_file_contains(data: bytes | None, text: str, ignore_case: bool = False) -> VerifierResult:
    """Check that a text file contains ``text``.

    Args:
        data: the file's bytes, or None when it does not exist.
        text: the text to find.
        ignore_case: compare case-insensitively.
    """
    found = _text(data)
    if (text.casefold() in found.casefold()) if ignore_case else (text in found):
        return VerifierResult.passed(f"the file contains {text[:80]!r}")
    return VerifierResult.failed(f"the file does not contain {text[:80]!r}", excerpt=found[:500])


@register_verifier("file_regex", reads="file")
def verify_file_regex(data: bytes | None, pattern: str, full_match: bool = False) -> VerifierResult:
    """Check that a text file matches a regular expression (multiline: ``^``/``$`` match at lines).

    Args:
        data: the file's bytes, or None when it does not exist.
        pattern: a Python regular expression.
        full_match: the whole content (surrounding whitespace stripped) must match.
    """
    found = _text(data)
    regex = re.compile(pattern, re.MULTILINE)
    match = regex.fullmatch(found.strip()) if full_match else regex.search(found)
    if match:
        return VerifierResult.passed(f"the file matches /{pattern}/", match=match.group(0)[:200])
    return VerifierResult.failed(
        f"the file does not {'fully ' if full_match else ''}match /{pattern}/", excerpt=found[:500]
    )


@register_verifier("file_sha256", reads="file")
def verify_file_sha256(data: bytes | None, sha256: str) -> VerifierResult:
    """Check a file's SHA-256 digest (e.g. a file copied unchanged).

    Args:
        data: the file's bytes, or None when it does not exist.
        sha256: the expected hex digest, case-insensitive.
    """
    found = hashlib.sha256(require(data, "file")).hexdigest()
    if found == sha256.strip().lower():
        return VerifierResult.passed("the file's sha256 matches")
    return VerifierResult.failed(
        f"the file's sha256 differs: expected {sha256[:16]}..., found {found[:16]}...", expected=sha256, found=found
    )


def _normalize_paths(paths: Iterable[str]) -> set[str]:
    normalized: set[str] = set()
    for raw in paths:
        path = raw.strip().replace("\\", "/")
        if not path or path in (".", "./"):
            continue
        path = posixpath.normpath(path.removeprefix("./")).strip("/")
        # A file implies its folders, so listings with or without folder lines compare equal.
        parts = path.split("/")
        normalized.update("/".join(parts[: i + 1]) for i in range(len(parts)))
    return normalized


@register_verifier("directory_tree", reads="live")
def verify_directory_tree(
    listing: CommandOutput | str | bytes | Iterable[str] | None,
    expected: Iterable[str],
    allow_extra: bool = False,
) -> VerifierResult:
    """Check that a folder holds exactly the expected relative paths.

    The listing is what ``TREE_LISTING_COMMAND`` prints in the guest (an ``ExecResult``, its
    stdout, or a list of paths). Folders implied by a file path need not be listed.

    Args:
        listing: the folder's relative paths; None when the folder does not exist.
        expected: the relative paths that must exist (``"reports/q1.txt"``).
        allow_extra: other paths may exist too.
    """
    if listing is None:
        return VerifierResult.failed("the folder does not exist")
    if hasattr(listing, "stdout"):
        if getattr(listing, "returncode", 0) != 0:
            return VerifierResult.failed(
                f"listing the folder failed (exit {listing.returncode}): {getattr(listing, 'stderr', '')[:200]}"
            )
        listing = listing.stdout
    if isinstance(listing, bytes):
        listing = listing.decode("utf-8", "replace")
    found = _normalize_paths(listing.splitlines() if isinstance(listing, str) else listing)
    wanted = _normalize_paths(expected)
    missing, extra = sorted(wanted - found), sorted(found - wanted)
    if missing or (extra and not allow_extra):
        problems = []
        if missing:
            problems.append(f"missing {missing[:10]}")
        if extra and not allow_extra:
            problems.append(f"unexpected {extra[:10]}")
        return VerifierResult.failed(
            f"the folder's tree differs: {'; '.join(problems)}",
            score=len(wanted & found) / len(wanted | found) if wanted | found else 0.0,
            missing=missing,
            unexpected=extra,
        )
    return VerifierResult.passed(f"the folder holds the {len(wanted)} expected paths", found=sorted(found))


@register_verifier("command_output", reads="live")
def verify_command_output(
    result: CommandOutput | None,
    equals: str | None = None,
    contains: str | None = None,
    regex: str | None = None,
    returncode: int | None = 0,
    strip: bool = True,
) -> VerifierResult:
    """Check a command's exit status and standard output.

    Args:
        result: what the guest returned for the command (``ExecResult``); None when it did not run.
        equals: stdout must equal this.
        contains: stdout must contain this.
        regex: stdout must match this regular expression (``re.search``, multiline).
        returncode: the required exit status; not checked when None.
        strip: ignore surrounding whitespace for ``equals``.
    """
    if result is None:
        return VerifierResult.failed("the command did not run")
    stdout = result.stdout or ""
    if returncode is not None and result.returncode != returncode:
        return VerifierResult.failed(
            f"returncode expected {returncode}, found {result.returncode}",
            expected=returncode,
            found=result.returncode,
            stderr=(getattr(result, "stderr", "") or "")[:500],
        )
    if equals is not None:
        found, wanted = (stdout.strip(), equals.strip()) if strip else (stdout, equals)
        if found != wanted:
            return VerifierResult.failed(
                f"stdout differs: expected {wanted[:200]!r}, found {found[:200]!r}", expected=wanted, found=found[:2000]
            )
    if contains is not None and contains not in stdout:
        return VerifierResult.failed(f"stdout does not contain {contains[:200]!r}", excerpt=stdout[:500])
    if regex is not None and not re.search(regex, stdout, re.MULTILINE):
        return VerifierResult.failed(f"stdout does not match /{regex}/", excerpt=stdout[:500])
    return VerifierResult.passed("the command's output is as expected")
