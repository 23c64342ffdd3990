"""Workflow tier, Writer page setup: a letter set up for posting in several distinct operations (paper
size, side margins, one font for the body, a letterhead in the page header), each checked on the saved
docx together with its unchanged text. One Writer launch, API oracle (cheap to prove).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ...verifiers import all_of, verify_docx_header_footer, verify_docx_page_setup, verify_docx_run_fonts
from ...verifiers.result import VerifierResult
from ..base import Policy, TaskContext
from .multi_slides import TOPICS
from .writer_base import WriterDocumentTask, saved_by_api

PAPERS = {"letter": "Letter", "a4": "A4"}
MARGINS_CM = (1.5, 2.0, 2.5, 3.0)
FONTS = ("Liberation Serif", "Liberation Sans", "DejaVu Sans")


class LetterSetup(WriterDocumentTask):
    """Paper size, equal side margins, one font for all body text, and a letterhead in the page header.

    No GUI oracle: paper, margins and header go through the Page Style dialog, more proof time than the GUI budget left.
    """

    id = "workflow.letter_setup"
    instruction_template = (
        "The letter {path} is open in LibreOffice Writer. Set it up for posting: use {paper_name} paper, set "
        'the left and right page margins to {margin} cm, set the font of all the text to "{font}", and put '
        '"{letterhead}" in the page header. Change no text, then save the document in its current docx '
        "format."
    )
    oracles = ("api",)
    tags = ("workflow", "writer", "layout", "format", "domain:writer")
    max_steps = 30

    document = "~/Documents/letter.docx"

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        params = self.base_params(rng, count=int(rng.integers(2, 5)))
        paper = str(rng.choice(list(PAPERS)))
        return {
            **params,
            "paper": paper,
            "paper_name": PAPERS[paper],
            "margin": float(rng.choice(MARGINS_CM)),
            "font": str(rng.choice(FONTS)),
            "letterhead": f"{rng.choice(TOPICS)} Office, {int(rng.integers(2, 99))} Harbour Road",
        }

    def verify(self, ctx: TaskContext) -> VerifierResult:
        p = ctx.params
        data = self.saved(ctx)
        margins = {"left": p["margin"], "right": p["margin"]}  # Word files count a header into the top margin
        return all_of(
            {
                "text unchanged": self.verify_text_equals(ctx, self.body(p)),
                "paper and margins": verify_docx_page_setup(data, margins_cm=margins, page_size=p["paper_name"]),
                "font": verify_docx_run_fonts(data, name=p["font"]),
                "letterhead": verify_docx_header_footer(data, p["letterhead"], part="header"),
            }
        )

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        margin = params["margin"]
        return saved_by_api(
            f"WriterTools.set_paper_size(paper={params['paper']!r})",
            f"WriterTools.set_page_margins(left_cm={margin}, right_cm={margin})",
            f"WriterTools.set_font_name(font_name={params['font']!r})",
            f"WriterTools.set_header_text(text={params['letterhead']!r})",
        )

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "margin": next(margin for margin in MARGINS_CM if margin != params["margin"])}
