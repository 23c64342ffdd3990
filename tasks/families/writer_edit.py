"""Writer families that edit text: insert a paragraph or a heading, delete a paragraph, replace words."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ...verifiers import all_of, verify_docx_paragraph_style
from ...verifiers.result import VerifierResult
from ..base import Policy, TaskContext
from ..gui_script import GuiScript
from .samples import KEYWORDS
from .writer_base import (
    DONE,
    SAVE,
    WriterDocumentTask,
    click_node,
    keys,
    saved_by_api,
    saved_by_gui,
    typed,
    when_present,
)

FIND_REPLACE = ("dialog", "Find and Replace")


class InsertParagraphAfter(WriterDocumentTask):
    """Insert a given sentence as a new paragraph right after the paragraph that starts with given words."""

    id = "writer.insert_paragraph_after"
    goal = (
        "Insert a new paragraph with exactly this text: {sentence} It must come directly after the paragraph "
        'that starts with "{anchor}".'
    )
    oracles = ("api", "gui")
    tags = ("writer", "text")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        params = self.base_params(rng, count=int(rng.integers(4, 7)))
        params["sentence"] = params["paragraphs"].pop()  # a distinct subject, so "starts with" stays unique
        params["after"] = int(rng.integers(0, len(params["paragraphs"]) - 1))  # never after the last one
        params["anchor"] = " ".join(params["paragraphs"][params["after"]].split()[:3])
        return params

    def expected(self, params: Mapping[str, Any]) -> list[str]:
        texts = list(params["paragraphs"])
        texts.insert(params["after"] + 1, params["sentence"])
        return self.body(params, texts)

    def verify(self, ctx: TaskContext) -> VerifierResult:
        return self.verify_text_equals(ctx, self.expected(ctx.params))

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        index = params["after"] + 2  # the heading is paragraph 0; insert before the anchor's successor
        return saved_by_api(f"WriterTools.insert_paragraph(index={index}, text={params['sentence']!r})")

    def gui_oracle(self, params: Mapping[str, Any]) -> Policy:
        # ctrl+down jumps to the start of the next paragraph: heading -> ... -> the anchor's successor.
        moves = [keys("ctrl", "down")] * (params["after"] + 2)
        return saved_by_gui(keys("ctrl", "home"), *moves, typed(params["sentence"]), keys("enter"))

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "sentence": params["sentence"][:-1] + "!"}


class InsertHeading(WriterDocumentTask):
    """Add a heading of a given level above the first paragraph of a document that has none."""

    id = "writer.insert_heading"
    goal = (
        'Add the heading "{title}" at the very top of the document, as its own paragraph in the paragraph '
        "style Heading {level}."
    )
    oracles = ("api", "gui")
    tags = ("writer", "styles")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        params = self.base_params(rng, count=int(rng.integers(2, 5)), heading=False)
        params["title"] = f"{rng.choice(KEYWORDS).capitalize()} {rng.choice(('Overview', 'Findings', 'Agenda'))}"
        params["level"] = int(rng.integers(1, 4))
        return params

    def verify(self, ctx: TaskContext) -> VerifierResult:
        p = ctx.params
        saved = self.saved(ctx)
        return all_of(
            {
                "text": self.verify_text_equals(ctx, [p["title"], *p["paragraphs"]]),
                "heading level": verify_docx_paragraph_style(saved, p["title"], heading=p["level"]),
            }
        )

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        return saved_by_api(
            f"WriterTools.insert_paragraph(index=0, text={params['title']!r}, style='Heading {params['level']}')"
        )

    def gui_oracle(self, params: Mapping[str, Any]) -> Policy:
        # Enter at the start of the first paragraph opens an empty one above it; ctrl+N sets Heading N.
        return saved_by_gui(
            keys("ctrl", "home"), keys("enter"), keys("up"), typed(params["title"]), keys("ctrl", str(params["level"]))
        )

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "level": params["level"] % 3 + 1}


class DeleteParagraph(WriterDocumentTask):
    """Delete the one paragraph that starts with given words, leaving the others untouched."""

    id = "writer.delete_paragraph"
    goal = 'Delete the whole paragraph that starts with "{start}", leaving every other paragraph as it is.'
    oracles = ("api", "gui")
    tags = ("writer", "text")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        params = self.base_params(rng, count=int(rng.integers(3, 6)))
        params["target"] = int(rng.integers(0, len(params["paragraphs"])))
        params["start"] = " ".join(params["paragraphs"][params["target"]].split()[:3])
        return params

    def verify(self, ctx: TaskContext) -> VerifierResult:
        p = ctx.params
        kept = [text for index, text in enumerate(p["paragraphs"]) if index != p["target"]]
        return self.verify_text_equals(ctx, self.body(p, kept))

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        return saved_by_api(f"WriterTools.delete_paragraph(paragraph={params['target'] + 1})")

    def gui_oracle(self, params: Mapping[str, Any]) -> Policy:
        moves = [keys("ctrl", "down")] * (params["target"] + 1)
        # Select to the paragraph's end, delete the text, then the (now empty) paragraph's break.
        return saved_by_gui(keys("ctrl", "home"), *moves, keys("ctrl", "shift", "down"), keys("delete"), keys("delete"))

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "target": (params["target"] + 1) % len(params["paragraphs"])}


REFERENCES = ("Project {w} depends on it.", "This matters for the {w} account.", "Ask the {w} desk for details.")


class ReplaceWord(WriterDocumentTask):
    """Replace every occurrence of a name with another one (Find & Replace)."""

    id = "writer.replace_word"
    goal = 'Replace every occurrence of the word "{old}" with "{new}" throughout the document.'
    oracles = ("api", "gui")
    tags = ("writer", "find_replace")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        params = self.base_params(rng, count=4)
        old, new = (str(w).capitalize() for w in rng.choice(KEYWORDS, size=2, replace=False))
        hits = sorted(int(i) for i in rng.choice(4, size=int(rng.integers(2, 4)), replace=False))
        params["paragraphs"] = [
            f"{text} {REFERENCES[int(rng.integers(0, 3))].format(w=old)}" if index in hits else text
            for index, text in enumerate(params["paragraphs"])
        ]
        params.update(old=old, new=new)
        return params

    def verify(self, ctx: TaskContext) -> VerifierResult:
        p = ctx.params
        return self.verify_text_equals(ctx, [text.replace(p["old"], p["new"]) for text in self.body(p)])

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        call = f"WriterTools.find_replace(find={params['old']!r}, replace={params['new']!r}, match_case=True)"
        return saved_by_api(call)

    def gui_oracle(self, params: Mapping[str, Any]) -> Policy:
        return GuiScript(replace_all_steps(params["old"], params["new"]) + [SAVE, DONE])

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "new": params["new"] + "s"}


def replace_all_steps(find: str, replace: str, regex: bool = False) -> list[Any]:
    """GUI steps: Find & Replace (ctrl+h), type both texts, Replace All, Close; pointer targets from the a11y tree."""
    steps: list[Any] = [keys("ctrl", "h"), when_present(*FIND_REPLACE, typed(find))]
    if regex:
        steps.append(click_node("check box", "Regular expressions", within=FIND_REPLACE))
    steps += [
        click_node("text", "", within=("panel", "Replace With")),
        typed(replace),
        click_node("push button", "Replace All", within=FIND_REPLACE),
        click_node("push button", "Close", within=FIND_REPLACE),
    ]
    return steps


class ReformatDates(WriterDocumentTask):
    """Rewrite every DD/MM/YYYY date as ISO YYYY-MM-DD (a regular-expression replace)."""

    id = "writer.reformat_dates"
    goal = (
        "It contains dates written as DD/MM/YYYY. Rewrite every one of them as YYYY{sep}MM{sep}DD (for example "
        "{example_old} becomes {example_new}), changing nothing else."
    )
    oracles = ("api", "gui")
    tags = ("writer", "find_replace", "regex")

    FIND = "([0-9]{2})/([0-9]{2})/([0-9]{4})"

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        params = self.base_params(rng, count=4)
        hits = sorted(int(i) for i in rng.choice(4, size=int(rng.integers(2, 5)), replace=False))
        dates = [(int(rng.integers(1, 29)), int(rng.integers(1, 13)), int(rng.integers(2019, 2031))) for _ in hits]
        texts = list(params["paragraphs"])
        for index, (day, month, year) in zip(hits, dates, strict=True):
            texts[index] += f" The next review is due on {day:02d}/{month:02d}/{year}."
        params.update(paragraphs=texts, sep="-", example_old="31/01/2025", example_new="2025-01-31")
        return params

    def verify(self, ctx: TaskContext) -> VerifierResult:
        import re

        p = ctx.params
        iso = [re.sub(self.FIND, rf"\3{p['sep']}\2{p['sep']}\1", text) for text in self.body(p)]
        return self.verify_text_equals(ctx, iso)

    def _replacement(self, params: Mapping[str, Any]) -> str:
        return f"$3{params['sep']}$2{params['sep']}$1"

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        call = f"WriterTools.find_replace(find={self.FIND!r}, replace={self._replacement(params)!r}, regex=True)"
        return saved_by_api(call)

    def gui_oracle(self, params: Mapping[str, Any]) -> Policy:
        return GuiScript(replace_all_steps(self.FIND, self._replacement(params), regex=True) + [SAVE, DONE])

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "sep": "."}


EDIT_TASKS = (InsertParagraphAfter, InsertHeading, DeleteParagraph, ReplaceWord, ReformatDates)
