"""Workflow tier, Calc ledgers: per-row formulas, a summary row, formats and sheet structure on one
workbook, each checked on the saved file, so no single operation earns the reward.

Both families run on one Calc launch with API oracles (cheap to prove).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ...verifiers import (
    all_of,
    not_,
    verify_sheet_table,
    verify_xlsx_fill,
    verify_xlsx_formulas,
    verify_xlsx_freeze_panes,
    verify_xlsx_number_formats,
    verify_xlsx_sheet_names,
)
from ...verifiers.result import VerifierResult
from ..base import TaskContext
from .calc_base import SAVE, CalcFamily, Rows, api
from .samples import ITEMS, PEOPLE, draw, ints, quarter_prices

TERMS = ("Autumn", "Spring", "Summer")
AVERAGE_FORMAT = "0.00"


class GradeBook(CalcFamily):
    """Total two exam columns per student with formulas, average every column, format, rename the sheet.

    No GUI oracle: the number format and the sheet rename need dialogs, more proof time than the GUI budget left.
    """

    id = "workflow.grade_book"
    instruction_template = (
        "The spreadsheet {path} is open in LibreOffice Calc. Finish the grade book: in D1 write Total and in "
        "D2:D{last_row} a formula per row adding the student's Exam 1 and Exam 2 marks; in A{average_row} write "
        "Average and in B{average_row}:D{average_row} formulas averaging each column's students; give the "
        'averages the number format {average_format}; and rename the sheet "Sheet1" to "{sheet}". Save the '
        "file in its current xlsx format."
    )
    file_name = "grade_book.xlsx"
    oracles = ("api",)
    tags = ("workflow", "calc", "formula", "number-format", "sheets", "domain:calc")
    max_steps = 40

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        count = int(rng.integers(4, 8))
        rows = [
            [name, first, second]
            for name, first, second in zip(
                draw(rng, PEOPLE, count), ints(rng, 30, 100, count), ints(rng, 30, 100, count), strict=True
            )
        ]
        year = int(rng.integers(2021, 2027))
        return {
            "rows": rows,
            "last_row": count + 1,
            "average_row": count + 2,
            "average_format": AVERAGE_FORMAT,
            "sheet": f"{rng.choice(TERMS)} {year}",
        }

    def sheets(self, params: Mapping[str, Any]) -> dict[str, Rows]:
        return {"Sheet1": [("Student", "Exam 1", "Exam 2"), *params["rows"]]}

    def check(self, data: bytes | None, params: Mapping[str, Any], ctx: TaskContext) -> VerifierResult:
        rows, last, average_row, sheet = params["rows"], params["last_row"], params["average_row"], params["sheet"]
        totals = [[name, first, second, first + second] for name, first, second in rows]
        averages = [sum(row[column] for row in totals) / len(totals) for column in (1, 2, 3)]
        table = [["Student", "Exam 1", "Exam 2", "Total"], *totals, ["Average", *averages]]
        formulas: dict[str, str | None] = dict.fromkeys((f"D{r}" for r in range(2, last + 1)), None)  # any formula
        formulas |= {f"{c}{average_row}": "AVERAGE(" for c in "BCD"}
        return all_of(
            {
                "sheet renamed": verify_xlsx_sheet_names(data, [sheet]),
                "totals and averages": verify_sheet_table(data, table, sheet=sheet),
                "formulas": verify_xlsx_formulas(data, formulas, sheet=sheet, match="contains"),
                "average format": verify_xlsx_number_formats(
                    data, {f"{c}{average_row}": params["average_format"] for c in "BCD"}, sheet=sheet
                ),
            }
        )

    def api_steps(self, params: Mapping[str, Any]) -> list[str]:
        last, average_row = params["last_row"], params["average_row"]
        steps = [api("set_cell_value", cell="D1", value="Total")]
        steps += [api("set_cell_formula", cell=f"D{r}", formula=f"=B{r}+C{r}") for r in range(2, last + 1)]
        steps.append(api("set_cell_value", cell=f"A{average_row}", value="Average"))
        steps += [api("set_cell_formula", cell=f"{c}{average_row}", formula=f"=AVERAGE({c}2:{c}{last})") for c in "BCD"]
        return [
            *steps,
            api("set_number_format", cell_range=f"B{average_row}:D{average_row}", format_string=AVERAGE_FORMAT),
            api("rename_sheet", old_name="Sheet1", new_name=params["sheet"]),
            SAVE,
        ]

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "sheet": f"{params['sheet']} final"}


ALERT_FILL = "FFC7CE"  # Calc's "light red" for warnings


class StockAlert(CalcFamily):
    """Drop the supplier column, flag low-stock rows with a fill, and freeze the header row.

    No GUI oracle: a fill per low-stock row via Format Cells costs more proof time than the GUI budget left.
    """

    id = "workflow.stock_alert"
    instruction_template = (
        "The spreadsheet {path} is open in LibreOffice Calc. Prepare the stock sheet for the warehouse: delete "
        "the Supplier column (B), then give every item row whose Stock is below {threshold} the background "
        "colour #{fill} across its three remaining columns (leave the other rows uncoloured), and freeze the "
        "header row so it stays visible when scrolling. Save the file in its current xlsx format."
    )
    file_name = "stock_levels.xlsx"
    oracles = ("api",)
    tags = ("workflow", "calc", "structure", "format", "domain:calc")
    max_steps = 40

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        count = int(rng.integers(5, 9))
        threshold = int(rng.integers(20, 60))
        stock = ints(rng, 0, 120, count)
        low, high = (int(index) for index in rng.choice(count, size=2, replace=False))
        stock[low] = int(rng.integers(0, threshold))  # at least one row to flag
        stock[high] = int(rng.integers(threshold, 150))  # and at least one that stays plain
        suppliers = [f"Supplier {chr(65 + int(rng.integers(0, 6)))}" for _ in range(count)]
        rows = [
            [item, supplier, level, price]
            for item, supplier, level, price in zip(
                draw(rng, ITEMS, count), suppliers, stock, ints(rng, 2, 90, count), strict=True
            )
        ]
        return {"rows": rows, "threshold": threshold, "fill": ALERT_FILL}

    def sheets(self, params: Mapping[str, Any]) -> dict[str, Rows]:
        return {"Stock": [("Item", "Supplier", "Stock", "Price"), *params["rows"]]}

    def low_rows(self, params: Mapping[str, Any]) -> list[int]:
        return [index + 2 for index, row in enumerate(params["rows"]) if row[2] < params["threshold"]]

    def check(self, data: bytes | None, params: Mapping[str, Any], ctx: TaskContext) -> VerifierResult:
        low = self.low_rows(params)
        plain = [index + 2 for index in range(len(params["rows"])) if index + 2 not in low]
        table = [["Item", "Stock", "Price"], *([item, level, price] for item, _, level, price in params["rows"])]
        checks = {
            "supplier column deleted": verify_sheet_table(data, table, sheet="Stock"),
            "low rows filled": verify_xlsx_fill(data, [f"A{r}:C{r}" for r in low], params["fill"], sheet="Stock"),
            "header frozen": verify_xlsx_freeze_panes(data, "A2", sheet="Stock"),
        }
        checks |= {
            f"row {r} not filled": not_(verify_xlsx_fill(data, f"A{r}", params["fill"], sheet="Stock")) for r in plain
        }
        return all_of(checks)

    def api_steps(self, params: Mapping[str, Any]) -> list[str]:
        fills = [
            api("set_background_color", cell_range=f"A{r}:C{r}", color=f"#{params['fill']}")
            for r in self.low_rows(params)
        ]
        return [api("delete_columns", column="B"), *fills, api("freeze_panes", cell="A2"), SAVE]

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        levels = sorted({row[2] for row in params["rows"]})
        above = [level for level in levels if level >= params["threshold"]]
        return {**params, "threshold": above[0] + 1 if above else params["threshold"] + 1}


SUPPLIERS = ("Acme", "Borealis", "Castell", "Dunmore", "Everly")
PRICE_FORMAT = "#,##0.00"


class PriceList(CalcFamily):
    """Rename a supplier everywhere, sort by price from highest, and give the prices a two-decimal format.

    No GUI oracle: Find & Replace, Sort and Format Cells dialogs cost more proof time than the GUI budget left.
    """

    id = "workflow.price_list"
    instruction_template = (
        "The spreadsheet {path} is open in LibreOffice Calc. Update the price list: the supplier {old} is now "
        "called {new}, so replace that name in every cell where it is the whole content; sort the item rows by "
        "Price from highest to lowest (keep each row together and the header in row 1); and give the prices "
        "(C2:C{last_row}) the number format {price_format}. Save the file in its current xlsx format."
    )
    file_name = "price_list.xlsx"
    oracles = ("api",)
    tags = ("workflow", "calc", "sort", "number-format", "domain:calc")
    max_steps = 40

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        count = int(rng.integers(4, 8))
        old, new, other = (str(name) for name in rng.choice(SUPPLIERS, size=3, replace=False))
        suppliers = [str(rng.choice((old, other))) for _ in range(count)]
        suppliers[int(rng.integers(count))] = old  # at least one row to rename
        prices = quarter_prices(rng, count, high=800)
        rows = [
            [item, supplier, price]
            for item, supplier, price in zip(draw(rng, ITEMS, count), suppliers, prices, strict=True)
        ]
        return {"rows": rows, "old": old, "new": new, "last_row": count + 1, "price_format": PRICE_FORMAT}

    def sheets(self, params: Mapping[str, Any]) -> dict[str, Rows]:
        return {"Prices": [("Item", "Supplier", "Price"), *params["rows"]]}

    def check(self, data: bytes | None, params: Mapping[str, Any], ctx: TaskContext) -> VerifierResult:
        renamed = [[item, params["new"] if s == params["old"] else s, price] for item, s, price in params["rows"]]
        ordered = [["Item", "Supplier", "Price"], *sorted(renamed, key=lambda row: row[2], reverse=True)]
        formats = {f"C{r}": params["price_format"] for r in range(2, params["last_row"] + 1)}
        return all_of(
            {
                "renamed and sorted": verify_sheet_table(data, ordered, sheet="Prices"),
                "price format": verify_xlsx_number_formats(data, formats, sheet="Prices"),
            }
        )

    def api_steps(self, params: Mapping[str, Any]) -> list[str]:
        last = params["last_row"]
        return [
            api("find_replace", find=params["old"], replace=params["new"], match_case=True, whole_cell=True),
            api("sort_range", cell_range=f"A1:C{last}", column="C", ascending=False),
            api("set_number_format", cell_range=f"C2:C{last}", format_string=params["price_format"]),
            SAVE,
        ]

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "new": f"{params['new']} Ltd"}
