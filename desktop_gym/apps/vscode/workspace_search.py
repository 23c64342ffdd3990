"""Search and replace across a workspace folder with ripgrep, the engine of VS Code's own Search view.

ripgrep's regular expressions run in linear time (an agent's pattern cannot hang the guest), it
skips hidden and ignored files and binary files as VS Code's search does, never follows symlinks
here, and each run has a timeout and an output cap. :func:`parse_matches` reads its ``--json``
lines. A literal replacement is done here; a regular-expression one by ripgrep's ``--passthru
--replace`` (groups as ``$1``, as in VS Code's Replace).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from desktop_gym.guest.processes import run_capped, session_env

#: Files bigger than this are skipped (as VS Code skips large files).
MAX_FILE_SIZE = "2M"
MAX_FILE_BYTES = 2 * 1024 * 1024
#: The longest search text or pattern.
MAX_PATTERN_CHARS = 1000
#: The most files one replace changes.
MAX_FILES = 1000
#: Seconds one ripgrep run may take, and the most output read from it.
RG_TIMEOUT_S = 30.0
MAX_RG_OUTPUT_BYTES = 8 * 1024 * 1024


class SearchError(Exception):
    """ripgrep refused the search (a bad pattern) or is missing; the message says which."""


@dataclass(frozen=True)
class Match:
    """One matching line: its file, 1-based line number and text (without the line break)."""

    path: Path
    line: int
    text: str


def check_pattern(text: str) -> str:
    """``text`` as a search pattern.

    Raises:
        SearchError: empty or over :data:`MAX_PATTERN_CHARS`.
    """
    if not text:
        raise SearchError("the search text must not be empty")
    if len(text) > MAX_PATTERN_CHARS:
        raise SearchError(f"the search text is over {MAX_PATTERN_CHARS} characters")
    return text


def rg_argv(text: str, regex: bool, match_case: bool, include: str, *extra: str) -> list[str]:
    """The ripgrep command for a search of ``text`` (``extra`` flags before the pattern)."""
    program = shutil.which("rg")
    if program is None:
        raise SearchError("ripgrep (rg) is not installed")
    flags = [program, "--no-config", "--no-follow", "--color=never", f"--max-filesize={MAX_FILE_SIZE}"]
    flags.append("--case-sensitive" if match_case else "--ignore-case")
    if not regex:
        flags.append("--fixed-strings")
    if include:
        flags += ["--glob", include]
    return [*flags, *extra, "--regexp", check_pattern(text)]


def parse_matches(lines: Iterable[str], limit: int) -> tuple[list[Match], bool]:
    """The matches in ripgrep's ``--json`` output lines: ``(matches, cut)``, cut past ``limit``.

    Lines that are not match records (begin, end, summary, a path that is not UTF-8) are skipped;
    a line that is not JSON is skipped too (ripgrep writes one record a line).
    """
    found: list[Match] = []
    for line in lines:
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if not isinstance(record, dict) or record.get("type") != "match" or not isinstance(record.get("data"), dict):
            continue
        data = record["data"]
        path = (data.get("path") or {}).get("text") if isinstance(data.get("path"), dict) else None
        text = (data.get("lines") or {}).get("text") if isinstance(data.get("lines"), dict) else None
        number = data.get("line_number")
        if not isinstance(path, str) or not isinstance(text, str) or not isinstance(number, int):
            continue
        if len(found) == limit:
            return found, True
        found.append(Match(Path(path), number, text.rstrip("\r\n")))
    return found, False


def _run(argv: list[str], folder: Path) -> str:
    result, _cut = run_capped(
        argv, session_env(folder), timeout=RG_TIMEOUT_S, cwd=folder, max_output_bytes=MAX_RG_OUTPUT_BYTES
    )
    if result.timed_out:
        raise SearchError(f"the search took over {RG_TIMEOUT_S:g} s")
    if "No files were searched" in result.stderr:
        return ""  # every file was skipped (hidden, ignored, a symlink): nothing matches
    if result.returncode not in (0, 1):  # 1: nothing matched
        raise SearchError(f"ripgrep refused: {result.stderr.strip()[-300:]}")
    return result.stdout


def search(
    folder: Path, text: str, regex: bool, match_case: bool, include: str, limit: int
) -> tuple[list[Match], bool]:
    """Matching lines under ``folder`` (absolute paths): ``(matches, cut)``."""
    output = _run(rg_argv(text, regex, match_case, include, "--json"), folder)
    matches, cut = parse_matches(output.splitlines(), limit)
    return [Match(folder / m.path if not m.path.is_absolute() else m.path, m.line, m.text) for m in matches], cut


def matching_files(folder: Path, text: str, regex: bool, match_case: bool, include: str) -> list[Path]:
    """The files under ``folder`` with a match (absolute paths, sorted, at most :data:`MAX_FILES`).

    Raises:
        SearchError: more files than :data:`MAX_FILES` match.
    """
    output = _run(rg_argv(text, regex, match_case, include, "--files-with-matches", "--null"), folder)
    names = sorted(name for name in output.split("\0") if name.strip())
    if len(names) > MAX_FILES:
        raise SearchError(f"{len(names)} files match; narrow the search with include (at most {MAX_FILES})")
    return [folder / name for name in names]


def replaced_text(path: Path, original: str, text: str, replacement: str, regex: bool, match_case: bool) -> str:
    """``original`` (the file at ``path``) with every match replaced."""
    if not regex and match_case:
        return original.replace(text, replacement)
    argv = rg_argv(text, regex, match_case, "", "--passthru", "--no-line-number", "--no-filename")
    argv[-2:-2] = ["--replace", replacement if regex else replacement.replace("$", "$$")]
    new = _run([*argv, "--", str(path)], path.parent)
    if not original.endswith("\n") and new.endswith("\n"):
        new = new[:-1]  # ripgrep ends the last line; the file did not
    return new
