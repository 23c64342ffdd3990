"""Workflow tier, Writer documents made from a CSV file in the home: a reminder letter filled in like a
mail merge and exported as PDF, and a per-category summary table added to a report.

The CSV is only a file (``OSTools`` reads it, or a terminal or editor the agent opens); Writer is the
one app launched, so each proof costs one launch. API oracles, and a GUI one for the summary; the
verifiers read the saved docx (and the PDF's text, page by page).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ...verifiers import (
    all_of,
    verify_document_text,
    verify_docx_has_paragraph,
    verify_docx_header_footer,
    verify_docx_tables,
    verify_pdf_text,
)
from ...verifiers.result import VerifierResult
from ..base import Policy, ScriptedPolicy, TaskContext
from ..gui_script import Step, click_node, when_present
from .samples import PEOPLE, distinct_ints, draw
from .writer_base import DONE, WriterDocumentTask, keys, saved_by_api, saved_by_gui, typed
from .writer_layout import open_header_or_footer

CUSTOMER_HEADER = ("id", "name", "amount", "due")
LETTER_HEADING = "Payment reminder"
LETTER_TEMPLATE = (
    "Dear <<name>>,",
    "our records show an open balance of <<amount>> EUR on account <<id>>.",
    "Please pay it by <<due>>. If you have paid already, <<name>>, please ignore this letter.",
    "Kind regards, the accounts team",
)


class CsvWriterTask(WriterDocumentTask):
    """A Writer task whose data lives in ``params["csv"]``, written before Writer opens the document."""

    def csv_text(self, params: Mapping[str, Any]) -> str:
        """The CSV file's text."""
        raise NotImplementedError

    def setup(self, ctx: TaskContext) -> None:
        ctx.client.put_file(ctx.params["csv"], self.csv_text(ctx.params).encode())
        super().setup(ctx)


def table_at_end(table: list[list[Any]]) -> list[Step]:
    """GUI steps: a table of ``table``'s cells at the document's end (Insert Table dialog, Ctrl+F12), typed
    cell by cell (Tab moves on), then Alt+Enter in the last cell opens a paragraph after the table."""
    cells = "\t".join(str(cell) for row in table for cell in row)
    return [
        keys("ctrl", "end"),
        keys("ctrl", "f12"),
        when_present("dialog", "Insert Table", keys("tab")),  # the dialog opens in its Name field
        keys("ctrl", "a"),
        typed(str(len(table[0]))),
        keys("tab"),
        keys("ctrl", "a"),
        typed(str(len(table))),
        click_node("push button", "Insert", within=("dialog", "Insert Table")),
        typed(cells),
        keys("alt", "enter"),
    ]


class LetterFill(CsvWriterTask):
    """Fill a letter's placeholders from one CSV row, save it under a new name, export it as PDF.

    No GUI oracle: four Replace All rounds, Save As and the PDF dialog cost more proof time than the GUI budget left.
    """

    id = "workflow.letter_fill"
    instruction_template = (
        "The letter template {path} is open in LibreOffice Writer. Fill it in for the customer with id "
        "{customer}, whose details are a row of the file {csv}: replace every placeholder <<id>>, <<name>>, "
        "<<amount>> and <<due>> (angle brackets included) with that customer's value from the column of the "
        "same name, changing no other text. Save the filled letter as {docx} (Word 2007-365 format), and export "
        "it as a PDF to {pdf}."
    )
    oracles = ("api",)
    tags = ("workflow", "writer", "find-replace", "export", "domain:writer")
    max_steps = 25

    document = "~/Documents/reminder_template.docx"

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        count = int(rng.integers(3, 6))
        ids = distinct_ints(rng, 100, 1000, count)
        rows = [
            [str(cid), name, f"{int(rng.integers(20, 900))}.{int(rng.integers(0, 100)):02d}", self._date(rng)]
            for cid, name in zip(ids, draw(rng, PEOPLE, count), strict=True)
        ]
        chosen = int(rng.integers(count))
        stem = f"~/Documents/reminder_{rows[chosen][0]}"
        return {
            "path": self.document,
            "heading": LETTER_HEADING,
            "paragraphs": list(LETTER_TEMPLATE),
            "csv": "~/Documents/customers.csv",
            "rows": rows,
            "customer": rows[chosen][0],
            "docx": f"{stem}.docx",
            "pdf": f"{stem}.pdf",
        }

    @staticmethod
    def _date(rng: np.random.Generator) -> str:
        return f"2026-{int(rng.integers(1, 13)):02d}-{int(rng.integers(1, 29)):02d}"

    def csv_text(self, params: Mapping[str, Any]) -> str:
        return "".join(",".join(row) + "\n" for row in [CUSTOMER_HEADER, *params["rows"]])

    @staticmethod
    def filled(params: Mapping[str, Any]) -> list[str]:
        """The letter's paragraphs with the chosen customer's values in place of the placeholders."""
        row = next(row for row in params["rows"] if row[0] == params["customer"])
        paragraphs = [LETTER_HEADING, *params["paragraphs"]]
        for field, value in zip(CUSTOMER_HEADER, row, strict=True):
            paragraphs = [paragraph.replace(f"<<{field}>>", value) for paragraph in paragraphs]
        return paragraphs

    def verify(self, ctx: TaskContext) -> VerifierResult:
        p = ctx.params
        letter = self.filled(p)
        return all_of(
            {
                "filled letter": verify_document_text(ctx.read_file(p["docx"]), "\n".join(letter), match="equals"),
                "pdf text": verify_pdf_text(ctx.read_file(p["pdf"]), [" ".join(letter)]),
            }
        )

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        row = next(row for row in params["rows"] if row[0] == params["customer"])
        replaces = [
            f"WriterTools.find_replace(find={f'<<{field}>>'!r}, replace={value!r}, match_case=True)"
            for field, value in zip(CUSTOMER_HEADER, row, strict=True)
        ]
        return ScriptedPolicy(
            [
                f"OSTools.read_text_file(path={params['csv']!r})",
                *replaces,
                f"WriterTools.save(path={params['docx']!r})",
                f"WriterTools.save(path={params['pdf']!r})",
                DONE,
            ]
        )

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        others = [row[0] for row in params["rows"] if row[0] != params["customer"]]
        return {**params, "customer": str(rng.choice(others))}


EXPENSE_HEADER = ("date", "category", "item", "amount")
CATEGORIES = {
    "Hotel": ("Two nights Lisbon", "One night Porto", "Airport hotel"),
    "Meals": ("Team dinner", "Lunch with client", "Breakfast"),
    "Taxi": ("Station to office", "Airport transfer", "Late ride home"),
    "Train": ("Return ticket", "Seat reservation", "Regional pass"),
    "Supplies": ("Printer paper", "Adapter cable", "Notebooks"),
}
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October")


class ExpenseSummary(CsvWriterTask):
    """A pivot-like summary: a table of per-category totals from a CSV, a grand total line, a footer."""

    id = "workflow.expense_summary"
    instruction_template = (
        "The report {path} is open in LibreOffice Writer; the month's expenses are in the file {csv} (columns "
        "date, category, item, amount). At the end of the report add a table with the header row Category | "
        "Total and one row per category that occurs in the file, in alphabetical order, giving the sum of that "
        'category\'s amounts (as a plain whole number); after the table add the paragraph "Grand total: N", '
        'where N is the sum of all amounts, as the last paragraph; and put "{footer}" in the page footer. '
        "Change no other text, then save the document in its current docx format."
    )
    oracles = ("api", "gui")
    tags = ("workflow", "writer", "table", "compute", "domain:writer")
    max_steps = 25

    document = "~/Documents/expense_report.docx"

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        month = int(rng.integers(len(MONTHS)))
        categories = [str(name) for name in rng.choice(list(CATEGORIES), size=int(rng.integers(3, 5)), replace=False)]
        count = int(rng.integers(len(categories) + 2, len(categories) + 5))
        chosen = [*categories, *(str(name) for name in rng.choice(categories, size=count - len(categories)))]
        rng.shuffle(chosen)
        rows = [
            [f"2026-{month + 1:02d}-{day:02d}", name, str(rng.choice(CATEGORIES[name])), str(int(rng.integers(8, 400)))]
            for day, name in zip(sorted(int(d) for d in rng.integers(1, 29, size=count)), chosen, strict=True)
        ]
        return {
            "path": self.document,
            "heading": f"Travel expenses, {MONTHS[month]} 2026",
            "paragraphs": ["This report sums the month's travel expenses by category."],
            "csv": f"~/Documents/expenses_{MONTHS[month].lower()}.csv",
            "rows": rows,
            "footer": f"Prepared by {rng.choice(PEOPLE)}",
        }

    def csv_text(self, params: Mapping[str, Any]) -> str:
        return "".join(",".join(row) + "\n" for row in [EXPENSE_HEADER, *params["rows"]])

    @staticmethod
    def totals(params: Mapping[str, Any]) -> list[list[Any]]:
        """``[category, total]`` per category, alphabetical."""
        names = sorted({row[1] for row in params["rows"]})
        return [[name, sum(int(row[3]) for row in params["rows"] if row[1] == name)] for name in names]

    def verify(self, ctx: TaskContext) -> VerifierResult:
        p = ctx.params
        data = self.saved(ctx)
        totals = self.totals(p)
        grand = sum(total for _, total in totals)
        return all_of(
            {
                "heading kept": verify_docx_has_paragraph(data, p["heading"]),
                "introduction kept": verify_docx_has_paragraph(data, p["paragraphs"][0]),
                "summary table": verify_docx_tables(data, count=1, expected_rows=[["Category", "Total"], *totals]),
                "grand total last": verify_docx_has_paragraph(data, f"Grand total: {grand}", last=True),
                "footer": verify_docx_header_footer(data, p["footer"], part="footer"),
            }
        )

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        totals = self.totals(params)
        table = [["Category", "Total"], *totals]
        grand = sum(total for _, total in totals)
        return saved_by_api(
            f"OSTools.read_text_file(path={params['csv']!r})",
            f"WriterTools.insert_table(rows={len(table)}, columns=2, data={table!r})",
            f"WriterTools.append_paragraph(text={f'Grand total: {grand}'!r})",
            f"WriterTools.set_footer_text(text={params['footer']!r})",
        )

    def gui_oracle(self, params: Mapping[str, Any]) -> Policy:
        totals = self.totals(params)
        grand = sum(total for _, total in totals)
        return saved_by_gui(
            *table_at_end([["Category", "Total"], *totals]),
            typed(f"Grand total: {grand}"),
            *open_header_or_footer("footer"),
            typed(params["footer"]),
        )

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        rows = [list(row) for row in params["rows"]]
        index = int(rng.integers(len(rows)))
        rows[index][3] = str(int(rows[index][3]) + 7)  # one category's total and the grand total move
        return {**params, "rows": rows}
