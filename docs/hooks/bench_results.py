"""MkDocs hook: benchmark result files rendered into the pages, and CHANGELOG.md as a page.

A page asks for a result with a marker line ``<!-- bench-result: NAME -->``; the hook replaces it
with the tables of ``bench/results/log/NAME.json`` and the run's provenance (command, time,
machine, load, the commit that recorded it). An unknown name, a malformed file, or a result file no
page shows fails the build, so the data and the pages cannot drift apart.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "bench" / "results" / "log"
CHANGELOG = ROOT / "CHANGELOG.md"
MARKER = re.compile(r"^<!-- bench-result: ([A-Za-z0-9_.-]+) -->$", re.M)
REQUIRED = ("title", "benchmark", "command", "measured", "machine", "load", "recorded_in", "tables")
MAX_RESULT_BYTES = 256 * 1024

_shown: set[str] = set()


class ResultFileError(ValueError):
    """A benchmark result file is missing, malformed, or shown by no page."""


def load_result(name: str, folder: Path = RESULTS) -> dict[str, Any]:
    """Read and check one result file.

    Args:
        name: The file's stem (``targets-2026-12-01``).
        folder: Where result files live.

    Returns:
        The parsed result.

    Raises:
        ResultFileError: The file is missing, too large, not JSON, or lacks a field.
    """
    path = folder / f"{name}.json"
    if not path.is_file():
        raise ResultFileError(f"{path}: no such benchmark result file")
    if path.stat().st_size > MAX_RESULT_BYTES:
        raise ResultFileError(f"{path}: over {MAX_RESULT_BYTES} bytes")
    try:
        result = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ResultFileError(f"{path}: not JSON ({exc})") from exc
    missing = [field for field in REQUIRED if field not in result]
    if missing:
        raise ResultFileError(f"{path}: missing field(s) {', '.join(missing)}")
    for index, table in enumerate(result["tables"]):
        columns = table.get("columns")
        rows = table.get("rows")
        if not columns or rows is None:
            raise ResultFileError(f"{path}: tables[{index}] needs 'columns' and 'rows'")
        for row_index, row in enumerate(rows):
            if len(row) != len(columns):
                raise ResultFileError(
                    f"{path}: tables[{index}].rows[{row_index}] has {len(row)} cells, {len(columns)} columns"
                )
    return result


def _cell(value: object) -> str:
    text = str(value).replace("|", "\\|").replace("\n", " ")
    return f"&emsp;{text.strip()}" if text.startswith("  ") else text  # an indented sub-row, as printed


def render_result(name: str, folder: Path = RESULTS) -> str:
    """The markdown for one result file: a provenance line, its tables and its notes."""
    result = load_result(name, folder)
    lines = [
        f"**{result['title']}**",
        "",
        f"`{result['command']}` · measured {result['measured']} · {result['machine']} · "
        f"{result['load']} · recorded in commit `{result['recorded_in']}` · "
        f"data: `bench/results/log/{name}.json`",
        "",
    ]
    for table in result["tables"]:
        if table.get("caption"):
            lines += [f"*{table['caption']}*", ""]
        lines.append("| " + " | ".join(_cell(c) for c in table["columns"]) + " |")
        lines.append("|" + "---|" * len(table["columns"]))
        lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in table["rows"]]
        lines.append("")
    lines += [f"- {note}" for note in result.get("notes", [])]
    return "\n".join(lines).rstrip() + "\n"


def render_markers(markdown: str, folder: Path = RESULTS) -> tuple[str, set[str]]:
    """Replace every result marker in a page; returns the page and the names it showed."""
    names: set[str] = set()

    def replace(match: re.Match[str]) -> str:
        names.add(match.group(1))
        return render_result(match.group(1), folder)

    return MARKER.sub(replace, markdown), names


def result_names(folder: Path = RESULTS) -> set[str]:
    """The stems of every committed result file."""
    return {path.stem for path in folder.glob("*.json")}


def on_pre_build(config: Any) -> None:
    _shown.clear()


def on_files(files: Any, config: Any) -> Any:
    from mkdocs.structure.files import File

    files.append(File.generated(config, "changelog.md", content=CHANGELOG.read_text(encoding="utf-8")))
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    from mkdocs.exceptions import PluginError

    try:
        rendered, names = render_markers(markdown)
    except ResultFileError as exc:
        raise PluginError(f"{page.file.src_uri}: {exc}") from exc
    _shown.update(names)
    return rendered


def on_env(env: Any, config: Any, files: Any) -> Any:
    from mkdocs.exceptions import PluginError

    unshown = sorted(result_names() - _shown)
    if unshown:
        raise PluginError(f"benchmark result files no page shows: {', '.join(unshown)}")
    return env
