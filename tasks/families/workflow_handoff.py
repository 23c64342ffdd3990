"""Workflow tier, documents handed on: a deck given an agenda and transitions and exported as PDF,
meeting minutes renamed, listed and footed, and a Calc ranking turned into a new Impress deck.

Each family needs three or more distinct operations, one app launch for its input (the two-app
one opens the second app itself), and has an API oracle; all are judged on the saved files.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ...verifiers import (
    all_of,
    verify_docx_header_footer,
    verify_docx_list,
    verify_docx_paragraph_style,
    verify_pdf_pages,
    verify_pptx_slide_titles,
    verify_pptx_text,
    verify_pptx_transitions,
)
from ...verifiers.result import VerifierResult
from ..artifacts import xlsx_bytes
from ..base import Policy, TaskContext
from ..gui_script import GuiScript
from .impress_deck import DeckTask, api_call, sample_deck, saved_by_api
from .multi_office import in_new_document
from .os_base import distinct_words
from .samples import ITEMS, PEOPLE, distinct_ints, draw, ints
from .workflow_deck_finish import EFFECTS
from .workflow_office import WorkflowTransfer
from .writer_base import DONE, SAVE, SUBJECTS, WriterDocumentTask, keys, typed
from .writer_base import saved_by_api as writer_saved_by_api
from .writer_edit import replace_all_steps
from .writer_layout import open_header_or_footer


class DeckAgenda(DeckTask):
    """Insert an agenda slide listing the other slides, one transition everywhere, save, export a PDF.

    No GUI oracle: a new slide's placeholders and the PDF dialog cost more proof time than the GUI budget left.
    """

    id = "workflow.deck_agenda"
    instruction_template = (
        "The presentation {path} is open in LibreOffice Impress. Prepare it for the meeting: insert a new slide "
        '2 titled "Agenda" whose body lists, one per line, the titles of the slides that follow it, in order; '
        'give every slide the "{effect}" slide transition; save the file in its current pptx format; and '
        "export the presentation as a PDF to {pdf}."
    )
    oracles = ("api",)
    tags = ("workflow", "impress", "export", "domain:impress")
    max_steps = 30

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        deck = sample_deck(rng, min_slides=3, max_slides=5)
        pdf = deck["path"].removesuffix(".pptx") + "_handout.pdf"
        return {**deck, "effect": str(rng.choice(EFFECTS)), "pdf": pdf}

    def verify(self, ctx: TaskContext) -> VerifierResult:
        p = ctx.params
        data = self.saved(ctx)
        first, *rest = p["titles"]
        return all_of(
            {
                "agenda slide": verify_pptx_slide_titles(data, [first, "Agenda", *rest]),
                "agenda lists the slides": verify_pptx_text(data, " ".join(rest), slide=2, match="shape"),
                "transitions": verify_pptx_transitions(data, transition_type=p["effect"]),
                "pdf export": verify_pdf_pages(ctx.read_file(p["pdf"]), len(p["titles"]) + 1),
            }
        )

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        return saved_by_api(
            api_call("add_slide", position=2, layout="title_content", title="Agenda"),
            api_call("set_placeholder_text", slide=2, placeholder="body", text="\n".join(params["titles"][1:])),
            api_call("set_transition", slide=None, effect=params["effect"]),
            api_call("save", path=params["pdf"], file_format="pdf"),
        )

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "effect": next(effect for effect in EFFECTS if effect != params["effect"])}


NEW_TEAMS = ("The steering group", "The core team", "The project board", "The works council")


class MinutesTidy(WriterDocumentTask):
    """Rename a team by find-and-replace, style the title, bullet the later paragraphs, sign the footer."""

    id = "workflow.minutes_tidy"
    instruction_template = (
        'The minutes {path} are open in LibreOffice Writer. Tidy them: "{old}" is now called "{new}", so '
        'replace that name wherever it occurs; make the title "{heading}" a level-1 heading; turn every '
        'paragraph after the first one below the title into a bulleted list; and put "{footer}" in the page '
        "footer. Change no other text, then save the document in its current docx format."
    )
    oracles = ("api", "gui")
    tags = ("workflow", "writer", "find-replace", "list", "domain:writer")
    max_steps = 30

    document = "~/Documents/minutes.docx"

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        params = self.base_params(rng, count=int(rng.integers(3, 6)))
        target = int(rng.integers(0, len(params["paragraphs"])))
        old = next(name for name in SUBJECTS if params["paragraphs"][target].startswith(name))
        footer = f"Minutes taken by {rng.choice(PEOPLE)}"
        return {**params, "old": old, "new": str(rng.choice(NEW_TEAMS)), "footer": footer}

    @staticmethod
    def renamed(params: Mapping[str, Any]) -> list[str]:
        return [paragraph.replace(params["old"], params["new"]) for paragraph in params["paragraphs"]]

    def verify(self, ctx: TaskContext) -> VerifierResult:
        p = ctx.params
        data = self.saved(ctx)
        first, *later = self.renamed(p)
        return all_of(
            {
                "text renamed, nothing else changed": self.verify_text_equals(ctx, self.body(p, [first, *later])),
                "title is a heading": verify_docx_paragraph_style(data, p["heading"], heading=1),
                "later paragraphs bulleted": verify_docx_list(data, later, "bullet", not_items=[first]),
                "footer": verify_docx_header_footer(data, p["footer"], part="footer"),
            }
        )

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        last = len(params["paragraphs"])  # the heading is paragraph 0
        return writer_saved_by_api(
            f"WriterTools.find_replace(find={params['old']!r}, replace={params['new']!r}, match_case=True)",
            "WriterTools.set_heading(paragraph=0, level=1)",
            f"WriterTools.set_list(first_paragraph=2, last_paragraph={last}, list_type='bullet')",
            f"WriterTools.set_footer_text(text={params['footer']!r})",
        )

    def gui_oracle(self, params: Mapping[str, Any]) -> Policy:
        # Replace All; Ctrl+1 on the title; from the second body paragraph to the end, Shift+F12 bullets.
        return GuiScript(
            [
                *replace_all_steps(params["old"], params["new"]),
                keys("ctrl", "home"),
                keys("ctrl", "1"),
                keys("ctrl", "down"),
                keys("ctrl", "down"),
                keys("ctrl", "shift", "end"),
                keys("shift", "f12"),
                *open_header_or_footer("footer"),
                typed(params["footer"]),
                SAVE,
                DONE,
            ]
        )

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "footer": params["footer"].replace("Minutes taken", "Notes taken")}


class TopItemsDeck(WorkflowTransfer):
    """From a Calc units table, a new Impress deck: a title slide and a slide ranking the top items.

    No GUI oracle: two apps: a second launch and Save As cost more proof time than the GUI budget left.
    """

    id = "workflow.top_items_deck"
    instruction_template = (
        "The spreadsheet {xlsx} is open in LibreOffice Calc. Make a new LibreOffice Impress presentation: slide "
        '1 titled "{title}", and slide 2 titled "Top {top} items" whose body lists the {top} items with the '
        'most units, most first, one per line, each written as "Item: units" (for example "Figs: 12"). Save '
        "it as {pptx} (PowerPoint 2007-365 format)."
    )
    apps = ("calc", "impress")
    oracles = ("api",)
    tags = ("workflow", "multi", "calc", "impress", "domain:multi_app")
    max_steps = 25

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        stem = distinct_words(rng, 1)[0]
        count = int(rng.integers(5, 8))
        units = distinct_ints(rng, 3, 300, count)
        regions = ints(rng, 1, 5, count)
        rows = [
            [item, unit, f"Store {store}"]
            for item, unit, store in zip(draw(rng, ITEMS, count), units, regions, strict=True)
        ]
        return {
            "xlsx": f"~/Documents/{stem}_units.xlsx",
            "pptx": f"~/Documents/{stem}_top.pptx",
            "title": f"{stem.title()} sales review",
            "top": 3,
            "rows": rows,
        }

    @staticmethod
    def lines(params: Mapping[str, Any]) -> list[str]:
        ranked = sorted(params["rows"], key=lambda row: row[1], reverse=True)[: params["top"]]
        return [f"{item}: {units}" for item, units, _ in ranked]

    def input_files(self, params: Mapping[str, Any]) -> dict[str, bytes]:
        return {params["xlsx"]: xlsx_bytes([["Item", "Units", "Store"], *params["rows"]], sheet_title="Units")}

    def source(self, params: Mapping[str, Any]) -> tuple[str, str]:
        return "calc", params["xlsx"]

    def verify(self, ctx: TaskContext) -> VerifierResult:
        p = ctx.params
        data = ctx.read_file(p["pptx"])
        return all_of(
            {
                "titles": verify_pptx_slide_titles(data, [p["title"], f"Top {p['top']} items"]),
                "ranking": verify_pptx_text(data, " ".join(self.lines(p)), slide=2, match="shape"),
            }
        )

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        return in_new_document(
            "impress",
            [
                api_call("set_title", slide=1, title=params["title"]),
                api_call("add_slide", layout="title_content", title=f"Top {params['top']} items"),
                api_call("set_placeholder_text", slide=2, placeholder="body", text="\n".join(self.lines(params))),
                api_call("save", path=params["pptx"], file_format="pptx"),
            ],
        )

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        rows = [list(row) for row in params["rows"]]
        best = max(range(len(rows)), key=lambda index: rows[index][1])
        rows[best][1] += 1
        return {**params, "rows": rows}
