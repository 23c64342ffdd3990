"""Writer families that format: character style of a sentence, alignment, font, line spacing, lists."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

from ...verifiers import all_of, verify_docx_alignment, verify_docx_font, verify_docx_line_spacing, verify_docx_list
from ...verifiers.result import VerifierResult
from ..base import Policy, TaskContext
from ..gui_script import GuiScript
from .writer_base import (
    DONE,
    SAVE,
    WriterDocumentTask,
    click_node,
    find_and_select,
    keys,
    saved_by_api,
    saved_by_gui,
    typed,
)

STYLE_KEYS = {"bold": "b", "italic": "i", "underline": "u"}
ALIGN_KEYS = {"center": "e", "right": "r", "justify": "j"}
ALIGN_WORDS = {"center": "centred", "right": "right-aligned", "justify": "justified"}


class _ShortcutFormatTask(WriterDocumentTask):
    """A format named by the ``format_param`` param, applied in the GUI by selecting the text in the
    ``select_param`` param and pressing Ctrl + the format's key in ``shortcut_keys``."""

    format_param = ""
    select_param = ""
    shortcut_keys: ClassVar[Mapping[str, str]] = {}

    def gui_oracle(self, params: Mapping[str, Any]) -> Policy:
        shortcut = self.shortcut_keys[params[self.format_param]]
        return saved_by_gui(*find_and_select(params[self.select_param]), keys("ctrl", shortcut))

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        others = [name for name in sorted(self.shortcut_keys) if name != params[self.format_param]]
        return {**params, self.format_param: others[int(rng.integers(0, len(others)))]}


class FormatSentence(_ShortcutFormatTask):
    """Make one sentence (half of a paragraph) bold, italic or underlined, and nothing else."""

    id = "writer.format_sentence"
    goal = 'Make exactly the sentence "{target}" {style}, leaving the rest of its paragraph unchanged.'
    oracles = ("api", "gui")
    tags = ("writer", "character_format")

    format_param = "style"
    select_param = "target"
    shortcut_keys = STYLE_KEYS

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        params = self.base_params(rng, count=5)
        texts = params["paragraphs"]
        first, second = texts.pop(), texts.pop()
        where = int(rng.integers(0, len(texts) + 1))
        texts.insert(where, f"{first} {second}")
        target, other = (first, second) if rng.integers(0, 2) else (second, first)
        params.update(target=target, other=other, style=str(rng.choice(sorted(STYLE_KEYS))))
        return params

    def verify(self, ctx: TaskContext) -> VerifierResult:
        p = ctx.params
        saved = self.saved(ctx)
        return all_of(
            {
                "target sentence": verify_docx_font(saved, p["target"], **{p["style"]: True}),
                "rest of the paragraph": verify_docx_font(saved, p["other"], **{p["style"]: False}),
            }
        )

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        call = f"WriterTools.set_{params['style']}(match_text={params['target']!r})"
        return saved_by_api(call)


class AlignParagraph(_ShortcutFormatTask):
    """Centre, right-align or justify one paragraph."""

    id = "writer.align_paragraph"
    goal = 'Make the paragraph that starts with "{start}" {alignment_words}; the other paragraphs stay left-aligned.'
    oracles = ("api", "gui")
    tags = ("writer", "paragraph_format")

    format_param = "alignment"
    select_param = "start"
    shortcut_keys = ALIGN_KEYS

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        params = self.base_params(rng, count=int(rng.integers(3, 5)))
        target = int(rng.integers(0, len(params["paragraphs"])))
        alignment = str(rng.choice(sorted(ALIGN_KEYS)))
        start = " ".join(params["paragraphs"][target].split()[:3])
        params.update(target=target, start=start, alignment=alignment, alignment_words=ALIGN_WORDS[alignment])
        return params

    def verify(self, ctx: TaskContext) -> VerifierResult:
        p = ctx.params
        saved = self.saved(ctx)
        other = p["paragraphs"][(p["target"] + 1) % len(p["paragraphs"])]
        return all_of(
            {
                "target paragraph": verify_docx_alignment(saved, p["paragraphs"][p["target"]], p["alignment"]),
                "another paragraph": verify_docx_alignment(saved, other, "left"),
            }
        )

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        call = f"WriterTools.set_alignment(alignment={params['alignment']!r}, paragraph={params['target'] + 1})"
        return saved_by_api(call)


FONTS = ("DejaVu Serif", "DejaVu Sans Mono", "Nimbus Sans", "URW Bookman", "P052")
SIZES = (10, 12, 13, 14, 16, 18)


class DocumentFont(WriterDocumentTask):
    """Set the font family and size of all the document's text, heading included."""

    id = "writer.document_font"
    goal = "Change the font of all its text, the heading included, to {font} at {size} pt."
    oracles = ("api", "gui")
    tags = ("writer", "character_format")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        params = self.base_params(rng, count=int(rng.integers(2, 5)))
        params.update(font=str(rng.choice(FONTS)), size=int(rng.choice(SIZES)))
        return params

    def verify(self, ctx: TaskContext) -> VerifierResult:
        p = ctx.params
        saved = self.saved(ctx)
        return all_of([verify_docx_font(saved, text, name=p["font"], size=p["size"]) for text in self.body(p)])

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        return saved_by_api(
            f"WriterTools.set_font_name(font_name={params['font']!r})",
            f"WriterTools.set_font_size(size={params['size']})",
        )

    def gui_oracle(self, params: Mapping[str, Any]) -> Policy:
        # Select everything, then type into the Formatting toolbar's font name and size boxes.
        return saved_by_gui(
            keys("ctrl", "a"),
            click_node("text", "", within=("panel", "Font Name")),
            keys("ctrl", "a"),
            typed(params["font"] + "\n"),
            click_node("text", "", within=("panel", "Font Size")),
            keys("ctrl", "a"),
            typed(f"{params['size']}\n"),
        )

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "size": params["size"] + 1}


class LineSpacing(WriterDocumentTask):
    """Set the line spacing of every paragraph (1.5 lines or double)."""

    id = "writer.line_spacing"
    goal = "Set the line spacing of every paragraph to {spacing_words} ({spacing} times single spacing)."
    oracles = ("api", "gui")
    tags = ("writer", "paragraph_format")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        params = self.base_params(rng, count=int(rng.integers(2, 5)))
        spacing = float(rng.choice((1.5, 2.0)))
        params.update(spacing=spacing, spacing_words="1.5 lines" if spacing == 1.5 else "double")
        return params

    def verify(self, ctx: TaskContext) -> VerifierResult:
        p = ctx.params
        saved = self.saved(ctx)
        return all_of([verify_docx_line_spacing(saved, text, multiple=p["spacing"]) for text in self.body(p)])

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        return saved_by_api(f"WriterTools.set_line_spacing(spacing={params['spacing']})")

    def gui_oracle(self, params: Mapping[str, Any]) -> Policy:
        # Select everything, then Format > Spacing > "Line Spacing: 1.5" (or ": 2").
        item = f"Line Spacing: {params['spacing']:g}"
        return saved_by_gui(
            keys("ctrl", "a"),
            keys("alt", "o"),
            click_node("menu", "Spacing"),
            click_node("check menu item", item, within=("menu", "Spacing")),
        )

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "spacing": 1.0}


ITEMS = (
    "Book the meeting room",
    "Send the agenda",
    "Print the handouts",
    "Order lunch",
    "Test the projector",
    "Collect the badges",
    "Update the slides",
    "Invite the guests",
)


class MakeList(WriterDocumentTask):
    """Turn the paragraphs after the introduction into a bulleted or numbered list."""

    id = "writer.make_list"
    goal = (
        'Turn the {count} paragraphs after the first paragraph (from "{first}" to "{last}") into a {kind} '
        "list; the heading and the first paragraph stay as they are."
    )
    oracles = ("api", "gui")
    tags = ("writer", "lists")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        params = self.base_params(rng, count=1)
        items = [str(item) for item in rng.choice(ITEMS, size=int(rng.integers(3, 6)), replace=False)]
        params["paragraphs"] = params["paragraphs"] + items
        params.update(items=items, count=len(items), first=items[0], last=items[-1])
        params["kind"] = str(rng.choice(("bullet", "numbered")))
        return params

    def verify(self, ctx: TaskContext) -> VerifierResult:
        p = ctx.params
        intro = [p["paragraphs"][0], p["heading"]]
        return verify_docx_list(self.saved(ctx), p["items"], p["kind"], not_items=intro)

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        last = len(params["paragraphs"])  # the heading is paragraph 0, the introduction 1, the items 2..last
        call = f"WriterTools.set_list(first_paragraph=2, last_paragraph={last}, list_type={params['kind']!r})"
        return saved_by_api(call)

    def gui_oracle(self, params: Mapping[str, Any]) -> Policy:
        toggle = keys("f12") if params["kind"] == "numbered" else keys("shift", "f12")
        return GuiScript(
            [keys("ctrl", "home"), keys("ctrl", "down"), keys("ctrl", "down"), keys("ctrl", "shift", "end"), toggle]
            + [SAVE, DONE]
        )

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "kind": "numbered" if params["kind"] == "bullet" else "bullet"}


STYLING_TASKS = (FormatSentence, AlignParagraph, DocumentFont, LineSpacing, MakeList)
