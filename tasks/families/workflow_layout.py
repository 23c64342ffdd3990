"""Workflow tier, Writer page layout: a report laid out in several distinct operations (heading
style, landscape pages, page numbers, a page break), each checked on the saved document together
with its unchanged text. One Writer launch, API oracle (cheap to prove).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ...verifiers import (
    all_of,
    verify_docx_page_breaks,
    verify_docx_page_number,
    verify_docx_page_setup,
    verify_docx_paragraph_style,
)
from ...verifiers.result import VerifierResult
from ..base import Policy, TaskContext
from .writer_base import WriterDocumentTask, saved_by_api

ALIGNMENTS = ("left", "center", "right")


class ReportLayout(WriterDocumentTask):
    """Title as heading 1, landscape pages, footer page numbers, a page break before the last paragraph.

    No GUI oracle: landscape pages go through the Page Style dialog, more proof time than the GUI budget left.
    """

    id = "workflow.report_layout"
    instruction_template = (
        'The report {path} is open in LibreOffice Writer. Lay it out for printing: make the title "{heading}" '
        "a level-1 heading, set the pages to landscape, show page numbers in the footer aligned {alignment}, "
        'and start the last paragraph (the one beginning "{last_start}") on a new page. Change no text, then '
        "save the document in its current docx format."
    )
    oracles = ("api",)
    tags = ("workflow", "writer", "layout", "domain:writer")
    max_steps = 30

    document = "~/Documents/report.docx"

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        params = self.base_params(rng, count=int(rng.integers(3, 6)))
        last_start = " ".join(params["paragraphs"][-1].split()[:3])
        return {**params, "alignment": str(rng.choice(ALIGNMENTS)), "last_start": last_start}

    def verify(self, ctx: TaskContext) -> VerifierResult:
        p = ctx.params
        data = self.saved(ctx)
        return all_of(
            {
                "text unchanged": self.verify_text_equals(ctx, self.body(p)),
                "title is a heading": verify_docx_paragraph_style(data, p["heading"], heading=1),
                "landscape": verify_docx_page_setup(data, orientation="landscape"),
                "page numbers": verify_docx_page_number(data, part="footer", alignment=p["alignment"]),
                "break before the last paragraph": verify_docx_page_breaks(data, before_text=p["last_start"]),
            }
        )

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        last = len(params["paragraphs"])  # the heading is paragraph 0
        return saved_by_api(
            "WriterTools.set_heading(paragraph=0, level=1)",
            "WriterTools.set_page_orientation(orientation='landscape')",
            f"WriterTools.insert_page_numbers(position='footer', alignment={params['alignment']!r})",
            f"WriterTools.insert_page_break(paragraph={last})",
        )

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        others = [alignment for alignment in ALIGNMENTS if alignment != params["alignment"]]
        return {**params, "alignment": str(rng.choice(others))}
