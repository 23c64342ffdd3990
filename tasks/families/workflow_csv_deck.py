"""Workflow tier, an Impress deck made from a CSV file in the home: one slide per milestone row, one
transition everywhere, the deck saved and exported as PDF.

The CSV is only a file (``OSTools`` reads it, or a terminal or editor the agent opens); Impress is the
one app launched, so the proof costs one launch. API oracle; the verifier reads the saved pptx (slide
titles, each new slide's body, transitions) and the PDF's page count.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ...verifiers import all_of, verify_pdf_pages, verify_pptx_slide_titles, verify_pptx_text, verify_pptx_transitions
from ...verifiers.result import VerifierResult
from ..base import Policy, TaskContext
from .impress_deck import PROJECTS, DeckTask, api_call, saved_by_api
from .samples import PEOPLE, distinct_ints, draw
from .workflow_deck_finish import EFFECTS

MILESTONES = (
    "Design signed off", "Prototype ready", "Supplier chosen", "Beta released", "Training done",
    "Budget approved", "Site opened", "Audit passed", "Launch event",
)  # fmt: skip
MILESTONE_HEADER = ("milestone", "due", "owner")


class MilestoneDeck(DeckTask):
    """A slide per CSV row (title and body from its fields), one transition on every slide, a PDF export.

    No GUI oracle: new slides' placeholders and the PDF dialog cost more proof time than the GUI budget left.
    """

    id = "workflow.milestone_deck"
    instruction_template = (
        "The presentation {path} is open in LibreOffice Impress; the project's milestones are in the file {csv} "
        '(columns milestone, due, owner). After the title slide add one "Title, Content" slide per row of the '
        "file, in the file's order, titled with the milestone and with the body text \"Due <due>, owner "
        '<owner>" (for example "Due 2026-01-31, owner Ana"); give every slide the "{effect}" slide '
        "transition; save the file in its current pptx format; and export the presentation as a PDF to {pdf}."
    )
    oracles = ("api",)
    tags = ("workflow", "impress", "export", "domain:impress")
    max_steps = 30

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        count = int(rng.integers(2, 4))
        months = sorted(distinct_ints(rng, 1, 13, count))
        rows = [
            [milestone, f"2026-{month:02d}-{int(rng.integers(1, 29)):02d}", owner]
            for milestone, month, owner in zip(
                draw(rng, MILESTONES, count), months, draw(rng, PEOPLE, count), strict=True
            )
        ]
        project = str(rng.choice(PROJECTS))
        return {
            "path": f"~/Documents/{project.lower()}_plan.pptx",
            "titles": [f"Project {project} milestones"],
            "bodies": [[]],
            "csv": f"~/Documents/{project.lower()}_milestones.csv",
            "rows": rows,
            "effect": str(rng.choice(EFFECTS)),
            "pdf": f"~/Documents/{project.lower()}_plan.pdf",
        }

    def write_inputs(self, ctx: TaskContext) -> None:
        lines = [",".join(row) for row in [MILESTONE_HEADER, *ctx.params["rows"]]]
        ctx.client.put_file(ctx.params["csv"], ("\n".join(lines) + "\n").encode())

    @staticmethod
    def body(row: list[str]) -> str:
        """A milestone slide's body text."""
        return f"Due {row[1]}, owner {row[2]}"

    def verify(self, ctx: TaskContext) -> VerifierResult:
        p = ctx.params
        data = self.saved(ctx)
        checks = {
            "slides": verify_pptx_slide_titles(data, [*p["titles"], *(row[0] for row in p["rows"])]),
            "transitions": verify_pptx_transitions(data, transition_type=p["effect"]),
            "pdf export": verify_pdf_pages(ctx.read_file(p["pdf"]), len(p["rows"]) + 1),
        }
        for number, row in enumerate(p["rows"], start=2):
            checks[f"slide {number} body"] = verify_pptx_text(data, self.body(row), slide=number, match="shape")
        return all_of(checks)

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        calls = [f"OSTools.read_text_file(path={params['csv']!r})"]
        for number, row in enumerate(params["rows"], start=2):
            calls.append(api_call("add_slide", layout="title_content", title=row[0]))
            calls.append(api_call("set_placeholder_text", slide=number, placeholder="body", text=self.body(row)))
        return saved_by_api(
            *calls,
            api_call("set_transition", slide=None, effect=params["effect"]),
            api_call("save", path=params["pdf"], file_format="pdf"),
        )

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        rows = [list(row) for row in params["rows"]]
        rows[-1][1] = rows[-1][1].replace("2026-", "2027-")
        return {**params, "rows": rows}
