"""Workflow tier, Calc tables reshaped: a budget given a variance column with a highlight and a frozen
header, one region's rows moved onto a sheet of their own, and an editor's text list turned into a
sorted, totalled spreadsheet.

Each family needs three or more distinct operations, has an API oracle, and is judged on the saved
workbook, so no single operation earns the reward.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ...verifiers import (
    all_of,
    verify_sheet_table,
    verify_xlsx_conditional_rule,
    verify_xlsx_font,
    verify_xlsx_formulas,
    verify_xlsx_freeze_panes,
    verify_xlsx_number_formats,
    verify_xlsx_sheet_names,
)
from ...verifiers.result import VerifierResult
from ..base import Policy, TaskContext
from .calc_base import SAVE, CalcFamily, Rows, api
from .multi_office import DEPARTMENTS, in_new_document
from .os_base import distinct_words
from .samples import ITEMS, PEOPLE, REGIONS, distinct_ints, draw, ints
from .workflow_office import WorkflowTransfer

BUDGET_HEADER = ("Department", "Budget", "Spent")
OVER_FILLS = ("FFC7CE", "FFEB9C")  # Calc's light red and light yellow
VARIANCE_FORMAT = "#,##0"


class BudgetVariance(CalcFamily):
    """A variance column by formula, a whole-number format, a highlight of overspends, a frozen header.

    No GUI oracle: the Format Cells and Conditional Formatting dialogs cost more proof time than the GUI budget left.
    """

    id = "workflow.budget_variance"
    instruction_template = (
        "The spreadsheet {path} is open in LibreOffice Calc. Add a variance to the budget: write Variance in D1 "
        "and in D2:D{last_row} a formula per row giving Spent minus Budget; give D2:D{last_row} the number "
        "format {variance_format}; add a conditional format to D2:D{last_row} that gives every variance greater "
        "than 0 the background colour #{fill}; and freeze the header row. Save the file in its current xlsx "
        "format."
    )
    file_name = "department_budget.xlsx"
    oracles = ("api",)
    tags = ("workflow", "calc", "formula", "conditional-format", "number-format", "domain:calc")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        count = int(rng.integers(4, 8))
        budgets = [int(value) * 100 for value in rng.integers(20, 90, size=count)]
        spent = [
            budget + int(delta) * 50 for budget, delta in zip(budgets, rng.integers(-20, 21, size=count), strict=True)
        ]
        rows = [list(row) for row in zip(draw(rng, DEPARTMENTS, count), budgets, spent, strict=True)]
        return {"rows": rows, "last_row": count + 1, "variance_format": VARIANCE_FORMAT, "fill": OVER_FILLS[0]}

    def sheets(self, params: Mapping[str, Any]) -> dict[str, Rows]:
        return {"Budget": [BUDGET_HEADER, *params["rows"]]}

    def check(self, data: bytes | None, params: Mapping[str, Any], ctx: TaskContext) -> VerifierResult:
        last = params["last_row"]
        table = [
            [*BUDGET_HEADER, "Variance"],
            *([name, budget, spent, spent - budget] for name, budget, spent in params["rows"]),
        ]
        variances = [f"D{r}" for r in range(2, last + 1)]
        return all_of(
            {
                "variances": verify_sheet_table(data, table, sheet="Budget"),
                "formulas": verify_xlsx_formulas(data, dict.fromkeys(variances), sheet="Budget", match="contains"),
                "format": verify_xlsx_number_formats(
                    data, dict.fromkeys(variances, params["variance_format"]), sheet="Budget"
                ),
                "highlight rule": verify_xlsx_conditional_rule(
                    data, f"D2:D{last}", "greaterThan", 0, color=f"#{params['fill']}", sheet="Budget"
                ),
                "header frozen": verify_xlsx_freeze_panes(data, "A2", sheet="Budget"),
            }
        )

    def api_steps(self, params: Mapping[str, Any]) -> list[str]:
        last = params["last_row"]
        return [
            api(
                "set_range_values",
                start_cell="D1",
                values=[["Variance"], *([f"=C{r}-B{r}"] for r in range(2, last + 1))],
            ),
            api("set_number_format", cell_range=f"D2:D{last}", format_string=params["variance_format"]),
            api(
                "add_conditional_format",
                cell_range=f"D2:D{last}",
                operator="greater",
                value=0,
                background_color=f"#{params['fill']}",
            ),
            api("freeze_panes", cell="A2"),
            SAVE,
        ]

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "fill": OVER_FILLS[1]}


SALES_HEADER = ("Region", "Item", "Units")
REST_SHEET = "Other regions"


class RegionSplit(CalcFamily):
    """One region's rows moved onto a new sheet named after it, deleted from the old one, which is renamed.

    No GUI oracle: a new sheet, moved rows and a rename via dialogs cost more proof time than the GUI budget left.
    """

    id = "workflow.region_split"
    instruction_template = (
        "The spreadsheet {path} is open in LibreOffice Calc. Split out the {region} region: add a sheet named "
        "{region} after the sheet All holding the header row and every {region} row of All, in their order; "
        'delete those rows from All, leaving no empty rows; then rename All to "{rest}". Save the file in its '
        "current xlsx format."
    )
    file_name = "all_regions.xlsx"
    oracles = ("api",)
    tags = ("workflow", "calc", "sheets", "structure", "domain:calc")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        count = int(rng.integers(5, 9))
        region, other = draw(rng, REGIONS, 2)
        regions = [str(name) for name in rng.choice(REGIONS, size=count)]
        regions[:2] = [region, other]  # at least one row to move and one to keep
        rng.shuffle(regions)
        rows = [list(row) for row in zip(regions, draw(rng, ITEMS, count), ints(rng, 2, 80, count), strict=True)]
        return {"rows": rows, "region": region, "rest": REST_SHEET}

    def sheets(self, params: Mapping[str, Any]) -> dict[str, Rows]:
        return {"All": [SALES_HEADER, *params["rows"]]}

    def check(self, data: bytes | None, params: Mapping[str, Any], ctx: TaskContext) -> VerifierResult:
        region, rows = params["region"], params["rows"]
        return all_of(
            {
                "sheets": verify_xlsx_sheet_names(data, [params["rest"], region]),
                "rows moved": verify_sheet_table(
                    data, [SALES_HEADER, *(r for r in rows if r[0] == region)], sheet=region
                ),
                "rows kept": verify_sheet_table(
                    data, [SALES_HEADER, *(r for r in rows if r[0] != region)], sheet=params["rest"]
                ),
            }
        )

    def api_steps(self, params: Mapping[str, Any]) -> list[str]:
        region, rows = params["region"], params["rows"]
        moved = [list(SALES_HEADER), *(row for row in rows if row[0] == region)]
        doomed = [index + 2 for index, row in enumerate(rows) if row[0] == region]
        return [
            api("add_sheet", name=region),
            api("set_range_values", start_cell=f"{region}!A1", values=moved),
            *(api("delete_rows", row=row, sheet="All") for row in reversed(doomed)),  # bottom up
            api("rename_sheet", old_name="All", new_name=params["rest"]),
            SAVE,
        ]

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        present = {row[0] for row in params["rows"]} - {params["region"]}
        return {**params, "region": sorted(present)[0]}


class HoursSheet(WorkflowTransfer):
    """Text lines 'Name: hours' in the editor -> a new Calc sheet, sorted, totalled by formula, bold header.

    No GUI oracle: two apps: a second launch and Save As cost more proof time than the GUI budget left.
    """

    id = "workflow.hours_sheet"
    instruction_template = (
        'The file {txt} is open in the text editor; each line reads "Name: hours". Put the entries into a new '
        "LibreOffice Calc spreadsheet: Name in A1 and Hours in B1, then one row per entry sorted by hours from "
        "most to fewest (hours as numbers); below them Total in column A and a formula summing the hours in "
        "column B; make the header row bold. Save it as {xlsx} (Excel 2007-365 format)."
    )
    apps = ("editor", "calc")
    oracles = ("api",)
    tags = ("workflow", "multi", "editor", "calc", "domain:multi_app")
    max_steps = 25

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        stem = distinct_words(rng, 1)[0]
        count = int(rng.integers(4, 8))
        hours = distinct_ints(rng, 2, 60, count)
        entries = [list(row) for row in zip(draw(rng, PEOPLE, count), hours, strict=True)]
        return {"txt": f"~/Documents/{stem}_hours.txt", "xlsx": f"~/Documents/{stem}_hours.xlsx", "entries": entries}

    def input_files(self, params: Mapping[str, Any]) -> dict[str, bytes]:
        return {params["txt"]: "".join(f"{name}: {hours}\n" for name, hours in params["entries"]).encode()}

    def source(self, params: Mapping[str, Any]) -> tuple[str, str]:
        return "editor", params["txt"]

    @staticmethod
    def ranked(params: Mapping[str, Any]) -> list[list[Any]]:
        return sorted((list(entry) for entry in params["entries"]), key=lambda entry: entry[1], reverse=True)

    def verify(self, ctx: TaskContext) -> VerifierResult:
        p = ctx.params
        data = ctx.read_file(p["xlsx"])
        ranked = self.ranked(p)
        total_row = len(ranked) + 2
        table = [["Name", "Hours"], *ranked, ["Total", sum(hours for _, hours in ranked)]]
        return all_of(
            {
                "sorted entries and total": verify_sheet_table(data, table),
                "total is a formula": verify_xlsx_formulas(data, {f"B{total_row}": "SUM("}, match="contains"),
                "bold header": verify_xlsx_font(data, "A1:B1", bold=True),
            }
        )

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        ranked = self.ranked(params)
        table = [["Name", "Hours"], *ranked, ["Total", f"=SUM(B2:B{len(ranked) + 1})"]]
        return in_new_document(
            "calc",
            [
                api("set_range_values", start_cell="A1", values=table),
                api("set_bold", cell_range="A1:B1"),
                api("save", path=params["xlsx"]),
            ],
        )

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        entries = [list(entry) for entry in params["entries"]]
        entries[0][1] += 100  # changes the order and the total
        return {**params, "entries": entries}
