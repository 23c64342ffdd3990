"""Workflow tier, Writer documents made from a CSV file in the home: a reminder letter filled in like a
mail merge and exported as PDF, and a per-category summary table added to a report.

The CSV is only a file (``OSTools`` reads it, or a terminal or editor the agent opens); Writer is the
one app launched, so each proof costs one launch. API oracles only; the verifiers read the saved docx
(and the PDF's text, page by page).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ...verifiers import all_of, verify_document_text, verify_pdf_text
from ...verifiers.result import VerifierResult
from ..base import Policy, ScriptedPolicy, TaskContext
from .samples import PEOPLE, draw
from .writer_base import DONE, WriterDocumentTask

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


class LetterFill(CsvWriterTask):
    """Fill a letter's placeholders from one CSV row, save it under a new name, export it as PDF."""

    document = "~/Documents/reminder_template.docx"

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        count = int(rng.integers(3, 6))
        ids = [int(value) for value in rng.choice(np.arange(100, 1000), size=count, replace=False)]
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
