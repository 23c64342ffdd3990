"""Workflow tier, Calc: tasks that need several distinct operations on one workbook (sort, compute,
format, chart), each checked on the saved file, so no single operation earns the reward.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ...verifiers import (
    all_of,
    verify_sheet_table,
    verify_xlsx_charts,
    verify_xlsx_font,
    verify_xlsx_formulas,
)
from ...verifiers.result import VerifierResult
from ..base import TaskContext
from ..registry import register_task
from .calc_base import ITEMS, REGIONS, SAVE, CalcFamily, Rows, api, draw

HEADER = ("Item", "Units", "Region")


class SalesReport(CalcFamily):
    """Sort a sales table, total it with a formula, bold the header and chart the units."""

    id = "workflow.sales_report"
    instruction_template = (
        "The spreadsheet {path} is open in LibreOffice Calc. Turn the Sales sheet into a report: sort the "
        "data rows by Units from largest to smallest (keep each row together and the header in row 1), put "
        "Total in A{total_row} and a formula summing the Units above it in B{total_row}, make the header row "
        '(A1:C1) bold, and insert a bar chart of the items\' units (A1:B{last_row}) titled "{title}". Save '
        "the file in its current xlsx format."
    )
    tags = ("workflow", "calc", "sort", "formula", "chart", "domain:calc")
    file_name = "sales_report.xlsx"
    max_steps = 40

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        count = int(rng.integers(4, 8))
        units = [int(value) for value in rng.choice(np.arange(5, 400), size=count, replace=False)]
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
                "chart": verify_xlsx_charts(
                    data,
                    sheet="Sales",
                    chart_type="bar",
                    title=params["title"],
                    values=[f"Sales!B2:B{last}"],
                    categories=f"Sales!A2:A{last}",
                ),
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


WORKFLOW_CALC_FAMILIES = (SalesReport,)

for _family in WORKFLOW_CALC_FAMILIES:
    register_task(_family.id, _family)
