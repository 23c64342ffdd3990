"""OSWorld evaluator -> our verifier spec, one function per OSWorld metric we can express.

Each mapper gets the result getter (where the agent's output is read), the expected getter
(gold data) and the options, and returns a verifier node or raises ``Unsupported`` saying why.
Gold files (``cloud_file``) are read from the local cache at import time and embedded as data.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

Node = dict[str, Any]


class Unsupported(Exception):
    """This part of an OSWorld task has no equivalent here (the message says what and why)."""


class MissingAsset(Unsupported):
    """A file the task needs (input or gold) is not in the local cache; it would map given the file."""


def guest_path(path: str) -> str:
    """OSWorld's ``/home/user/...`` -> ``~/...`` (our session home), and a relative path (OSWorld's
    server resolves it in the home) -> ``~/<path>``; other absolute paths unchanged."""
    for home in ("/home/user/", "/root/"):
        if path.startswith(home):
            return "~/" + path[len(home) :]
    if path and not path.startswith(("/", "~")):
        return "~/" + path.removeprefix("./")
    return path


def find_cached(cache_dir: Path, *names: str) -> Path:
    """A downloaded file in the cache: by its file name, else by the URL's basename.

    Raises:
        MissingAsset: none of the names is in the cache.
    """
    tried = []
    for name in names:
        if not name:
            continue
        # A URL's query and fragment are not part of its name; a file path may hold '#' or '?'.
        plain = re.split(r"[?#]", name)[0] if "://" in name else name
        base = plain.rstrip("/").rsplit("/", 1)[-1]
        if base and (cache_dir / base).is_file():
            return cache_dir / base
        tried.append(base)
    raise MissingAsset(f"file not in the cache {cache_dir} (looked for {', '.join(sorted(set(tried)))})")


def _source(getter: Mapping[str, Any]) -> Node:
    """Where a verifier reads the agent's output: ``{"file": ...}`` or ``{"command": ...}``."""
    kind = getter.get("type")
    if kind == "vm_file":
        path = getter.get("path")
        if not isinstance(path, str):
            raise Unsupported("result vm_file with several paths is not supported")
        return {"file": guest_path(path)}
    if kind == "vm_command_line":
        command = getter.get("command")
        text = command if isinstance(command, str) else " ".join(str(part) for part in command or [])
        return {"command": text.replace("/home/user/", "$HOME/")}
    raise Unsupported(f"result getter {kind!r} has no equivalent (supported: vm_file, vm_command_line)")


def _gold(getter: Mapping[str, Any], cache_dir: Path, index: int | None = None) -> bytes:
    """A gold file's bytes from the cache; ``index`` picks one of a ``multi`` getter's files.

    A ``vm_file`` gold is one the task's postconfig downloaded into the desktop: it is read from
    the cache by name like a ``cloud_file``, never from the desktop (the agent could edit it there).
    """
    if getter.get("type") not in ("cloud_file", "local_file", "vm_file"):
        raise Unsupported(
            f"expected getter {getter.get('type')!r} is not a gold file (supported: cloud_file, local_file, vm_file)"
        )
    dest, path = getter.get("dest", ""), getter.get("path", "")
    if isinstance(dest, list) or isinstance(path, list):
        if index is None:
            raise Unsupported("expected cloud_file with several files where one is compared")
        dest = dest[index] if isinstance(dest, list) and index < len(dest) else ""
        path = path[index] if isinstance(path, list) and index < len(path) else ""
    return find_cached(cache_dir, str(dest), str(path)).read_bytes()


def _rules(getter: Mapping[str, Any]) -> Mapping[str, Any]:
    if getter.get("type") != "rule":
        raise Unsupported(f"expected getter {getter.get('type')!r} is not a rule")
    return getter.get("rules", {})


def _no_options(options: Mapping[str, Any], func: str, allowed: tuple[str, ...] = ()) -> None:
    extra = sorted(k for k, v in options.items() if k not in allowed and v not in (None, False, [], {}))
    if extra:
        raise Unsupported(f"{func} options {extra} have no equivalent")


def compare_text_file(result: Mapping, expected: Mapping, options: Mapping, cache_dir: Path) -> Node:
    _no_options(options, "compare_text_file")
    text = _gold(expected, cache_dir).decode("utf-8", "replace")
    return {"name": "text_file", **_source(result), "args": {"expected": text, "strip": False}}


def compare_docx_files(result: Mapping, expected: Mapping, options: Mapping, cache_dir: Path) -> Node:
    from ..verifiers.documents import paragraph_texts

    _no_options(options, "compare_docx_files", ("ignore_case", "ignore_blanks"))
    paragraphs = [p for p in paragraph_texts(_gold(expected, cache_dir)) if p.strip()]
    args = {"text": "\n".join(paragraphs), "match": "equals", "ignore_case": bool(options.get("ignore_case", False))}
    return {"name": "document_text", **_source(result), "args": args}


def _text_check(source: Mapping, *, command_arg: str, file_check: str, file_arg: str) -> Callable[[str], Node]:
    """One text checked in ``source``: by ``command_output`` (``command_arg``), else ``file_check`` (``file_arg``)."""

    def check(text: str) -> Node:
        if "command" in source:
            return {"name": "command_output", **source, "args": {command_arg: text, "returncode": None}}
        return {"name": file_check, **source, "args": {file_arg: text}}

    return check


# OSWorld metrics that list texts a command's output or a file must hold and must not hold:
# metric -> (rule key of present texts, of absent ones, command_output argument, file verifier, its
# argument, what the rules are called in the error when there are none).
_TEXT_LIST_METRICS = {
    "check_include_exclude": ("include", "exclude", "contains", "file_contains", "text", "rules"),
    "check_list": ("expect", "unexpect", "regex", "file_regex", "pattern", "patterns"),
}


def _text_list_metric(metric: str) -> Callable[[Mapping, Mapping, Mapping, Path], Node]:
    """The mapping of one ``_TEXT_LIST_METRICS`` metric: all present texts, and none of the absent ones."""
    present, absent, command_arg, file_check, file_arg, what = _TEXT_LIST_METRICS[metric]

    def evaluate(result: Mapping, expected: Mapping, options: Mapping, cache_dir: Path) -> Node:
        _no_options(options, metric)
        rules = _rules(expected)
        check = _text_check(_source(result), command_arg=command_arg, file_check=file_check, file_arg=file_arg)
        checks = [check(str(text)) for text in rules.get(present, [])]
        checks += [{"not": check(str(text))} for text in rules.get(absent, [])]
        if not checks:
            raise Unsupported(f"{metric} with no {present} and no {absent} {what}")
        return checks[0] if len(checks) == 1 else {"all": checks}

    evaluate.__name__ = metric
    return evaluate


check_include_exclude = _text_list_metric("check_include_exclude")
check_list = _text_list_metric("check_list")


def exact_match(result: Mapping, expected: Mapping, options: Mapping, cache_dir: Path) -> Node:
    _no_options(options, "exact_match")
    wanted = str(_rules(expected).get("expected", ""))
    source = _source(result)
    if "command" in source:
        return {"name": "command_output", **source, "args": {"equals": wanted, "strip": False, "returncode": None}}
    return {"name": "text_file", **source, "args": {"expected": wanted, "strip": False}}


# compare_pptx_files options that only switch OSWorld's formatting checks on or off: the text of
# every shape on every slide is compared whatever they say.
PPTX_FORMAT_OPTIONS = (
    "examine_number_of_slides",
    "examine_shape",
    "examine_text",
    "examine_indent",
    "examine_font_name",
    "examine_font_size",
    "examine_font_bold",
    "examine_font_italic",
    "examine_color_rgb",
    "examine_font_underline",
    "examine_strike_through",
    "examine_alignment",
    "examine_aligment",
    "examine_title_bottom_position",
    "examine_table_bottom_position",
    "examine_right_position",
    "examine_top_position",
    "examine_shape_for_shift_size",
    "examine_image_size",
    "examine_modify_height",
    "examine_bullets",
    "examine_background_color",
    "examine_note",
)


def compare_pptx_files(result: Mapping, expected: Mapping, options: Mapping, cache_dir: Path) -> Node:
    from ..verifiers.presentation_outline import pptx_slide_texts

    source = _source(result)
    _no_options(options, "compare_pptx_files", PPTX_FORMAT_OPTIONS)
    slides = pptx_slide_texts(_gold(expected, cache_dir))
    return {
        "name": "pptx_slide_texts",
        **source,
        "args": {"slides": slides},
        "label": "slide texts as in the gold deck",
    }


def compare_docx_tables(result: Mapping, expected: Mapping, options: Mapping, cache_dir: Path) -> Node:
    from ..verifiers._load import guarded_read, open_docx

    source = _source(result)
    _no_options(options, "compare_docx_tables")
    document = open_docx(_gold(expected, cache_dir))
    tables = guarded_read(
        "docx", lambda: [[[cell.text for cell in row.cells] for row in table.rows] for table in document.tables]
    )
    checks = [
        {"name": "docx_tables", **source, "args": {"count": len(tables), "table_index": index, "expected_rows": rows}}
        for index, rows in enumerate(tables)
    ]
    if not checks:
        raise Unsupported("compare_docx_tables with a gold document that has no tables")
    return checks[0] if len(checks) == 1 else {"all": checks}


def compare_line_spacing(result: Mapping, expected: Mapping, options: Mapping, cache_dir: Path) -> Node:
    from ..verifiers._load import guarded_read, open_docx
    from ..verifiers.documents import paragraph_line_spacing

    source = _source(result)
    _no_options(options, "compare_line_spacing")
    document = open_docx(_gold(expected, cache_dir))
    spacings = guarded_read(
        "docx", lambda: [(p.text, *paragraph_line_spacing(p)) for p in document.paragraphs if p.text.strip()]
    )
    checks = []
    for text, rule, value in spacings:
        if rule not in ("multiple", "points"):
            raise Unsupported(f"compare_line_spacing: gold line spacing rule {rule!r} has no equivalent")
        checks.append({"name": "docx_line_spacing", **source, "args": {"text": text, rule: value}})
    text_check = {
        "name": "document_text",
        **source,
        "args": {"text": "\n".join(t for t, _, _ in spacings), "match": "equals"},
    }
    return {"all": [text_check, *checks]}


def compare_docx_files_and_ignore_new_lines(
    result: Mapping, expected: Mapping, options: Mapping, cache_dir: Path
) -> Node:
    from ..verifiers.documents import paragraph_texts

    _no_options(options, "compare_docx_files_and_ignore_new_lines", ("ignore_blanks",))
    text = " ".join(" ".join(p.split()) for p in paragraph_texts(_gold(expected, cache_dir)) if p.strip())
    return {"name": "document_text", **_source(result), "args": {"text": text, "match": "equals_ignoring_breaks"}}


def diff_text_file(result: Mapping, expected: Mapping, options: Mapping, cache_dir: Path) -> Node:
    _no_options(options, "diff_text_file")
    text = _gold(expected, cache_dir).decode("utf-8", "replace")
    return {"name": "text_file", **_source(result), "args": {"expected": text, "strip": False}}


def check_pdf_pages(result: Mapping, expected: Mapping, options: Mapping, cache_dir: Path) -> Node:
    _no_options(options, "check_pdf_pages")
    rules = _rules(expected)
    if rules.get("relation", "eq") != "eq":
        raise Unsupported(f"check_pdf_pages relation {rules.get('relation')!r} (only eq)")
    return {"name": "pdf_pages", **_source(result), "args": {"count": int(rules["ref_value"])}}


def file_contains(result: Mapping, expected: Mapping, options: Mapping, cache_dir: Path) -> Node:
    _no_options(options, "file_contains")
    wanted = _rules(expected).get("expected", [])
    checks = [{"name": "file_contains", **_source(result), "args": {"text": str(text)}} for text in wanted]
    if not checks:
        raise Unsupported("file_contains with no expected strings")
    return checks[0] if len(checks) == 1 else {"all": checks}


METRICS: dict[str, Callable[[Mapping, Mapping, Mapping, Path], Node]] = {
    "compare_pptx_files": compare_pptx_files,
    "compare_docx_tables": compare_docx_tables,
    "compare_line_spacing": compare_line_spacing,
    "compare_docx_files_and_ignore_new_lines": compare_docx_files_and_ignore_new_lines,
    "diff_text_file": diff_text_file,
    "check_list": check_list,
    "check_pdf_pages": check_pdf_pages,
    "file_contains": file_contains,
    "compare_text_file": compare_text_file,
    "compare_docx_files": compare_docx_files,
    "exact_match": exact_match,
    "check_include_exclude": check_include_exclude,
}
