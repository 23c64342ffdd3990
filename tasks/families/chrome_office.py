"""Chrome families across the browser and LibreOffice: a page's table into a Calc spreadsheet, and the
shop's contact form filled in from a letter open in Writer.

The browser's data is seeded per episode (the table's numbers, the letter's details), so the answers
change with the seed. Verifiers read the saved spreadsheet and the site server's stored submissions.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ...apps.chrome.sites import default_site
from ...verifiers import verify_sheet_table
from ...verifiers.result import VerifierResult
from ..artifacts import docx_bytes
from ..base import Policy, ScriptedPolicy, TaskContext, TaskSetupError
from ..family_kit import pick
from .chrome_base import NEWS, ChromeTask
from .chrome_pages import ContactForm
from .os_base import WORDS


def _documents_folder(ctx: TaskContext) -> None:
    """Make ``~/Documents`` (Save As and the letter need it)."""
    made = ctx.client.exec("mkdir -p ~/Documents", shell=True, timeout=10)
    if made.returncode != 0:
        raise TaskSetupError(f"could not create ~/Documents: {made.stderr.strip()[:200]}")


class TableToCalc(ChromeTask):
    """Multi-app: a web page's table into a new Calc spreadsheet, numbers as numbers, saved as xlsx."""

    id = "chrome.table_to_calc"
    goal = (
        "Put the table on {url} into a new LibreOffice Calc spreadsheet, header row first in row 1 starting "
        "at A1, numbers as numbers, and save it as {xlsx} (Excel 2007-365 format)."
    )
    apps = ("chrome", "calc")
    oracles = ("api",)
    tags = ("chrome", "tables", "multi_app", "calc")
    max_steps = 15
    needs_save = True

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        table = default_site()["tables"]["population"]
        rows = [[row[0], int(rng.integers(50000, 5000000)), int(rng.integers(500, 20000))] for row in table["rows"]]
        stem = pick(rng, WORDS)
        return {
            "url": f"{NEWS}tables/population",
            "columns": table["columns"],
            "rows": rows,
            "xlsx": f"~/Documents/{stem}_population.xlsx",
        }

    def site_data(self, params: Mapping[str, Any]) -> dict[str, Any]:
        table = {"title": "Population by region", "columns": list(params["columns"]), "rows": params["rows"]}
        return {"tables": {"population": table}}

    def start_url(self, params: Mapping[str, Any]) -> str:
        return params["url"]

    def setup(self, ctx: TaskContext) -> None:
        _documents_folder(ctx)
        super().setup(ctx)

    @staticmethod
    def table(params: Mapping[str, Any]) -> list[list[Any]]:
        return [list(params["columns"]), *[list(row) for row in params["rows"]]]

    def verify(self, ctx: TaskContext) -> VerifierResult:
        return verify_sheet_table(ctx.read_file(ctx.params["xlsx"]), self.table(ctx.params), tolerance=0)

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        return ScriptedPolicy(
            [
                "open_app(app_name='calc')",  # a new spreadsheet, which takes the focus (and so offers CalcTools)
                f"CalcTools.set_range_values(start_cell='A1', values={self.table(params)!r})",
                f"CalcTools.save(path={params['xlsx']!r})",
                "exit(success=True)",
            ]
        )

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        rows = [list(row) for row in params["rows"]]
        rows[int(rng.integers(len(rows)))][2] += 1
        return {**params, "rows": rows}


class FormFromLetter(ContactForm):
    """Multi-app: send the shop's contact form with the details a letter open in Writer gives."""

    id = "chrome.form_from_letter"
    goal = (
        "The letter {letter} (open in LibreOffice Writer) asks you to contact the shop. Send the contact form "
        "at {url}contact with the name, the email, the topic and the message the letter gives."
    )
    apps = ("writer", "chrome")
    oracles = ("api",)
    tags = ("chrome", "forms", "multi_app", "writer")
    max_steps = 15

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        return {**super().sample_params(rng), "letter": "~/Documents/request.docx"}

    @staticmethod
    def letter(params: Mapping[str, Any]) -> bytes:
        return docx_bytes(
            [
                "Please send the shop's contact form with these details.",
                f"Name: {params['name']}",
                f"Email: {params['email']}",
                f"Topic: {params['topic']}",
                f"Message: {params['message']}",
            ],
            heading="Contact request",
        )

    def setup(self, ctx: TaskContext) -> None:
        _documents_folder(ctx)
        ctx.client.put_file(ctx.params["letter"], self.letter(ctx.params))
        ctx.client.launch_app("writer", ctx.params["letter"])
        super().setup(ctx)  # the browser starts last and has the focus; the letter stays open behind it
