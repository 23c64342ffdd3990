"""Verifiers that read the text and paragraphs of saved text documents.

docx is read with python-docx (run and paragraph properties resolved through the style chain, the
way the app renders them); text checks also read odt (odfpy).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, Literal

from ._load import guarded_read, is_odt, open_docx, open_odf, require
from ._text import fold_text
from .registry import register_verifier
from .result import VerifierResult, count_mismatch

Match = Literal["equals", "contains"]


def docx_paragraphs(data: bytes) -> list[str]:
    """The text of every body paragraph of a docx file, in order."""
    return [paragraph.text for paragraph in open_docx(data).paragraphs]


def _odt_paragraphs(document: Any) -> list[str]:
    from odf import teletype
    from odf.text import H, P

    # Document order matters; odfpy's getElementsByType returns each type separately.
    wanted = {P().qname, H(outlinelevel=1).qname}
    found: list[str] = []

    def walk(node: Any) -> None:
        for child in node.childNodes:
            if getattr(child, "qname", None) in wanted:
                found.append(teletype.extractText(child))
            else:
                walk(child)

    walk(document.text)
    return found


def paragraph_texts(data: bytes | None, include_tables: bool = True) -> list[str]:
    """Every paragraph's text of a docx or odt file (docx table cells after the body when asked).

    Raises:
        DocumentError: the file is missing or unreadable.
    """
    if is_odt(require(data, "docx")):
        return guarded_read("odt", _odt_paragraphs, open_odf(data, "odt"))
    document = open_docx(data)
    return guarded_read("docx", lambda: [p.text for p in _all_paragraphs(document, include_tables)])


def _all_paragraphs(document: Any, include_tables: bool = True) -> Iterator[Any]:
    yield from document.paragraphs
    if include_tables:
        for table in document.tables:
            for row in table.rows:
                for cell in row.cells:
                    yield from cell.paragraphs


def find_paragraphs(document: Any, text: str, ignore_case: bool = False) -> list[Any]:
    """docx paragraphs (body, then table cells) whose text contains ``text`` (whitespace-normalised)."""
    needle = fold_text(text, ignore_case)
    return [p for p in _all_paragraphs(document) if needle in fold_text(p.text, ignore_case)]


@register_verifier("docx_paragraph", reads="file")
def verify_docx_has_paragraph(data: bytes | None, text: str, exact: bool = True, last: bool = False) -> VerifierResult:
    """Check that a saved docx (or odt) has a paragraph equal to (or, with ``exact=False``, containing) ``text``.

    Args:
        data: the file's bytes, or None when it does not exist.
        text: the paragraph text to look for (surrounding whitespace ignored).
        exact: require the whole paragraph to equal ``text``.
        last: it must be the last non-blank body paragraph (text appended "at the end", nothing after it).
    """
    paragraphs = paragraph_texts(data)
    wanted = text.strip()
    if last:
        body = paragraph_texts(data, include_tables=False)  # table cells are not paragraphs "at the end"
        filled = [(index, p.strip()) for index, p in enumerate(body) if p.strip()]
        index, found = filled[-1] if filled else (-1, "")
        if found == wanted or (not exact and wanted in found):
            return VerifierResult.passed(f"the last paragraph ({index}) has the text", paragraph_index=index)
        return VerifierResult.failed(
            f"the last paragraph is {found[:80]!r}, not {wanted[:80]!r}", paragraphs=[p for _, p in filled][-5:]
        )
    for index, paragraph in enumerate(paragraphs):
        found = paragraph.strip()
        if found == wanted or (not exact and wanted in found):
            return VerifierResult.passed(f"paragraph {index} has the text", paragraph_index=index)
    return VerifierResult.failed(
        f"no paragraph {'equals' if exact else 'contains'} {wanted!r}",
        paragraphs=[p for p in paragraphs if p.strip()][:20],
    )


@register_verifier("document_text", reads="file")
def verify_document_text(
    data: bytes | None,
    text: str,
    match: Literal["equals", "contains", "equals_ignoring_breaks"] = "contains",
    ignore_case: bool = False,
) -> VerifierResult:
    """Check the whole text of a docx or odt document (whitespace runs count as one space).

    Args:
        data: the file's bytes, or None when it does not exist.
        text: the text to find, or the whole expected text (paragraphs separated by newlines).
        match: the document ``"contains"`` the text, or ``"equals"`` it (blank paragraphs ignored), or
            ``"equals_ignoring_breaks"``: the same words in the same order, wherever paragraphs break.
        ignore_case: compare case-insensitively.
    """
    paragraphs = [p for p in paragraph_texts(data) if p.strip()]
    if match == "equals_ignoring_breaks":
        found_text, wanted_text = fold_text(" ".join(paragraphs), ignore_case), fold_text(text, ignore_case)
        if found_text == wanted_text:
            return VerifierResult.passed("the document's text equals the expected text (paragraph breaks ignored)")
        first = next(
            (i for i, (a, b) in enumerate(zip(found_text, wanted_text, strict=False)) if a != b),
            min(len(found_text), len(wanted_text)),
        )
        return VerifierResult.failed(
            f"the document's text differs at character {first + 1}: expected "
            f"{wanted_text[first : first + 40]!r}, found {found_text[first : first + 40]!r}"
        )
    if match == "equals":
        found = [fold_text(p, ignore_case) for p in paragraphs]
        wanted = [fold_text(line, ignore_case) for line in text.splitlines() if line.strip()]
        if found == wanted:
            return VerifierResult.passed(f"the document's text equals the expected {len(wanted)} paragraphs")
        first = next(
            (i for i, (a, b) in enumerate(zip(found, wanted, strict=False)) if a != b), min(len(found), len(wanted))
        )
        expected_text = wanted[first] if first < len(wanted) else None
        found_text = found[first] if first < len(found) else None
        return VerifierResult.failed(
            f"the document's text differs at paragraph {first + 1}: expected {expected_text!r}, found {found_text!r}",
            expected_paragraphs=len(wanted),
            found_paragraphs=len(found),
        )
    whole = fold_text("\n".join(paragraphs), ignore_case)
    if fold_text(text, ignore_case) in whole:
        return VerifierResult.passed(f"the document contains {text[:80]!r}")
    return VerifierResult.failed(f"the document does not contain {text[:80]!r}", excerpt=whole[:500])


@register_verifier("docx_paragraph_count", reads="file")
def verify_docx_paragraph_count(
    data: bytes | None,
    count: int | None = None,
    min_count: int | None = None,
    max_count: int | None = None,
    include_empty: bool = False,
) -> VerifierResult:
    """Check how many body paragraphs a docx (or odt) has.

    Args:
        data: the file's bytes, or None when it does not exist.
        count: the exact number.
        min_count: the least number.
        max_count: the most.
        include_empty: count blank paragraphs too (apps add them freely, so by default they don't count).
    """
    paragraphs = [p for p in paragraph_texts(data, include_tables=False) if include_empty or p.strip()]
    found = len(paragraphs)
    kind = "" if include_empty else "non-empty "
    mismatch = count_mismatch(found, f"{kind}paragraphs", count, min_count, max_count)
    return mismatch or VerifierResult.passed(f"the document has {found} {kind}paragraphs", found=found)


# --- run properties, resolved the way Word/Writer render them -------------------------------------


def _style_chain(style: Any) -> Iterator[Any]:
    seen = 0
    while style is not None and seen < 20:  # a malformed file can make base styles loop
        yield style
        style = style.base_style
        seen += 1


def _doc_default_font(document: Any) -> dict[str, Any]:
    from docx.oxml.ns import qn

    defaults: dict[str, Any] = {"name": None, "size": None}
    r_pr = document.styles.element.find(f"{qn('w:docDefaults')}/{qn('w:rPrDefault')}/{qn('w:rPr')}")
    if r_pr is None:
        return defaults
    fonts = r_pr.find(qn("w:rFonts"))
    if fonts is not None:
        defaults["name"] = fonts.get(qn("w:ascii")) or fonts.get(qn("w:hAnsi"))
    size = r_pr.find(qn("w:sz"))
    if size is not None and size.get(qn("w:val"), "").isdigit():
        defaults["size"] = int(size.get(qn("w:val"))) / 2
    return defaults


def _font_value(font: Any, prop: str) -> Any:
    value = getattr(font, prop)
    if prop == "size" and value is not None:
        return round(value.pt, 2)
    if prop == "underline" and value is not None:
        return value is not False and getattr(value, "value", 1) not in (0, None) and str(value) != "NONE (0)"
    return value


def effective_run_property(document: Any, paragraph: Any, run: Any, prop: str) -> Any:
    """A run's bold/italic/underline/name/size after character style, paragraph style and defaults."""
    value = _font_value(run.font, prop)
    if value is not None:
        return value
    styles = []
    if run.style is not None:
        styles.extend(_style_chain(run.style))
    if paragraph.style is not None:
        styles.extend(_style_chain(paragraph.style))
    for style in styles:
        value = _font_value(style.font, prop)
        if value is not None:
            return value
    if prop in ("name", "size"):
        return _doc_default_font(document)[prop]
    return False


def _runs_covering(paragraph: Any, needle: str, ignore_case: bool) -> list[Any]:
    runs = list(paragraph.runs)
    full = "".join(run.text for run in runs)
    haystack = full.casefold() if ignore_case else full
    start = haystack.find(needle.casefold() if ignore_case else needle)
    if start < 0:
        return []
    end, covering, position = start + len(needle), [], 0
    for run in runs:
        run_end = position + len(run.text)
        if run.text and run_end > start and position < end:
            covering.append(run)
        position = run_end
    return covering


@register_verifier("docx_font", reads="file")
def verify_docx_font(
    data: bytes | None,
    text: str,
    name: str | None = None,
    size: float | None = None,
    bold: bool | None = None,
    italic: bool | None = None,
    underline: bool | None = None,
    ignore_case: bool = False,
) -> VerifierResult:
    """Check the font of the text ``text`` wherever it occurs; properties left None are not checked.

    Every run overlapping an occurrence must have the property (inherited values count), and at
    least one occurrence must pass.

    Args:
        data: the file's bytes, or None when it does not exist.
        text: the text whose font is checked (within one paragraph).
        name: font family, case-insensitive.
        size: size in points (within 0.1).
        bold: required boldness.
        italic: required italics.
        underline: required underlining (any style).
        ignore_case: find ``text`` case-insensitively.
    """
    document = open_docx(data)
    wanted = {"name": name, "size": size, "bold": bold, "italic": italic, "underline": underline}
    wanted = {key: value for key, value in wanted.items() if value is not None}

    def check() -> VerifierResult:
        occurrences = 0
        first_problem: dict[str, Any] | None = None
        for paragraph in _all_paragraphs(document):
            runs = _runs_covering(paragraph, text, ignore_case)
            if not runs:
                continue
            occurrences += 1
            problem = None
            for run in runs:
                for prop, want in wanted.items():
                    got = effective_run_property(document, paragraph, run, prop)
                    same = (
                        got is not None and abs(float(got) - float(want)) <= 0.1
                        if prop == "size"
                        else (str(got).casefold() == str(want).casefold() if prop == "name" else bool(got) == want)
                    )
                    if not same:
                        problem = {"property": prop, "expected": want, "found": got, "run": run.text}
                        break
                if problem:
                    break
            if problem is None:
                return VerifierResult.passed(f"{text[:60]!r} has the expected font", checked=sorted(wanted))
            first_problem = first_problem or problem
        if occurrences == 0:
            return VerifierResult.failed(f"text {text[:60]!r} not found within a paragraph's runs")
        assert first_problem is not None
        return VerifierResult.failed(
            f"{text[:60]!r} has the wrong font: {first_problem['property']} expected "
            f"{first_problem['expected']!r}, found {first_problem['found']!r}",
            occurrences=occurrences,
            **first_problem,
        )

    return guarded_read("docx", check)


def heading_level(paragraph: Any) -> int | None:
    """The heading level of a docx paragraph (style "Heading N" or an outline level), None for body text."""
    from docx.oxml.ns import qn

    for style in _style_chain(paragraph.style):
        name = (style.name or "").strip().casefold()
        if name.startswith("heading ") and name[8:].strip().isdigit():
            return int(name[8:].strip())
        if name == "title":
            return 0
    for element in [paragraph._p.pPr] + [s.element.pPr for s in _style_chain(paragraph.style)]:
        level = element.find(qn("w:outlineLvl")) if element is not None else None
        if level is not None and level.get(qn("w:val"), "").isdigit() and int(level.get(qn("w:val"))) < 9:
            return int(level.get(qn("w:val"))) + 1
    return None


def _judge_paragraphs(
    data: bytes | None, text: str, ignore_case: bool, judge: Callable[[list[Any]], VerifierResult]
) -> VerifierResult:
    """``judge`` of the docx paragraphs that contain ``text`` (read under the docx guard); failed when none does."""
    document = open_docx(data)

    def check() -> VerifierResult:
        paragraphs = find_paragraphs(document, text, ignore_case)
        if not paragraphs:
            return VerifierResult.failed(f"no paragraph contains {text[:60]!r}")
        return judge(paragraphs)

    return guarded_read("docx", check)


@register_verifier("docx_paragraph_style", reads="file")
def verify_docx_paragraph_style(
    data: bytes | None,
    text: str,
    style: str | None = None,
    heading: int | None = None,
    ignore_case: bool = False,
) -> VerifierResult:
    """Check the paragraph style or heading level of the paragraph containing ``text``.

    Args:
        data: the file's bytes, or None when it does not exist.
        text: text inside the paragraph.
        style: the style name (``"Quote"``), case-insensitive.
        heading: the heading level (1 for "Heading 1"; 0 for "Title").
        ignore_case: find ``text`` case-insensitively.
    """

    def judge(paragraphs: list[Any]) -> VerifierResult:
        found = []
        for paragraph in paragraphs:
            style_name = paragraph.style.name if paragraph.style is not None else None
            level = heading_level(paragraph)
            found.append({"style": style_name, "heading": level})
            style_ok = style is None or (style_name or "").casefold() == style.casefold()
            if style_ok and (heading is None or level == heading):
                return VerifierResult.passed(f"the paragraph with {text[:60]!r} has style {style_name!r}", **found[-1])
        first = found[0]
        if style is not None and (first["style"] or "").casefold() != style.casefold():
            reason = f"style expected {style!r}, found {first['style']!r}"
        else:
            reason = f"heading level expected {heading}, found {first['heading']} (style {first['style']!r})"
        return VerifierResult.failed(f"the paragraph with {text[:60]!r} has the wrong {reason}", found=found)

    return _judge_paragraphs(data, text, ignore_case, judge)


_ALIGNMENTS = {
    "left": "left",
    "start": "left",
    "right": "right",
    "end": "right",
    "center": "center",
    "both": "justify",
    "distribute": "justify",
    "justify": "justify",
}


def paragraph_alignment(paragraph: Any) -> str:
    """``"left"``, ``"center"``, ``"right"`` or ``"justify"``, from the paragraph or its style chain.

    Read from the XML: LibreOffice writes ``start``/``end``, which python-docx's enum rejects.
    """
    from docx.oxml.ns import qn

    elements = [paragraph._p.pPr] + [s.element.pPr for s in _style_chain(paragraph.style)]
    for element in elements:
        jc = element.find(qn("w:jc")) if element is not None else None
        if jc is not None:
            return _ALIGNMENTS.get(jc.get(qn("w:val"), "left"), jc.get(qn("w:val"), "left"))
    return "left"


@register_verifier("docx_alignment", reads="file")
def verify_docx_alignment(
    data: bytes | None,
    text: str,
    alignment: Literal["left", "center", "right", "justify"],
    ignore_case: bool = False,
) -> VerifierResult:
    """Check the horizontal alignment of the paragraph containing ``text``.

    Args:
        data: the file's bytes, or None when it does not exist.
        text: text inside the paragraph.
        alignment: ``"left"``, ``"center"``, ``"right"`` or ``"justify"``.
        ignore_case: find ``text`` case-insensitively.
    """

    def judge(paragraphs: list[Any]) -> VerifierResult:
        found = [paragraph_alignment(p) for p in paragraphs]
        if alignment in found:
            return VerifierResult.passed(f"the paragraph with {text[:60]!r} is {alignment}-aligned")
        return VerifierResult.failed(
            f"the paragraph with {text[:60]!r} has the wrong alignment: expected {alignment}, found {found[0]}",
            expected=alignment,
            found=found,
        )

    return _judge_paragraphs(data, text, ignore_case, judge)


def paragraph_line_spacing(paragraph: Any) -> tuple[str, float]:
    """``("multiple", 1.5)`` or ``("points", 18.0)`` (exact / at-least), from the paragraph or its styles."""
    formats = [paragraph.paragraph_format] + [s.paragraph_format for s in _style_chain(paragraph.style)]
    for paragraph_format in formats:
        spacing = paragraph_format.line_spacing
        if spacing is None:
            continue
        if isinstance(spacing, float) and not hasattr(spacing, "pt"):
            return "multiple", round(spacing, 3)
        return "points", round(spacing.pt, 2)
    return _default_line_spacing(paragraph.part.document)


def _default_line_spacing(document: Any) -> tuple[str, float]:
    from docx.oxml.ns import qn

    spacing = document.styles.element.find(
        f"{qn('w:docDefaults')}/{qn('w:pPrDefault')}/{qn('w:pPr')}/{qn('w:spacing')}"
    )
    line = spacing.get(qn("w:line")) if spacing is not None else None
    if line is None or not line.lstrip("-").isdigit():
        return "multiple", 1.0
    if spacing.get(qn("w:lineRule"), "auto") == "auto":
        return "multiple", round(int(line) / 240, 3)
    return "points", round(int(line) / 20, 2)


@register_verifier("docx_line_spacing", reads="file")
def verify_docx_line_spacing(
    data: bytes | None,
    text: str,
    multiple: float | None = None,
    points: float | None = None,
    tolerance: float = 0.05,
    ignore_case: bool = False,
) -> VerifierResult:
    """Check the line spacing of the paragraph containing ``text``.

    Args:
        data: the file's bytes, or None when it does not exist.
        text: text inside the paragraph.
        multiple: proportional spacing (1.0 single, 1.5, 2.0 double).
        points: fixed spacing in points (exact or at-least rules).
        tolerance: absolute tolerance (points are compared with 10 times it).
        ignore_case: find ``text`` case-insensitively.
    """
    if (multiple is None) == (points is None):
        raise ValueError("docx_line_spacing: give exactly one of multiple= or points=")

    def judge(paragraphs: list[Any]) -> VerifierResult:
        kind, want = ("multiple", multiple) if multiple is not None else ("points", points)
        found = [paragraph_line_spacing(p) for p in paragraphs]
        allowed = tolerance if kind == "multiple" else tolerance * 10
        if any(k == kind and abs(v - want) <= allowed for k, v in found):  # type: ignore[operator]
            return VerifierResult.passed(f"the paragraph with {text[:60]!r} has line spacing {want} ({kind})")
        got_kind, got = found[0]
        return VerifierResult.failed(
            f"the paragraph with {text[:60]!r} has the wrong line spacing: expected {want} ({kind}), "
            f"found {got} ({got_kind})",
            expected={kind: want},
            found=[{k: v} for k, v in found],
        )

    return _judge_paragraphs(data, text, ignore_case, judge)
