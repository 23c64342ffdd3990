"""Calc families about formulas: each verifier wants a formula in the cell AND the right value."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ...verifiers import all_of, verify_xlsx_cells, verify_xlsx_formulas
from ...verifiers.result import VerifierResult
from ..base import TaskContext
from .calc_base import GUI_SAVE, SAVE, CalcFamily, Rows, Step, api, name_box, type_text
from .samples import ITEMS, PEOPLE, draw, ints


def formula_and_value(
    data: bytes | None, sheet: str, expected: Mapping[str, object], function: str | None = None
) -> VerifierResult:
    """Each cell holds a formula (using ``function`` when given) whose cached value is the expected one."""
    needle = None if function is None else f"{function}("
    return all_of(
        {
            "formulas": verify_xlsx_formulas(data, {ref: needle for ref in expected}, sheet=sheet, match="contains"),
            "values": verify_xlsx_cells(data, expected, sheet=sheet),  # type: ignore[arg-type]
        }
    )


def fewer_rows(params: Mapping[str, Any]) -> dict[str, Any]:
    """Parameters whose oracle stops one row short (the last row stays unfilled)."""
    return {**params, "rows": params["rows"] - 1}


class FormulaColumn(CalcFamily):
    """A family whose solution is one formula per data row, written down one column from ``first_cell``."""

    first_cell = "D2"

    def _formulas(self, params: Mapping[str, Any]) -> list[str]:
        raise NotImplementedError

    def api_steps(self, params: Mapping[str, Any]) -> list[str]:
        return [api("set_range_values", start_cell=self.first_cell, values=[[f] for f in self._formulas(params)]), SAVE]

    def gui_steps(self, params: Mapping[str, Any]) -> list[Step]:
        typed = "".join(f"{formula}\n" for formula in self._formulas(params))
        return [*name_box(self.first_cell), type_text(typed), GUI_SAVE]

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return fewer_rows(params)


class FillFormulaColumn(FormulaColumn):
    """Revenue = Units x Price for every row, as formulas."""

    id = "calc.fill_formula_column"
    goal = (
        "Fill column D (Revenue) with a formula that multiplies Units (column B) by Price (column C) for each "
        "of the {rows} item rows, then save the file in its current xlsx format."
    )
    file_name = "revenue.xlsx"
    oracles = ("api", "gui")
    tags = ("calc", "formula")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        rows = int(rng.integers(4, 8))
        return {
            "rows": rows,
            "items": draw(rng, ITEMS, rows),
            "units": ints(rng, 2, 60, rows),
            "prices": [cents / 100 for cents in ints(rng, 50, 2000, rows)],
        }

    def sheets(self, params: Mapping[str, Any]) -> dict[str, Rows]:
        body = list(zip(params["items"], params["units"], params["prices"], strict=True))
        return {"Sales": [("Item", "Units", "Price", "Revenue"), *body]}

    def check(self, data: bytes | None, params: Mapping[str, Any], ctx: TaskContext) -> VerifierResult:
        expected = {f"D{i + 2}": u * p for i, (u, p) in enumerate(zip(params["units"], params["prices"], strict=True))}
        return formula_and_value(data, "Sales", expected)

    def _formulas(self, params: Mapping[str, Any]) -> list[str]:
        return [f"=B{row}*C{row}" for row in range(2, params["rows"] + 2)]


class SummaryRow(CalcFamily):
    """A row under the table with SUM or AVERAGE formulas per numeric column."""

    id = "calc.summary_row"
    goal = (
        "In row {summary_row}, directly below the table, write the label {label} in column A and, in columns B, "
        "C and D, a formula giving the {stat} of that column's values in rows 2 to {last_row}. Save the file in "
        "its current xlsx format."
    )
    file_name = "quarters.xlsx"
    oracles = ("api", "gui")
    tags = ("calc", "formula", "aggregate")

    functions = {"sum": "SUM", "average": "AVERAGE"}

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        rows = int(rng.integers(4, 8))
        stat = str(rng.choice(list(self.functions)))
        return {
            "rows": rows,
            "last_row": rows + 1,
            "summary_row": rows + 2,
            "stat": stat,
            "label": "Total" if stat == "sum" else "Mean",
            "names": draw(rng, PEOPLE, rows),
            "values": [ints(rng, 10, 900, 3) for _ in range(rows)],
        }

    def sheets(self, params: Mapping[str, Any]) -> dict[str, Rows]:
        body = [(name, *values) for name, values in zip(params["names"], params["values"], strict=True)]
        return {"Quarters": [("Agent", "Q1", "Q2", "Q3"), *body]}

    def check(self, data: bytes | None, params: Mapping[str, Any], ctx: TaskContext) -> VerifierResult:
        row, columns = params["summary_row"], list(zip(*params["values"], strict=True))
        expected: dict[str, object] = {}
        for letter, column in zip("BCD", columns, strict=True):
            expected[f"{letter}{row}"] = sum(column) / (len(column) if params["stat"] == "average" else 1)
        return all_of(
            {
                "label": verify_xlsx_cells(data, {f"A{row}": params["label"]}, sheet="Quarters"),
                "totals": formula_and_value(data, "Quarters", expected, self.functions[params["stat"]]),
            }
        )

    def _formulas(self, params: Mapping[str, Any]) -> list[str]:
        function = self.functions[params["stat"]]
        return [f"={function}({c}2:{c}{params['last_row']})" for c in "BCD"]

    def api_steps(self, params: Mapping[str, Any]) -> list[str]:
        row = [params["label"], *self._formulas(params)]
        return [api("set_range_values", start_cell=f"A{params['summary_row']}", values=[row]), SAVE]

    def gui_steps(self, params: Mapping[str, Any]) -> list[Step]:
        typed = "\t".join([params["label"], *self._formulas(params)]) + "\n"
        return [*name_box(f"A{params['summary_row']}"), type_text(typed), GUI_SAVE]

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "stat": "average" if params["stat"] == "sum" else "sum"}


class VlookupPrices(FormulaColumn):
    """Fill unit prices from a price list on the same sheet with VLOOKUP."""

    id = "calc.vlookup_prices"
    goal = (
        "Column C (Unit price) of the {rows} orders is empty; the price list is in F1:G{list_end}. Fill "
        "C2:C{last_row} with VLOOKUP formulas that look up each order's product (column B) in the price list. "
        "Save the file in its current xlsx format."
    )
    file_name = "orders.xlsx"
    oracles = ("api", "gui")
    tags = ("calc", "formula", "lookup")

    first_cell = "C2"

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        catalogue = draw(rng, ITEMS, int(rng.integers(4, 7)))
        rows = int(rng.integers(4, 8))
        return {
            "rows": rows,
            "last_row": rows + 1,
            "list_end": len(catalogue) + 1,
            "catalogue": catalogue,
            "list_prices": ints(rng, 2, 99, len(catalogue)),
            "ordered": [str(rng.choice(catalogue)) for _ in range(rows)],
        }

    def sheets(self, params: Mapping[str, Any]) -> dict[str, Rows]:
        table: list[list[object]] = [["Order", "Product", "Unit price", None, None, "Product", "Price"]]
        listing = list(zip(params["catalogue"], params["list_prices"], strict=True))
        for index in range(max(params["rows"], len(listing))):
            row: list[object] = [None] * 7
            if index < params["rows"]:
                row[:3] = [1001 + index, params["ordered"][index], None]
            if index < len(listing):
                row[5:7] = listing[index]
            table.append(row)
        return {"Orders": table}

    def check(self, data: bytes | None, params: Mapping[str, Any], ctx: TaskContext) -> VerifierResult:
        price = dict(zip(params["catalogue"], params["list_prices"], strict=True))
        expected = {f"C{i + 2}": price[product] for i, product in enumerate(params["ordered"])}
        return formula_and_value(data, "Orders", expected, "VLOOKUP")

    def _formulas(self, params: Mapping[str, Any]) -> list[str]:
        # ";" separates arguments in both the UNO formula API and (en-US) typed input.
        table = f"$F$2:$G${params['list_end']}"
        return [f"=VLOOKUP(B{row};{table};2;0)" for row in range(2, params["rows"] + 2)]


class IfPassFail(FormulaColumn):
    """Pass/Fail per score with IF and a threshold."""

    id = "calc.if_pass_fail"
    goal = (
        'In column C (Result) of each of the {rows} students, enter an IF formula that shows "Pass" when the '
        'Score in column B is at least {threshold} and "Fail" otherwise. Save the file in its current xlsx '
        "format."
    )
    file_name = "scores.xlsx"
    oracles = ("api", "gui")
    tags = ("calc", "formula", "logic")

    first_cell = "C2"

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        rows = int(rng.integers(5, 9))
        threshold = int(rng.integers(45, 75))
        scores = ints(rng, 20, 100, rows)
        scores[0], scores[1] = threshold + int(rng.integers(0, 20)), threshold - int(rng.integers(1, 20))
        return {"rows": rows, "threshold": threshold, "names": draw(rng, PEOPLE, rows), "scores": scores}

    def sheets(self, params: Mapping[str, Any]) -> dict[str, Rows]:
        body = [(name, score, None) for name, score in zip(params["names"], params["scores"], strict=True)]
        return {"Scores": [("Student", "Score", "Result"), *body]}

    def check(self, data: bytes | None, params: Mapping[str, Any], ctx: TaskContext) -> VerifierResult:
        expected = {
            f"C{i + 2}": "Pass" if score >= params["threshold"] else "Fail" for i, score in enumerate(params["scores"])
        }
        return formula_and_value(data, "Scores", expected, "IF")

    def _formulas(self, params: Mapping[str, Any]) -> list[str]:
        return [f'=IF(B{row}>={params["threshold"]};"Pass";"Fail")' for row in range(2, params["rows"] + 2)]

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        # Above every score: each row reads "Fail", though the first student passes.
        return {**params, "threshold": max(params["scores"]) + 1}


class GrandTotal(CalcFamily):
    """One formula computing the sum over rows of Qty x Unit price."""

    id = "calc.grand_total"
    goal = (
        "In cell {target}, compute the grand total of the invoice (the sum over rows 2 to {last_row} of Qty "
        "times Unit price) with a single formula, so it updates when the table changes. Save the file in its "
        "current xlsx format."
    )
    file_name = "invoice.xlsx"
    oracles = ("api", "gui")
    tags = ("calc", "formula", "aggregate")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        rows = int(rng.integers(4, 9))
        return {
            "rows": rows,
            "last_row": rows + 1,
            "target": str(rng.choice(["F2", "F3", "G2"])),
            "items": draw(rng, ITEMS, rows),
            "qty": ints(rng, 1, 25, rows),
            "unit": ints(rng, 3, 120, rows),
        }

    def sheets(self, params: Mapping[str, Any]) -> dict[str, Rows]:
        body = list(zip(params["items"], params["qty"], params["unit"], strict=True))
        return {"Invoice": [("Item", "Qty", "Unit price"), *body]}

    def check(self, data: bytes | None, params: Mapping[str, Any], ctx: TaskContext) -> VerifierResult:
        total = sum(q * u for q, u in zip(params["qty"], params["unit"], strict=True))
        return formula_and_value(data, "Invoice", {params["target"]: total})

    def _formula(self, params: Mapping[str, Any]) -> str:
        last = params["rows"] + 1
        return f"=SUMPRODUCT(B2:B{last};C2:C{last})"

    def api_steps(self, params: Mapping[str, Any]) -> list[str]:
        return [api("set_cell_formula", cell=params["target"], formula=self._formula(params)), SAVE]

    def gui_steps(self, params: Mapping[str, Any]) -> list[Step]:
        return [*name_box(params["target"]), type_text(self._formula(params) + "\n"), GUI_SAVE]

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return fewer_rows(params)
