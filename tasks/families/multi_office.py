"""Multi-app families into Calc and Writer: CSV -> xlsx with a total, Calc table -> Writer table,
text file -> Writer paragraphs.

The input sits in one app (the text editor or Calc); the result is a new document the agent makes
in another app and saves under a given path. API oracles start the target app with ``open_app``
(which also gives it the focus, so its API is offered under the default ``api_scope="focused"``),
call its API and save; verifiers read only the saved file.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import numpy as np

from ...verifiers import (
    all_of,
    verify_document_text,
    verify_docx_paragraph_style,
    verify_docx_tables,
    verify_sheet_table,
)
from ...verifiers.result import VerifierResult
from ..artifacts import xlsx_bytes
from ..base import Policy, ScriptedPolicy, Task, TaskContext, TaskSetupError
from .os_base import WORDS, distinct_words

PRODUCTS = ("Stapler", "Notebook", "Marker", "Folder", "Scissors", "Envelope", "Ruler", "Eraser", "Binder", "Tape")
DEPARTMENTS = ("Research", "Sales", "Support", "Legal", "Facilities", "Marketing", "Finance", "Training")
SENTENCES = (
    "The depot opens at seven and closes at noon.",
    "Bring the signed forms to the front desk.",
    "Visitors park behind the north building.",
    "The lift to the third floor is out of order.",
    "Lunch is served in the small hall on Fridays.",
    "Badges must be worn at all times on site.",
    "Deliveries arrive through the east gate.",
    "The fire drill takes place on the first Monday.",
)


def in_new_document(app: str, calls: Sequence[str]) -> ScriptedPolicy:
    """An API oracle: open ``app`` with a new document (it takes the focus), run ``calls``, declare success."""
    return ScriptedPolicy([f"open_app(app_name={app!r})", *calls, "exit(success=True)"])


class OfficeTransferTask(Task):
    """A multi-app task: ``setup`` makes ``~/Documents`` (Save As needs the folder) and writes the inputs."""

    max_steps = 15
    needs_save = True
    tags: Sequence[str] = ("multi",)
    #: ``setup`` makes ``~/Documents`` first (False: the task's inputs or the image provide it).
    makes_documents_folder: ClassVar[bool] = True

    def input_files(self, params: Mapping[str, Any]) -> dict[str, bytes]:
        return {}

    def source(self, params: Mapping[str, Any]) -> tuple[str, str]:
        """The app and file the agent starts with."""
        raise NotImplementedError

    def setup(self, ctx: TaskContext) -> None:
        if self.makes_documents_folder:
            made = ctx.client.exec("mkdir -p ~/Documents", shell=True, timeout=10)
            if made.returncode != 0:
                raise TaskSetupError(f"could not create ~/Documents: {made.stderr.strip()[:200]}")
        for path, data in self.input_files(ctx.params).items():
            ctx.client.put_file(path, data)
        ctx.client.launch_app(*self.source(ctx.params))


class CsvToXlsxTotal(OfficeTransferTask):
    """CSV in the text editor -> a Calc spreadsheet with a Total row, saved as xlsx."""

    id = "multi.csv_to_xlsx_total"
    instruction_template = (
        "The file {csv} is open in the text editor. Put its table into a new LibreOffice Calc spreadsheet "
        "(header row first, same columns and rows), add one more row below it with Total in column A and the "
        "sum of the Units column in column B, and save the spreadsheet as {xlsx} (Excel 2007-365 format)."
    )
    apps = ("editor", "calc")
    oracles = ("api",)
    tags = ("multi", "editor", "calc")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        stem = distinct_words(rng, 1)[0]
        count = int(rng.integers(3, 6))
        rows = [
            [str(name), int(rng.integers(1, 60)), round(float(rng.integers(50, 2000)) / 100, 2)]
            for name in rng.choice(PRODUCTS, size=count, replace=False)
        ]
        return {"csv": f"~/Downloads/{stem}_orders.csv", "xlsx": f"~/Documents/{stem}_orders.xlsx", "rows": rows}

    def input_files(self, params: Mapping[str, Any]) -> dict[str, bytes]:
        lines = ["Item,Units,Price", *(f"{name},{units},{price:.2f}" for name, units, price in params["rows"])]
        return {params["csv"]: ("\n".join(lines) + "\n").encode()}

    def source(self, params: Mapping[str, Any]) -> tuple[str, str]:
        return "editor", params["csv"]

    def verify(self, ctx: TaskContext) -> VerifierResult:
        rows = ctx.params["rows"]
        expected = [["Item", "Units", "Price"], *rows, ["Total", sum(units for _, units, _ in rows)]]
        return verify_sheet_table(ctx.read_file(ctx.params["xlsx"]), expected, tolerance=1e-6)

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        rows = params["rows"]
        table = [["Item", "Units", "Price"], *rows, ["Total", f"=SUM(B2:B{len(rows) + 1})"]]
        return in_new_document(
            "calc",
            [
                f"CalcTools.set_range_values(start_cell='A1', values={table!r})",
                f"CalcTools.save(path={params['xlsx']!r})",
            ],
        )

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        rows = [list(row) for row in params["rows"]]
        index = int(rng.integers(len(rows)))
        rows[index][1] += 1  # one wrong unit count: its row and the total are off
        return {**params, "rows": rows}


class CalcToWriterTable(OfficeTransferTask):
    """A Calc table -> a Writer table in a new document, saved as docx."""

    id = "multi.calc_to_writer_table"
    instruction_template = (
        "The spreadsheet {xlsx} is open in LibreOffice Calc. Create a new LibreOffice Writer document holding "
        "that table as a Writer table (its header row and every data row, cells in the same order) and save it "
        "as {docx} (Word 2007-365 format)."
    )
    apps = ("calc", "writer")
    oracles = ("api",)
    tags = ("multi", "calc", "writer")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        stem = distinct_words(rng, 1)[0]
        count = int(rng.integers(3, 6))
        rows = [
            [str(name), int(rng.integers(10, 90)) * 100, int(rng.integers(5, 80)) * 100]
            for name in rng.choice(DEPARTMENTS, size=count, replace=False)
        ]
        return {"xlsx": f"~/Documents/{stem}_budget.xlsx", "docx": f"~/Documents/{stem}_budget.docx", "rows": rows}

    def input_files(self, params: Mapping[str, Any]) -> dict[str, bytes]:
        return {params["xlsx"]: xlsx_bytes([["Department", "Budget", "Spent"], *params["rows"]], sheet_title="Budget")}

    def source(self, params: Mapping[str, Any]) -> tuple[str, str]:
        return "calc", params["xlsx"]

    def verify(self, ctx: TaskContext) -> VerifierResult:
        expected = [["Department", "Budget", "Spent"], *ctx.params["rows"]]
        return verify_docx_tables(ctx.read_file(ctx.params["docx"]), count=1, expected_rows=expected)

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        table = [["Department", "Budget", "Spent"], *params["rows"]]
        return in_new_document(
            "writer",
            [
                f"WriterTools.insert_table(rows={len(table)}, columns=3, data={table!r})",
                f"WriterTools.save(path={params['docx']!r}, file_format='docx')",
            ],
        )

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        rows = [list(row) for row in params["rows"]]
        rows[int(rng.integers(len(rows)))][2] += 100
        return {**params, "rows": rows}


class TextToWriterParagraphs(OfficeTransferTask):
    """A text file in the editor -> a Writer document, one paragraph per line, the first a heading."""

    id = "multi.text_to_writer"
    instruction_template = (
        "The text file {txt} is open in the text editor. Create a new LibreOffice Writer document whose "
        "paragraphs are the lines of that file, in the same order (one paragraph per line, no other text). Give "
        "the first paragraph the style Heading 1, then save the document as {docx} (Word 2007-365 format)."
    )
    apps = ("editor", "writer")
    oracles = ("api",)
    tags = ("multi", "editor", "writer")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        stem = distinct_words(rng, 1, WORDS)[0]
        count = int(rng.integers(2, 5))
        lines = [
            f"Site notes for {stem.title()} depot",
            *(str(s) for s in rng.choice(SENTENCES, size=count, replace=False)),
        ]
        return {"txt": f"~/notes/{stem}_site.txt", "docx": f"~/Documents/{stem}_site.docx", "lines": lines}

    def input_files(self, params: Mapping[str, Any]) -> dict[str, bytes]:
        return {params["txt"]: ("\n".join(params["lines"]) + "\n").encode()}

    def source(self, params: Mapping[str, Any]) -> tuple[str, str]:
        return "editor", params["txt"]

    def verify(self, ctx: TaskContext) -> VerifierResult:
        data = ctx.read_file(ctx.params["docx"])
        lines = ctx.params["lines"]
        return all_of(
            {
                "text": verify_document_text(data, "\n".join(lines), match="equals"),
                "heading": verify_docx_paragraph_style(data, lines[0], heading=1),
            }
        )

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        first, *rest = params["lines"]
        return in_new_document(
            "writer",
            [
                f"WriterTools.set_paragraph_text(paragraph=0, text={first!r})",
                *(f"WriterTools.append_paragraph(text={line!r})" for line in rest),
                "WriterTools.set_heading(paragraph=0, level=1)",
                f"WriterTools.save(path={params['docx']!r}, file_format='docx')",
            ],
        )

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        lines = list(params["lines"])
        index = int(rng.integers(1, len(lines)))
        lines[index] = next(s for s in SENTENCES if s not in lines)  # one line of another note
        return {**params, "lines": lines}
