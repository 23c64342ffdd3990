"""Workflow tier, Calc tables: per-row formulas with a total and a filter, a summary sheet with a pie
chart, a ranked score list with a conditional highlight, and a priced list exported as CSV.

Each family needs three or more distinct operations on one workbook (one Calc launch), has an API
oracle, and is judged on the saved file, so no single operation earns the reward.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ...verifiers import (
    all_of,
    verify_csv_rows,
    verify_sheet_table,
    verify_xlsx_autofilter,
    verify_xlsx_conditional_rule,
    verify_xlsx_font,
    verify_xlsx_formulas,
    verify_xlsx_number_formats,
    verify_xlsx_sheet_names,
)
from ...verifiers.result import VerifierResult
from ..base import TaskContext
from .calc_base import SAVE, CalcFamily, Rows, api, column_chart
from .samples import ITEMS, PEOPLE, REGIONS, distinct_ints, draw, ints, quarter_prices

MONEY_FORMAT = "#,##0.00"
ORDER_HEADER = ("Item", "Qty", "Unit price")


class OrderTotals(CalcFamily):
    """Per-row amount formulas, a total formula, a money format on the amounts and an AutoFilter.

    No GUI oracle: the money format needs the Format Cells dialog, more proof time than the GUI budget left.
    """

    id = "workflow.order_totals"
    instruction_template = (
        "The spreadsheet {path} is open in LibreOffice Calc. Complete the order sheet: write Amount in D1 and "
        "in D2:D{last_row} a formula per row multiplying the row's Qty by its Unit price; write Total in "
        "A{total_row} and in D{total_row} a formula summing the amounts; give D2:D{total_row} the number format "
        "{amount_format}; and turn on the AutoFilter for the table A1:D{last_row}. Save the file in its current "
        "xlsx format."
    )
    file_name = "order_sheet.xlsx"
    oracles = ("api",)
    tags = ("workflow", "calc", "formula", "number-format", "filter", "domain:calc")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        count = int(rng.integers(4, 8))
        rows = [
            [item, qty, price]
            for item, qty, price in zip(
                draw(rng, ITEMS, count), ints(rng, 1, 25, count), quarter_prices(rng, count), strict=True
            )
        ]
        return {"rows": rows, "last_row": count + 1, "total_row": count + 2, "amount_format": MONEY_FORMAT}

    def sheets(self, params: Mapping[str, Any]) -> dict[str, Rows]:
        return {"Orders": [ORDER_HEADER, *params["rows"]]}

    def check(self, data: bytes | None, params: Mapping[str, Any], ctx: TaskContext) -> VerifierResult:
        last, total_row = params["last_row"], params["total_row"]
        rows = [[item, qty, price, qty * price] for item, qty, price in params["rows"]]
        table = [[*ORDER_HEADER, "Amount"], *rows, ["Total", None, None, sum(row[3] for row in rows)]]
        formulas: dict[str, str | None] = dict.fromkeys((f"D{r}" for r in range(2, last + 1)), None)  # any formula
        formulas[f"D{total_row}"] = "SUM("
        amounts = {f"D{r}": params["amount_format"] for r in range(2, total_row + 1)}
        return all_of(
            {
                "amounts and total": verify_sheet_table(data, table, sheet="Orders"),
                "formulas": verify_xlsx_formulas(data, formulas, sheet="Orders", match="contains"),
                "money format": verify_xlsx_number_formats(data, amounts, sheet="Orders"),
                "autofilter": verify_xlsx_autofilter(data, f"A1:D{last}", sheet="Orders"),
            }
        )

    def api_steps(self, params: Mapping[str, Any]) -> list[str]:
        last, total_row = params["last_row"], params["total_row"]
        amounts = [[f"=B{r}*C{r}"] for r in range(2, last + 1)]  # one call writes the column (fewer steps)
        return [
            api("set_range_values", start_cell="D1", values=[["Amount"], *amounts, [f"=SUM(D2:D{last})"]]),
            api("set_cell_value", cell=f"A{total_row}", value="Total"),
            api("set_number_format", cell_range=f"D2:D{total_row}", format_string=params["amount_format"]),
            api("set_autofilter", cell_range=f"A1:D{last}"),
            SAVE,
        ]

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "amount_format": "0.0"}


class RegionSummary(CalcFamily):
    """A new Summary sheet totalling units per region (computed), and a pie chart of it.

    No GUI oracle: a new sheet and the Insert Chart wizard cost more proof time than the GUI budget left.
    """

    id = "workflow.region_summary"
    instruction_template = (
        "The spreadsheet {path} is open in LibreOffice Calc. Summarise the Sales sheet on a new sheet named "
        "Summary placed after it: Region in A1 and Units in B1, then one row per region that occurs in Sales, "
        "in alphabetical order, with that region's total units. On the Summary sheet insert a pie chart of "
        'A1:B{last_row} titled "{title}". Leave the Sales sheet as it is and save the file in its current '
        "xlsx format."
    )
    file_name = "regional_sales.xlsx"
    oracles = ("api",)
    tags = ("workflow", "calc", "sheets", "compute", "chart", "domain:calc")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        count = int(rng.integers(6, 10))
        regions = [str(region) for region in rng.choice(REGIONS, size=count)]
        regions[:2] = draw(rng, REGIONS, 2)  # at least two regions, so the pie has two slices
        rows = [
            [region, item, units]
            for region, item, units in zip(regions, draw(rng, ITEMS, count), ints(rng, 3, 90, count), strict=True)
        ]
        return {
            "rows": rows,
            "last_row": len(set(regions)) + 1,
            "title": f"Units by region, week {int(rng.integers(1, 53))}",
        }

    def sheets(self, params: Mapping[str, Any]) -> dict[str, Rows]:
        return {"Sales": [("Region", "Item", "Units"), *params["rows"]]}

    @staticmethod
    def totals(params: Mapping[str, Any]) -> list[list[Any]]:
        regions = sorted({row[0] for row in params["rows"]})
        return [[region, sum(row[2] for row in params["rows"] if row[0] == region)] for region in regions]

    def check(self, data: bytes | None, params: Mapping[str, Any], ctx: TaskContext) -> VerifierResult:
        last = params["last_row"]
        return all_of(
            {
                "sheets": verify_xlsx_sheet_names(data, ["Sales", "Summary"]),
                "sales kept": verify_sheet_table(data, self.sheets(params)["Sales"], sheet="Sales"),
                "totals": verify_sheet_table(data, [["Region", "Units"], *self.totals(params)], sheet="Summary"),
                "pie chart": column_chart(data, "Summary", "pie", params["title"], last),
            }
        )

    def api_steps(self, params: Mapping[str, Any]) -> list[str]:
        table = [["Region", "Units"], *self.totals(params)]
        return [
            api("add_sheet", name="Summary"),
            api("set_range_values", start_cell="Summary!A1", values=table),
            api(
                "insert_chart",
                data_range=f"Summary!A1:B{params['last_row']}",
                chart_type="pie",
                title=params["title"],
                anchor_cell="Summary!D2",
            ),
            SAVE,
        ]

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "title": params["title"].replace("Units", "Sales")}


PASS_FILL = "C6EFCE"  # Calc's "light green" for good values


class ScoreRanking(CalcFamily):
    """Sort scores from highest, highlight those above a mark with a conditional format, bold the header.

    No GUI oracle: the Sort and Conditional Formatting dialogs cost more proof time than the GUI budget left.
    """

    id = "workflow.score_ranking"
    instruction_template = (
        "The spreadsheet {path} is open in LibreOffice Calc. Rank the results: sort the student rows by Score "
        "from highest to lowest (keep each row together and the header in row 1); add a conditional format to "
        "the scores B2:B{last_row} that gives every score greater than {mark} the background colour #{fill}; "
        "and make the header row (A1:C1) bold. Save the file in its current xlsx format."
    )
    file_name = "exam_results.xlsx"
    oracles = ("api",)
    tags = ("workflow", "calc", "sort", "conditional-format", "format", "domain:calc")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        count = int(rng.integers(5, 9))
        scores = distinct_ints(rng, 20, 100, count)
        groups = [f"Group {chr(65 + int(group))}" for group in rng.integers(0, 3, size=count)]
        rows = [
            [name, score, group] for name, score, group in zip(draw(rng, PEOPLE, count), scores, groups, strict=True)
        ]
        return {"rows": rows, "last_row": count + 1, "mark": int(rng.integers(50, 75)), "fill": PASS_FILL}

    def sheets(self, params: Mapping[str, Any]) -> dict[str, Rows]:
        return {"Results": [("Student", "Score", "Group"), *params["rows"]]}

    def check(self, data: bytes | None, params: Mapping[str, Any], ctx: TaskContext) -> VerifierResult:
        ranked = sorted(params["rows"], key=lambda row: row[1], reverse=True)
        scores = f"B2:B{params['last_row']}"
        return all_of(
            {
                "ranked": verify_sheet_table(data, [["Student", "Score", "Group"], *ranked], sheet="Results"),
                "highlight rule": verify_xlsx_conditional_rule(
                    data, scores, "greaterThan", params["mark"], color=f"#{params['fill']}", sheet="Results"
                ),
                "bold header": verify_xlsx_font(data, "A1:C1", sheet="Results", bold=True),
            }
        )

    def api_steps(self, params: Mapping[str, Any]) -> list[str]:
        last = params["last_row"]
        return [
            api("sort_range", cell_range=f"A1:C{last}", column="B", ascending=False),
            api(
                "add_conditional_format",
                cell_range=f"B2:B{last}",
                operator="greater",
                value=params["mark"],
                background_color=f"#{params['fill']}",
            ),
            api("set_bold", cell_range="A1:C1"),
            SAVE,
        ]

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "mark": params["mark"] + 5}


MARKUPS = (10, 20, 25, 40, 50)


class MarkupExport(CalcFamily):
    """Sort by cost, add a marked-up price column by formula, delete a column, export the sheet as CSV.

    No GUI oracle: the Sort dialog and the CSV export's dialogs cost more proof time than the GUI budget left.
    """

    id = "workflow.markup_export"
    instruction_template = (
        "The spreadsheet {path} is open in LibreOffice Calc. Make the shop's price list: sort the item rows by "
        "Cost from highest to lowest (header stays in row 1); delete the Supplier column (B); then in the first "
        "empty column write Price in row 1 and, in each item row, a formula giving the Cost plus {markup}%. "
        "Save the sheet as a comma-separated CSV file {target} (header row included)."
    )
    file_name = "cost_list.xlsx"
    oracles = ("api",)
    tags = ("workflow", "calc", "sort", "formula", "export", "domain:calc")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        count = int(rng.integers(4, 8))
        suppliers = [f"Supplier {chr(65 + int(s))}" for s in rng.integers(0, 5, size=count)]
        costs = [value * 2 for value in distinct_ints(rng, 1, 200, count)]
        rows = [
            [item, supplier, cost]
            for item, supplier, cost in zip(draw(rng, ITEMS, count), suppliers, costs, strict=True)
        ]
        stem = f"prices_{int(rng.integers(1, 99)):02d}"
        return {"rows": rows, "markup": int(rng.choice(MARKUPS)), "target": f"~/Documents/{stem}.csv"}

    def sheets(self, params: Mapping[str, Any]) -> dict[str, Rows]:
        return {"Costs": [("Item", "Supplier", "Cost"), *params["rows"]]}

    def verify(self, ctx: TaskContext) -> VerifierResult:
        p = ctx.params
        ranked = sorted(p["rows"], key=lambda row: row[2], reverse=True)
        rows = [[item, cost, cost * (100 + p["markup"]) / 100] for item, _, cost in ranked]
        return verify_csv_rows(ctx.read_file(p["target"]), rows, header=["Item", "Cost", "Price"])

    def api_steps(self, params: Mapping[str, Any]) -> list[str]:
        last = len(params["rows"]) + 1
        factor = (100 + params["markup"]) / 100
        return [
            api("sort_range", cell_range=f"A1:C{last}", column="C", ascending=False),
            api("delete_columns", column="B"),
            api(
                "set_range_values",
                start_cell="C1",
                values=[["Price"], *([f"=B{r}*{factor}"] for r in range(2, last + 1))],
            ),
            api("save", path=params["target"]),
        ]

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "markup": next(markup for markup in MARKUPS if markup != params["markup"])}
