"""More OSWorld metrics -> our verifiers: Writer formatting, Impress page setup and media, archives, folders.

Importing this module adds its mappers to ``osworld_evaluators.METRICS`` (the importer imports it).
Each mapper reads what OSWorld's metric compares (a gold file from the cache, or the rule's data)
and names the verifier of ours that checks the same thing; where our check is stricter or looser
than OSWorld's, the docstring says how.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

from .osworld_evaluators import METRICS, Node, Unsupported, _gold, _no_options, _rules, _source, guest_path


def _fixed(metric: str, verifier: str, args: Node, doc: str):  # noqa: ANN202 - a mapper factory
    """A mapper for a metric that takes no gold file, rule or option: always the same leaf."""

    def mapper(result: Mapping, expected: Mapping, options: Mapping, cache_dir: Path) -> Node:
        _no_options(options, metric)
        return {"name": verifier, **_source(result), "args": dict(args)}

    mapper.__doc__ = f"OSWorld's {metric}: {doc}"
    return mapper


def _gold_spans(prop: str, label: str):  # noqa: ANN202 - a mapper factory
    def mapper(result: Mapping, expected: Mapping, options: Mapping, cache_dir: Path) -> Node:
        from ..verifiers.document_runs import formatted_spans

        _no_options(options, label)
        spans = formatted_spans(_gold(expected, cache_dir), prop)
        if not spans:
            raise Unsupported(f"{label}: the gold document has no text with {prop}")
        return {"name": "docx_formatted_text", **_source(result), "args": {"prop": prop, "expected": spans}}

    mapper.__doc__ = f"OSWorld's {label}: the text with {prop} is exactly the gold document's (in order)."
    return mapper


def compare_font_names(result: Mapping, expected: Mapping, options: Mapping, cache_dir: Path) -> Node:
    """Every run with text is in the rule's font (inherited fonts count)."""
    _no_options(options, "compare_font_names")
    return {"name": "docx_run_fonts", **_source(result), "args": {"name": str(_rules(expected)["font_name"])}}


def compare_docx_lines(result: Mapping, expected: Mapping, options: Mapping, cache_dir: Path) -> Node:
    """The paragraphs with text equal the gold document's, in order (OSWorld compares them as a set)."""
    from ..verifiers.documents import paragraph_texts

    _no_options(options, "compare_docx_lines")
    paragraphs = [p for p in paragraph_texts(_gold(expected, cache_dir)) if p.strip()]
    return {"name": "document_text", **_source(result), "args": {"text": "\n".join(paragraphs), "match": "equals"}}


def compare_insert_equation(result: Mapping, expected: Mapping, options: Mapping, cache_dir: Path) -> Node:
    """The text equals the gold document's and it holds at least as many equations."""
    from ..verifiers.document_runs import equation_count
    from ..verifiers.documents import paragraph_texts

    _no_options(options, "compare_insert_equation")
    gold = _gold(expected, cache_dir)
    count = equation_count(gold)
    if count == 0:
        raise Unsupported("compare_insert_equation: the gold document has no equation")
    text = "\n".join(p for p in paragraph_texts(gold) if p.strip())
    source = _source(result)
    return {
        "all": [
            {"name": "document_text", **source, "args": {"text": text, "match": "equals"}},
            {"name": "docx_equations", **source, "args": {"min_count": count}},
        ]
    }


def compare_references(result: Mapping, expected: Mapping, options: Mapping, cache_dir: Path) -> Node:
    """The text equals the gold document's (OSWorld's ``content_only`` comparison accepts a 0.92
    similarity of the reference list; ours asks for the same paragraphs, so it is stricter)."""
    _no_options(options, "compare_references", ("content_only", "reference_base_result"))
    return compare_docx_lines(result, expected, {}, cache_dir)


def is_in_vm_clickboard(result: Mapping, expected: Mapping, options: Mapping, cache_dir: Path) -> Node:
    """The clipboard holds the rule's text (read with xclip; OSWorld's getters are swapped here:
    the command is in ``expected`` and the rule in ``result``)."""
    _no_options(options, "is_in_vm_clickboard")
    wanted = str(_rules(result).get("expected", ""))
    if not wanted:
        raise Unsupported("is_in_vm_clickboard with no expected text")
    return {
        "name": "command_output",
        "command": "xclip -selection clipboard -o",
        "args": {"equals": wanted, "strip": True, "returncode": None},
        "label": "the clipboard",
    }


def compare_pdfs(result: Mapping, expected: Mapping, options: Mapping, cache_dir: Path) -> Node:
    """Each page's text equals the gold PDF's (OSWorld compares the whole text by similarity)."""
    from ..verifiers.pdf_text import pdf_page_texts

    _no_options(options, "compare_pdfs")
    return {"name": "pdf_text", **_source(result), "args": {"pages": pdf_page_texts(_gold(expected, cache_dir))}}


def compare_images(result: Mapping, expected: Mapping, options: Mapping, cache_dir: Path) -> Node:
    """The image has the gold's size and looks the same at 16 x 16 (OSWorld compares every pixel)."""
    from ..verifiers.images import image_fingerprint

    _no_options(options, "compare_images")
    return {"name": "image_similar", **_source(result), "args": image_fingerprint(_gold(expected, cache_dir))}


def compare_image_list(result: Mapping, expected: Mapping, options: Mapping, cache_dir: Path) -> Node:
    """``compare_images`` for each result file against the gold file at the same position."""
    from ..verifiers.images import image_fingerprint

    _no_options(options, "compare_image_list")
    paths = result.get("path")
    if not isinstance(paths, list) or not paths:
        raise Unsupported("compare_image_list needs a list of result files")
    checks = [
        {
            "name": "image_similar",
            "file": guest_path(str(path)),
            "args": image_fingerprint(_gold(expected, cache_dir, index=index)),
        }
        for index, path in enumerate(paths)
    ]
    return {"all": checks}


def check_page_number_colors(result: Mapping, expected: Mapping, options: Mapping, cache_dir: Path) -> Node:
    """Every slide-number placeholder's text is in the rule's colour (within 60 per channel)."""
    _no_options(options, "check_page_number_colors")
    color = str(_rules(expected).get("color", ""))
    if color.lower() not in ("red", "green", "blue", "black") and not re.fullmatch(r"#?[0-9A-Fa-f]{6}", color):
        raise Unsupported(f"check_page_number_colors: colour {color!r} is not a name or RRGGBB")
    return {"name": "pptx_slide_number_color", **_source(result), "args": {"color": color}}


def check_image_stretch_and_center(result: Mapping, expected: Mapping, options: Mapping, cache_dir: Path) -> Node:
    """A picture on the first slide covers the slide, centred (OSWorld also compares the original deck)."""
    _no_options(options, "check_image_stretch_and_center")
    _gold(expected, cache_dir)  # the original deck: needed by OSWorld's check, so the task needs it too
    return {"name": "pptx_picture_fills_slide", **_source(result), "args": {"slide": 1}}


def evaluate_presentation_fill_to_rgb_distance(
    result: Mapping, expected: Mapping, options: Mapping, cache_dir: Path
) -> Node:
    """Every slide's background is the rule's colour, exactly (OSWorld allows a small RGB distance)."""
    _no_options(options, "evaluate_presentation_fill_to_rgb_distance")
    rgb = _rules(expected).get("rgb")
    if not (isinstance(rgb, list) and len(rgb) == 3 and all(isinstance(v, int) and 0 <= v < 256 for v in rgb)):
        raise Unsupported(f"evaluate_presentation_fill_to_rgb_distance: rgb {rgb!r} is not three 0-255 integers")
    return {"name": "pptx_background", **_source(result), "args": {"color": "".join(f"{v:02X}" for v in rgb)}}


# Members whose bytes change on every export (a timestamp inside): only their names are compared.
REGENERATED_EXTENSIONS = ("pdf", "docx", "xlsx", "pptx", "odt", "ods", "odp")


def compare_archives(result: Mapping, expected: Mapping, options: Mapping, cache_dir: Path) -> Node:
    """OSWorld's compare_archive and compare_zip_files: the same member paths as the gold archive, and
    the same bytes for members that are not regenerated documents (for those, the names only)."""
    from ..verifiers.archive_members import archive_digests

    _no_options(options, "compare_archive", ("file_type",))
    digests = archive_digests(_gold(expected, cache_dir))
    if not digests:
        raise Unsupported("compare_archive: the gold archive holds no files")
    members = {p: (None if p.rsplit(".", 1)[-1].lower() in REGENERATED_EXTENSIONS else d) for p, d in digests.items()}
    return {"name": "archive_members", **_source(result), "args": {"expected": members}}


def check_moved_jpgs(result: Mapping, expected: Mapping, options: Mapping, cache_dir: Path) -> Node:
    """The folder holds exactly the rule's files (OSWorld's list_directory getter, top level)."""
    _no_options(options, "check_moved_jpgs")
    if result.get("type") != "list_directory":
        raise Unsupported(f"check_moved_jpgs with result getter {result.get('type')!r}")
    names = [str(name) for name in _rules(expected).get("expected", [])]
    return {"name": "directory_tree", "dir": guest_path(str(result["path"])), "args": {"expected": names}}


def compare_result_files(result: Mapping, expected: Mapping, options: Mapping, cache_dir: Path) -> Node:
    """The result text equals the gold text, surrounding whitespace aside (OSWorld compares the numbers)."""
    _no_options(options, "compare_result_files")
    text = _gold(expected, cache_dir).decode("utf-8", "replace")
    return {"name": "text_file", **_source(result), "args": {"expected": text, "strip": True}}


METRICS.update(
    {
        "compare_highlighted_text": _gold_spans("highlight", "compare_highlighted_text"),
        "compare_subscript_contains": _gold_spans("subscript", "compare_subscript_contains"),
        "evaluate_strike_through_last_paragraph": _gold_spans("strike", "evaluate_strike_through_last_paragraph"),
        "compare_font_names": compare_font_names,
        "check_italic_font_size_14": _fixed(
            "check_italic_font_size_14",
            "docx_run_fonts",
            {"size": 14, "only": "italic"},
            "every italic run is 14 pt, and there is one (OSWorld's gold file is not needed for that)",
        ),
        "is_first_line_centered": _fixed(
            "is_first_line_centered",
            "docx_paragraph_alignment",
            {"alignment": "center", "index": 0},
            "the first paragraph with text is centred",
        ),
        "contains_page_break": _fixed(
            "contains_page_break", "docx_page_breaks", {"min_count": 1}, "at least one manual page break"
        ),
        "has_page_numbers_in_footers": _fixed(
            "has_page_numbers_in_footers",
            "docx_page_number",
            {"part": "footer"},
            "a footer holds a PAGE field (OSWorld accepts digits typed into a footer; a field numbers pages)",
        ),
        "compare_docx_lines": compare_docx_lines,
        "compare_insert_equation": compare_insert_equation,
        "compare_references": compare_references,
        "is_in_vm_clickboard": is_in_vm_clickboard,
        "compare_pdfs": compare_pdfs,
        "compare_images": compare_images,
        "compare_image_list": compare_image_list,
        "check_page_number_colors": check_page_number_colors,
        "check_image_stretch_and_center": check_image_stretch_and_center,
        "check_slide_orientation_Portrait": _fixed(
            "check_slide_orientation_Portrait",
            "pptx_orientation",
            {"orientation": "portrait"},
            "the slides are portrait",
        ),
        "contains_mp4_video": _fixed(
            "contains_mp4_video", "pptx_media", {"kind": "video", "extension": "mp4"}, "a slide embeds an .mp4 video"
        ),
        "evaluate_presentation_fill_to_rgb_distance": evaluate_presentation_fill_to_rgb_distance,
        "compare_archive": compare_archives,
        "compare_zip_files": compare_archives,
        "check_moved_jpgs": check_moved_jpgs,
        "compare_result_files": compare_result_files,
    }
)
