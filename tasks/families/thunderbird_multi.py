"""Thunderbird across apps: save a CSV attachment and total it in the terminal; make a report in Calc and
mail it as an attachment. The verifiers read the saved files and the spooled message's attachment (the
xlsx's cells)."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

import numpy as np

from ...verifiers import all_of, verify_file_regex, verify_file_sha256, verify_mail_sent, verify_sheet_table
from ...verifiers.result import VerifierResult
from ..base import Policy, ScriptedPolicy, TaskContext
from ..family_kit import pick
from .thunderbird_base import SENDERS, ThunderbirdTask, spooled, tb_call
from .thunderbird_compose import WithCsv, report_csv


class AttachmentTotal(WithCsv):
    """Multi-app: save a message's CSV attachment, then total its amount column in the terminal."""

    id = "thunderbird.attachment_total"
    oracles = ("api",)
    goal = (
        'In Thunderbird, save the CSV attachment of the message from {sender} with the subject "{subject}" as '
        "{saved}. Then, in the terminal, write the sum of its amount column (just the number) into {total}."
    )
    apps = ("thunderbird", "terminal")
    tags = ("thunderbird", "mail", "attachments", "multi_app", "terminal")
    max_steps = 12

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        params = super().sample_params(rng)
        return {**params, "saved": f"~/Documents/{params['csv_name']}", "total": "~/Documents/total.txt"}

    def verify(self, ctx: TaskContext) -> VerifierResult:
        total = sum(amount for _, amount in ctx.params["rows"])
        return all_of(
            {
                "saved": verify_file_sha256(
                    ctx.read_file(ctx.params["saved"]), hashlib.sha256(report_csv(ctx.params)).hexdigest()
                ),
                "total": verify_file_regex(
                    ctx.read_file(ctx.params["total"]), rf"\s*{total}(\.0+)?\s*", full_match=True
                ),
            }
        )

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        command = f"awk -F, 'NR>1 {{s+=$2}} END {{print s}}' {params['saved']} > {params['total']}"
        return ScriptedPolicy(
            [
                tb_call(
                    "save_attachment",
                    folder="INBOX",
                    uid=params["target"] + 1,
                    filename=params["csv_name"],
                    path=params["saved"],
                ),
                f"OSTools.run_shell(command={command!r})",
                "exit(success=True)",
            ]
        )

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "saved": params["saved"].replace(".csv", "_copy.csv")}


class MailCalcReport(ThunderbirdTask):
    """Multi-app: a small table made in Calc, saved as xlsx, mailed as an attachment from Thunderbird."""

    id = "thunderbird.mail_calc_report"
    oracles = ("api",)
    goal = (
        "Create a spreadsheet in LibreOffice Calc with the header row Region, Sales and then these rows: {rows_text}. "
        'Save it as {xlsx}. Then, in Thunderbird, email it as an attachment to {to} with the subject "{subject}".'
    )
    apps = ("thunderbird", "calc")
    tags = ("thunderbird", "mail", "attachments", "multi_app", "calc")
    max_steps = 14

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        regions = pick(rng, ("North", "South", "East", "West", "Central"), 3)
        rows = [[region, int(rng.integers(100, 999))] for region in regions]
        return {
            **self.mail_params(rng, 3),
            "rows": rows,
            "rows_text": "; ".join(f"{region} {sales}" for region, sales in rows),
            "xlsx": f"~/Documents/sales_{int(rng.integers(1, 13)):02d}.xlsx",
            "to": pick(rng, SENDERS)[1],
            "subject": "Sales report",
        }

    def table(self, params: Mapping[str, Any]) -> list[list[Any]]:
        return [["Region", "Sales"], *[list(row) for row in params["rows"]]]

    def verify(self, ctx: TaskContext) -> VerifierResult:
        params = ctx.params
        name = params["xlsx"].rsplit("/", 1)[1]
        return verify_mail_sent(
            spooled(ctx),
            [params["to"]],
            subject=params["subject"],
            attachment={
                "filename": name,
                "check": lambda data: verify_sheet_table(data, self.table(params), tolerance=0),
            },
        )

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        return ScriptedPolicy(
            [
                "open_app(app_name='calc')",
                f"CalcTools.set_range_values(start_cell='A1', values={self.table(params)!r})",
                f"CalcTools.save(path={params['xlsx']!r})",
                "open_app(app_name='thunderbird')",
                tb_call(
                    "send_message",
                    to=[params["to"]],
                    subject=params["subject"],
                    body="The report is attached.\n",
                    attachments=[params["xlsx"]],
                ),
                "exit(success=True)",
            ]
        )

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        rows = [list(row) for row in params["rows"]]
        rows[0][1] += 1
        return {**params, "rows": rows}
