"""Workflow tier, Writer: a status memo finished in several distinct operations (a table of rows
given in the instruction, a page header, a centred heading, a closing line after the table), each
checked on the saved docx. One Writer launch, API and GUI oracles.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ...verifiers import (
    all_of,
    verify_docx_alignment,
    verify_docx_has_paragraph,
    verify_docx_header_footer,
    verify_docx_tables,
)
from ...verifiers.result import VerifierResult
from ..base import Policy, TaskContext
from .samples import PEOPLE
from .workflow_csv_writer import table_at_end
from .writer_base import WriterDocumentTask, keys, saved_by_api, saved_by_gui, typed
from .writer_layout import open_header_or_footer

# Capitalised as Writer's AutoCorrect would type them at the start of a cell, so the check can stay case-exact.
STATUSES = ("Done", "In progress", "Blocked", "Not started")
WORK = ("Budget", "Hiring", "Launch plan", "Vendor review", "Training", "Website", "Audit", "Survey")
CLOSING = "Next update in one week."


class StatusTable(WriterDocumentTask):
    """Add a status table at the end, a page header, centre the heading, and a closing line below the table."""

    id = "workflow.status_table"
    instruction_template = (
        "The memo {path} is open in LibreOffice Writer. Finish the status update: at the end of the document "
        "add a table with the header row Item | Owner | Status and one row per item, in this order: {listing}; "
        'put "{header}" in the page header; centre the heading "{heading}"; and add the paragraph '
        '"{closing}" after the table, as the last paragraph. Change no other text, then save the document in '
        "its current docx format."
    )
    oracles = ("api", "gui")
    tags = ("workflow", "writer", "table", "domain:writer")
    max_steps = 30

    document = "~/Documents/status.docx"

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        params = self.base_params(rng, count=int(rng.integers(2, 4)))
        count = int(rng.integers(2, 5))
        items = [str(item) for item in rng.choice(WORK, size=count, replace=False)]
        owners = [str(owner) for owner in rng.choice(PEOPLE, size=count, replace=False)]
        rows = [[item, owner, str(rng.choice(STATUSES))] for item, owner in zip(items, owners, strict=True)]
        listing = "; ".join(f"{item}, {owner}, {status}" for item, owner, status in rows)
        return {**params, "rows": rows, "listing": listing, "header": f"{params['heading']} status", "closing": CLOSING}

    def verify(self, ctx: TaskContext) -> VerifierResult:
        p = ctx.params
        data = self.saved(ctx)
        return all_of(
            {
                "table": verify_docx_tables(data, count=1, expected_rows=[["Item", "Owner", "Status"], *p["rows"]]),
                "page header": verify_docx_header_footer(data, p["header"], part="header"),
                "heading centred": verify_docx_alignment(data, p["heading"], "center"),
                "closing last": verify_docx_has_paragraph(data, p["closing"], last=True),
                "first paragraph kept": verify_docx_has_paragraph(data, p["paragraphs"][0]),
            }
        )

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        rows = [["Item", "Owner", "Status"], *params["rows"]]
        return saved_by_api(
            f"WriterTools.insert_table(rows={len(rows)}, columns=3, data={rows!r})",
            f"WriterTools.set_header_text(text={params['header']!r})",
            "WriterTools.set_alignment(alignment='center', paragraph=0)",
            f"WriterTools.append_paragraph(text={params['closing']!r})",
        )

    def gui_oracle(self, params: Mapping[str, Any]) -> Policy:
        return saved_by_gui(
            keys("ctrl", "home"),
            keys("ctrl", "e"),
            *table_at_end([["Item", "Owner", "Status"], *params["rows"]]),
            typed(params["closing"]),
            *open_header_or_footer("header"),
            typed(params["header"]),
        )

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        rows = [list(row) for row in params["rows"]]
        rows[0][2] = next(status for status in STATUSES if status != rows[0][2])
        return {**params, "rows": rows}
