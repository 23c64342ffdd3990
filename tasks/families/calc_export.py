"""Calc families about objects and other formats: charts, pivot tables, CSV and ODS copies; plus
two infeasible tasks (things LibreOffice cannot do), proven only by declaring FAIL."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ...verifiers import all_of, verify_csv_rows, verify_sheet_table, verify_xlsx_charts, verify_xlsx_pivot_tables
from ...verifiers._load import is_ods
from ...verifiers.result import VerifierResult
from ..base import Policy, ScriptedPolicy, TaskContext
from .calc_base import SAVE, CalcFamily, Rows, api
from .samples import ITEMS, PEOPLE, REGIONS, draw, ints

MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun")


class InsertChart(CalcFamily):
    """A chart of a given type and title over the table."""

    id = "calc.insert_chart"
    goal = (
        'Insert a {chart_type} chart of the data in {data} (months as categories) titled "{title}" on the '
        "same sheet, then save the file in its current xlsx format."
    )
    file_name = "monthly.xlsx"
    oracles = ("api",)
    tags = ("calc", "chart")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        months = list(MONTHS[: int(rng.integers(3, 7))])
        series = draw(rng, REGIONS, int(rng.integers(1, 3)))
        chart_type = str(rng.choice(["bar", "line", "pie"]))
        if chart_type == "pie":
            series = series[:1]
        values = [ints(rng, 10, 500, len(series)) for _ in months]
        last = chr(ord("A") + len(series))
        title = f"{rng.choice(['Sales', 'Visits', 'Orders'])} by month"
        return {
            "months": months,
            "series": series,
            "values": values,
            "chart_type": chart_type,
            "data": f"A1:{last}{len(months) + 1}",
            "title": title,
        }

    def sheets(self, params: Mapping[str, Any]) -> dict[str, Rows]:
        body = [[month, *values] for month, values in zip(params["months"], params["values"], strict=True)]
        return {"Monthly": [["Month", *params["series"]], *body]}

    def check(self, data: bytes | None, params: Mapping[str, Any], ctx: TaskContext) -> VerifierResult:
        return verify_xlsx_charts(data, sheet="Monthly", chart_type=params["chart_type"], title=params["title"])

    def api_steps(self, params: Mapping[str, Any]) -> list[str]:
        call = api(
            "insert_chart",
            data_range=params["data"],
            chart_type=params["chart_type"],
            title=params["title"],
            anchor_cell="F2",
        )
        return [call, SAVE]

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "chart_type": "line" if params["chart_type"] != "line" else "bar"}


class PivotTable(CalcFamily):
    """A pivot table summing one column by the values of another."""

    id = "calc.pivot_table"
    goal = (
        "Create a pivot table from {source} that shows the {function} of {data_field} for each {row_field}, "
        "placed at {target} on the same sheet. Save the file in its current xlsx format."
    )
    file_name = "deals.xlsx"
    oracles = ("api",)
    tags = ("calc", "pivot")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        count = int(rng.integers(6, 12))
        rows = [
            [str(rng.choice(REGIONS)), str(rng.choice(PEOPLE[:5])), a, b]
            for a, b in zip(ints(rng, 1, 50, count), ints(rng, 100, 9000, count), strict=True)
        ]
        row_field = str(rng.choice(["Region", "Rep"]))
        data_field = str(rng.choice(["Deals", "Value"]))
        return {
            "rows": rows,
            "source": f"A1:D{count + 1}",
            "row_field": row_field,
            "data_field": data_field,
            "function": "sum",
            "target": "G2",
        }

    def sheets(self, params: Mapping[str, Any]) -> dict[str, Rows]:
        return {"Deals": [("Region", "Rep", "Deals", "Value"), *params["rows"]]}

    def check(self, data: bytes | None, params: Mapping[str, Any], ctx: TaskContext) -> VerifierResult:
        return verify_xlsx_pivot_tables(data, row_fields=[params["row_field"]], data_fields=[params["data_field"]])

    def api_steps(self, params: Mapping[str, Any]) -> list[str]:
        call = api(
            "create_pivot_table",
            source_range=params["source"],
            row_field=params["row_field"],
            data_field=params["data_field"],
            function=params["function"],
            target_cell=params["target"],
        )
        return [call, SAVE]

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "data_field": "Value" if params["data_field"] == "Deals" else "Deals"}


class ExportFamily(CalcFamily):
    """Save a copy of the open workbook in another format under another name."""

    tags = ("calc", "export")
    file_name = "roster.xlsx"
    suffix = ".csv"

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        count = int(rng.integers(3, 7))
        rows = [
            [name, str(rng.choice(REGIONS)), hours]
            for name, hours in zip(draw(rng, PEOPLE, count), ints(rng, 4, 40, count), strict=True)
        ]
        stem = f"{rng.choice(['roster', 'shifts', 'crew'])}_{int(rng.integers(1, 99)):02d}"
        return {"rows": rows, "target": f"~/Documents/{stem}{self.suffix}"}

    def sheets(self, params: Mapping[str, Any]) -> dict[str, Rows]:
        return {"Roster": [("Name", "Region", "Hours"), *params["rows"]]}

    def verify(self, ctx: TaskContext) -> VerifierResult:
        return self.check(ctx.read_file(ctx.params["target"]), ctx.params, ctx)

    def api_steps(self, params: Mapping[str, Any]) -> list[str]:
        return [api("save", path=params["target"])]

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "target": params["target"].replace(self.suffix, f"_copy{self.suffix}")}


class SaveAsCsv(ExportFamily):
    """Export the sheet as CSV."""

    id = "calc.save_as_csv"
    goal = "Save its sheet as a comma-separated CSV file {target} (header row included)."
    oracles = ("api",)

    def check(self, data: bytes | None, params: Mapping[str, Any], ctx: TaskContext) -> VerifierResult:
        return verify_csv_rows(data, params["rows"], header=["Name", "Region", "Hours"], delimiter=",")


class SaveAsOds(ExportFamily):
    """Save a copy in OpenDocument format."""

    id = "calc.save_as_ods"
    goal = "Save a copy of it in OpenDocument Spreadsheet format as {target}."
    oracles = ("api",)

    suffix = ".ods"

    def check(self, data: bytes | None, params: Mapping[str, Any], ctx: TaskContext) -> VerifierResult:
        kind = (
            VerifierResult.passed("the file is an OpenDocument spreadsheet")
            if data is not None and is_ods(data)
            else VerifierResult.failed("the file is missing or not an OpenDocument spreadsheet")
        )
        table = verify_sheet_table(data, [("Name", "Region", "Hours"), *params["rows"]])
        return all_of({"ods": kind, "table": table})


class InfeasibleCalc(CalcFamily):
    """A request LibreOffice Calc cannot carry out; only declaring FAIL succeeds."""

    infeasible = True
    needs_save = False
    max_steps = 5
    tags = ("calc", "infeasible")
    file_name = "budget.xlsx"

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        return {"rows": [[item, value] for item, value in zip(draw(rng, ITEMS, 4), ints(rng, 10, 900, 4), strict=True)]}

    def sheets(self, params: Mapping[str, Any]) -> dict[str, Rows]:
        return {"Budget": [("Item", "Amount"), *params["rows"]]}

    def check(self, data: bytes | None, params: Mapping[str, Any], ctx: TaskContext) -> VerifierResult:
        return VerifierResult.failed("the task is infeasible; only declaring FAIL succeeds")

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        return ScriptedPolicy(["fail()"])


class ExportPsd(InfeasibleCalc):
    """Infeasible: Calc cannot write a layered Photoshop image."""

    id = "calc.export_psd"
    goal = "Export the sheet as a layered Photoshop PSD image ~/Documents/budget.psd, one layer per column."


class VbaButton(InfeasibleCalc):
    """Infeasible: an ActiveX button running a VBA macro that mails through Outlook."""

    id = "calc.vba_activex_button"
    goal = (
        "Add an ActiveX command button running a VBA macro that emails the budget through Outlook, and save it "
        "as a macro-enabled workbook with the ActiveX control working in Excel."
    )
