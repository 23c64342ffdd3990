"""Workflow tier, Calc: tasks that need several distinct operations on one workbook (sort, compute,
format, chart), each checked on the saved file, so no single operation earns the reward.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ...verifiers import (
    all_of,
    verify_csv_rows,
    verify_sheet_table,
    verify_xlsx_font,
    verify_xlsx_formulas,
)
from ...verifiers.result import VerifierResult
from ..base import TaskContext
from .calc_base import SAVE, CalcFamily, Rows, api, column_chart
from .samples import ITEMS, PEOPLE, REGIONS, distinct_ints, draw, ints

HEADER = ("Item", "Units", "Region")


class SalesReport(CalcFamily):
    """Sort a sales table, total it with a formula, bold the header and chart the units.

    No GUI oracle: the Insert Chart wizard's pages cost more proof time than the GUI budget left.
    """

    id = "workflow.sales_report"
    instruction_template = (
        "The spreadsheet {path} is open in LibreOffice Calc. Turn the Sales sheet into a report: sort the data "
        "rows by Units from largest to smallest (keep each row together and the header in row 1), put Total in "
        "A{total_row} and a formula summing the Units above it in B{total_row}, make the header row (A1:C1) "
        'bold, and insert a bar chart of the items\' units (A1:B{last_row}) titled "{title}". Save the file in '
        "its current xlsx format."
    )
    file_name = "sales_report.xlsx"
    oracles = ("api",)
    tags = ("workflow", "calc", "sort", "formula", "chart", "domain:calc")
    max_steps = 40

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        count = int(rng.integers(4, 8))
        units = distinct_ints(rng, 5, 400, count)
        rows = [
            [item, unit, str(rng.choice(REGIONS))] for item, unit in zip(draw(rng, ITEMS, count), units, strict=True)
        ]
        quarter = int(rng.integers(1, 5))
        return {
            "rows": rows,
            "last_row": count + 1,
            "total_row": count + 2,
            "title": f"Units sold in Q{quarter}",
        }

    def sheets(self, params: Mapping[str, Any]) -> dict[str, Rows]:
        return {"Sales": [HEADER, *params["rows"]]}

    def check(self, data: bytes | None, params: Mapping[str, Any], ctx: TaskContext) -> VerifierResult:
        ordered = sorted(params["rows"], key=lambda row: row[1], reverse=True)
        last, total_row = params["last_row"], params["total_row"]
        table = [HEADER, *ordered, ["Total", sum(row[1] for row in ordered)]]
        return all_of(
            {
                "sorted table with total": verify_sheet_table(data, table, sheet="Sales"),
                "total is a formula": verify_xlsx_formulas(
                    data, {f"B{total_row}": f"SUM(B2:B{last})"}, sheet="Sales", match="contains"
                ),
                "bold header": verify_xlsx_font(data, "A1:C1", sheet="Sales", bold=True),
                "chart": column_chart(data, "Sales", "bar", params["title"], last),
            }
        )

    def api_steps(self, params: Mapping[str, Any]) -> list[str]:
        last, total_row = params["last_row"], params["total_row"]
        return [
            api("sort_range", cell_range=f"A1:C{last}", column="B", ascending=False),
            api("set_cell_value", cell=f"A{total_row}", value="Total"),
            api("set_cell_formula", cell=f"B{total_row}", formula=f"=SUM(B2:B{last})"),
            api("set_bold", cell_range="A1:C1"),
            api("insert_chart", data_range=f"A1:B{last}", chart_type="bar", title=params["title"], anchor_cell="E2"),
            SAVE,
        ]

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "title": params["title"].replace("Units sold", "Units shipped")}


NOTES = ("on leave", "new", "part time", "lead", "remote", "")


class FilterSortExport(CalcFamily):
    """Drop a column, drop one region's rows, sort by name and export the rest as CSV.

    No GUI oracle: Save As CSV, Keep Format and Text CSV dialogs cost more proof time than the GUI budget left.
    """

    id = "workflow.filter_sort_export"
    instruction_template = (
        "The spreadsheet {path} is open in LibreOffice Calc. Prepare the roster for payroll: delete the Notes "
        "column, delete every row whose Region is {region}, sort the remaining rows by Name from A to Z (header "
        "stays in row 1), and save the sheet as a comma-separated CSV file {target} (header row included)."
    )
    file_name = "payroll_roster.xlsx"
    oracles = ("api",)
    tags = ("workflow", "calc", "export")
    max_steps = 40

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        count = int(rng.integers(5, 9))
        region = str(rng.choice(REGIONS))
        regions = [str(rng.choice(REGIONS)) for _ in range(count)]
        regions[int(rng.integers(count))] = region  # at least one row to delete
        keep = int(rng.integers(count))
        regions[keep] = next(r for r in REGIONS if r != region)  # and at least one to keep
        rows = [
            [name, home, str(rng.choice(NOTES)), hours]
            for name, home, hours in zip(draw(rng, PEOPLE, count), regions, ints(rng, 4, 40, count), strict=True)
        ]
        stem = f"payroll_{int(rng.integers(1, 99)):02d}"
        return {"rows": rows, "region": region, "target": f"~/Documents/{stem}.csv"}

    def sheets(self, params: Mapping[str, Any]) -> dict[str, Rows]:
        return {"Roster": [("Name", "Region", "Notes", "Hours"), *params["rows"]]}

    @staticmethod
    def expected(params: Mapping[str, Any]) -> list[list[Any]]:
        kept = [[name, region, hours] for name, region, _, hours in params["rows"] if region != params["region"]]
        return sorted(kept, key=lambda row: str(row[0]).casefold())

    def verify(self, ctx: TaskContext) -> VerifierResult:
        data = ctx.read_file(ctx.params["target"])
        return verify_csv_rows(data, self.expected(ctx.params), header=["Name", "Region", "Hours"])

    def api_steps(self, params: Mapping[str, Any]) -> list[str]:
        doomed = [index + 2 for index, row in enumerate(params["rows"]) if row[1] == params["region"]]
        remaining = len(params["rows"]) - len(doomed) + 1
        return [
            api("delete_columns", column="C"),
            *(api("delete_rows", row=row) for row in reversed(doomed)),  # bottom up: row numbers stay valid
            api("sort_range", cell_range=f"A1:C{remaining}", column="A", ascending=True),
            api("save", path=params["target"]),
        ]

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        others = [r for r in REGIONS if r != params["region"] and any(row[1] == r for row in params["rows"])]
        return {**params, "region": others[0] if others else next(r for r in REGIONS if r != params["region"])}
