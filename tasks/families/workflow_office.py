"""Workflow tier across two apps: read a Calc table, filter and compute, and write a Writer memo.

The input is a workbook open in Calc; the result is a new docx the agent writes in Writer, with a
heading, a filtered table and a computed closing line, each checked on the saved document.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ...verifiers import (
    all_of,
    verify_docx_has_paragraph,
    verify_docx_paragraph_style,
    verify_docx_tables,
    verify_pptx_slide_titles,
    verify_pptx_text,
)
from ...verifiers.result import VerifierResult
from ..artifacts import xlsx_bytes
from ..base import Policy, TaskContext
from .multi_office import DEPARTMENTS, OfficeTransferTask, in_new_document
from .multi_slides import TOPICS, outline_docx_bytes
from .os_base import distinct_words

HEADER = ["Department", "Budget", "Spent"]


class WorkflowTransfer(OfficeTransferTask):
    """A two-app workflow task: the inputs are written and the source app opened; ``~/Documents`` exists."""

    makes_documents_folder = False


class OverspendMemo(WorkflowTransfer):
    """From a budget sheet, a memo listing only the departments over budget and the total overspend.

    No GUI oracle: two apps: a second launch, a table and Save As cost more proof time than the GUI budget left.
    """

    id = "workflow.overspend_memo"
    instruction_template = (
        "The spreadsheet {xlsx} is open in LibreOffice Calc. Write a memo as a new LibreOffice Writer document: "
        'a first paragraph "{title}" in the Heading 1 style; a table with the header row Department, Budget, '
        "Spent and one row for each department that spent more than its budget (in the spreadsheet's order); "
        'and a last paragraph "Overspend: N", where N is the total of Spent minus Budget over those '
        "departments. Save it as {docx} (Word 2007-365 format)."
    )
    apps = ("calc", "writer")
    oracles = ("api",)
    tags = ("workflow", "multi", "calc", "writer")
    max_steps = 25

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        stem = distinct_words(rng, 1)[0]
        count = int(rng.integers(4, 7))
        names = [str(name) for name in rng.choice(DEPARTMENTS, size=count, replace=False)]
        over = set(rng.choice(count, size=int(rng.integers(1, count)), replace=False).tolist())
        rows = []
        for index, name in enumerate(names):
            budget = int(rng.integers(20, 90)) * 100
            delta = int(rng.integers(1, 15)) * 100
            rows.append([name, budget, budget + delta if index in over else budget - delta])
        return {
            "xlsx": f"~/Documents/{stem}_budget.xlsx",
            "docx": f"~/Documents/{stem}_memo.docx",
            "title": f"Overspend report {stem.title()}",
            "rows": rows,
        }

    @staticmethod
    def over_budget(params: Mapping[str, Any]) -> list[list[Any]]:
        return [list(row) for row in params["rows"] if row[2] > row[1]]

    def input_files(self, params: Mapping[str, Any]) -> dict[str, bytes]:
        return {params["xlsx"]: xlsx_bytes([HEADER, *params["rows"]], sheet_title="Budget")}

    def source(self, params: Mapping[str, Any]) -> tuple[str, str]:
        return "calc", params["xlsx"]

    def verify(self, ctx: TaskContext) -> VerifierResult:
        p = ctx.params
        over = self.over_budget(p)
        total = sum(spent - budget for _, budget, spent in over)
        data = ctx.read_file(p["docx"])
        return all_of(
            {
                "heading": verify_docx_paragraph_style(data, p["title"], heading=1),
                "filtered table": verify_docx_tables(data, count=1, expected_rows=[HEADER, *over]),
                "overspend line last": verify_docx_has_paragraph(data, f"Overspend: {total}", last=True),
            }
        )

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        over = self.over_budget(params)
        total = sum(spent - budget for _, budget, spent in over)
        table = [HEADER, *over]
        return in_new_document(
            "writer",
            [
                f"WriterTools.insert_paragraph(index=0, text={params['title']!r}, style='Heading 1')",
                f"WriterTools.insert_table(rows={len(table)}, columns=3, data={table!r})",
                f"WriterTools.append_paragraph(text={f'Overspend: {total}'!r})",
                f"WriterTools.save(path={params['docx']!r}, file_format='docx')",
            ],
        )

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        rows = [list(row) for row in params["rows"]]
        under = [i for i, row in enumerate(rows) if row[2] <= row[1]]
        index = int(rng.choice(under)) if under else 0
        rows[index][2] = rows[index][1] + 100 if index in under else rows[index][1] - 100
        return {**params, "rows": rows}


class OutlineToDeck(WorkflowTransfer):
    """A Writer outline -> an Impress deck: a title slide, then one slide per heading with its note as body.

    No GUI oracle: two apps: a second launch, slides and Save As cost more proof time than the GUI budget left.
    """

    id = "workflow.outline_to_deck"
    instruction_template = (
        "The outline {docx} is open in LibreOffice Writer. Turn it into a new LibreOffice Impress presentation: "
        'slide 1 titled with the outline\'s first line ("{title}"), then one slide per Heading 1 heading in '
        "the same order, each titled with the heading and with the sentence below that heading as its body "
        "text. Save it as {pptx} (PowerPoint 2007-365 format)."
    )
    apps = ("writer", "impress")
    oracles = ("api",)
    tags = ("workflow", "multi", "writer", "impress")
    max_steps = 30

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        stem = distinct_words(rng, 1)[0]
        headings = [str(t) for t in rng.choice(TOPICS, size=int(rng.integers(2, 4)), replace=False)]
        notes = [f"{heading} is owned by team {distinct_words(rng, 1)[0]}." for heading in headings]
        return {
            "docx": f"~/Documents/{stem}_outline.docx",
            "pptx": f"~/Documents/{stem}_deck.pptx",
            "title": f"{stem.title()} quarterly review",
            "headings": headings,
            "notes": notes,
        }

    def input_files(self, params: Mapping[str, Any]) -> dict[str, bytes]:
        sections = list(zip(params["headings"], params["notes"], strict=True))
        return {params["docx"]: outline_docx_bytes(params["title"], sections)}

    def source(self, params: Mapping[str, Any]) -> tuple[str, str]:
        return "writer", params["docx"]

    def verify(self, ctx: TaskContext) -> VerifierResult:
        p = ctx.params
        data = ctx.read_file(p["pptx"])
        checks = {"titles": verify_pptx_slide_titles(data, [p["title"], *p["headings"]])}
        for number, note in enumerate(p["notes"], start=2):
            checks[f"slide {number} body"] = verify_pptx_text(data, note, slide=number, match="shape")
        return all_of(checks)

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        calls = [f"ImpressTools.set_title(slide=1, title={params['title']!r})"]
        for number, (heading, note) in enumerate(zip(params["headings"], params["notes"], strict=True), start=2):
            calls.append(f"ImpressTools.add_slide(layout='title_content', title={heading!r})")
            calls.append(f"ImpressTools.set_placeholder_text(slide={number}, placeholder='body', text={note!r})")
        calls.append(f"ImpressTools.save(path={params['pptx']!r}, file_format='pptx')")
        return in_new_document("impress", calls)

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        notes = list(params["notes"])
        notes[int(rng.integers(len(notes)))] += " Draft."
        return {**params, "notes": notes}
