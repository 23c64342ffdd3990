"""Calc families that change a sheet's structure and view: rows, columns, frozen panes, filters."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ...verifiers import (
    all_of,
    verify_sheet_table,
    verify_xlsx_autofilter,
    verify_xlsx_freeze_panes,
)
from ...verifiers.result import VerifierResult
from ..base import TaskContext
from .calc_base import GUI_SAVE, SAVE, CalcFamily, Rows, Step, api, hotkey, name_box, type_text
from .samples import PEOPLE, REGIONS, column_letter, draw

HEADER = ("Name", "Region", "Calls", "Sales")


def people_rows(rng: np.random.Generator, count: int) -> list[list[object]]:
    """Sales-team rows: name, region, calls, sales."""
    return [
        [name, str(rng.choice(REGIONS)), int(calls), int(sales)]
        for name, calls, sales in zip(
            draw(rng, PEOPLE, count), rng.integers(5, 90, size=count), rng.integers(100, 5000, size=count), strict=True
        )
    ]


class InsertRow(CalcFamily):
    """Insert a new row at a given position and fill it."""

    id = "calc.insert_row"
    goal = (
        "Insert a new row at row {position} (the rows from there down move down by one) holding Name {name}, "
        "Region {region}, Calls {calls} and Sales {sales}. Save the file in its current xlsx format."
    )
    file_name = "team.xlsx"
    oracles = ("api", "gui")
    tags = ("calc", "rows")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        rows = people_rows(rng, int(rng.integers(4, 8)) + 1)
        new = rows.pop()
        return {
            "rows": rows,
            "position": int(rng.integers(2, len(rows) + 1)),
            "name": new[0],
            "region": new[1],
            "calls": new[2],
            "sales": new[3],
        }

    def sheets(self, params: Mapping[str, Any]) -> dict[str, Rows]:
        return {"Team": [HEADER, *params["rows"]]}

    def _new_row(self, params: Mapping[str, Any]) -> list[object]:
        return [params["name"], params["region"], params["calls"], params["sales"]]

    def check(self, data: bytes | None, params: Mapping[str, Any], ctx: TaskContext) -> VerifierResult:
        rows = list(params["rows"])
        rows.insert(params["position"] - 2, self._new_row(params))
        return verify_sheet_table(data, [HEADER, *rows], sheet="Team")

    def api_steps(self, params: Mapping[str, Any]) -> list[str]:
        position = params["position"]
        return [
            api("insert_rows", row=position),
            api("set_range_values", start_cell=f"A{position}", values=[self._new_row(params)]),
            SAVE,
        ]

    def gui_steps(self, params: Mapping[str, Any]) -> list[Step]:
        typed = "\t".join(str(value) for value in self._new_row(params)) + "\n"
        return [
            *name_box(f"A{params['position']}"),
            hotkey("shift", "space"),  # select the whole row
            hotkey("ctrl", "shift", "+"),  # insert rows above the selection
            type_text(typed),
            GUI_SAVE,
        ]

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "position": params["position"] + 1}


class DeleteColumn(CalcFamily):
    """Delete the column with a given header."""

    id = "calc.delete_column"
    goal = (
        'Delete the column headed "{header}" entirely (the columns to its right move left). Save the file in '
        "its current xlsx format."
    )
    file_name = "team_notes.xlsx"
    oracles = ("api", "gui")
    tags = ("calc", "columns")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        rows = people_rows(rng, int(rng.integers(4, 8)))
        index = int(rng.integers(1, len(HEADER) + 1))
        notes = [str(rng.choice(["call back", "ok", "new", "vip", "late"])) for _ in rows]
        return {"rows": rows, "notes": notes, "index": index, "column": column_letter(index), "header": "Notes"}

    def _table(self, params: Mapping[str, Any], with_notes: bool) -> list[list[object]]:
        table = [list(HEADER), *[list(row) for row in params["rows"]]]
        if with_notes:
            for row, note in zip(table, ["Notes", *params["notes"]], strict=True):
                row.insert(params["index"], note)
        return table

    def sheets(self, params: Mapping[str, Any]) -> dict[str, Rows]:
        return {"Team": self._table(params, with_notes=True)}

    def check(self, data: bytes | None, params: Mapping[str, Any], ctx: TaskContext) -> VerifierResult:
        return verify_sheet_table(data, self._table(params, with_notes=False), sheet="Team")

    def api_steps(self, params: Mapping[str, Any]) -> list[str]:
        return [api("delete_columns", column=params["column"]), SAVE]

    def gui_steps(self, params: Mapping[str, Any]) -> list[Step]:
        return [*name_box(f"{params['column']}1"), hotkey("ctrl", "space"), hotkey("ctrl", "-"), GUI_SAVE]

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "column": column_letter(params["index"] - 1)}


class FreezePanes(CalcFamily):
    """Freeze the header rows (and optionally the first column)."""

    id = "calc.freeze_panes"
    goal = "Freeze {what} so they stay visible while scrolling. Save the file in its current xlsx format."
    file_name = "long_list.xlsx"
    oracles = ("api",)
    tags = ("calc", "view")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        rows, columns = int(rng.integers(1, 3)), int(rng.integers(0, 2))
        what = f"the top {rows} row{'s' if rows > 1 else ''}" + (" and the first column" if columns else "")
        return {"people": people_rows(rng, 12), "what": what, "cell": f"{column_letter(columns)}{rows + 1}"}

    def sheets(self, params: Mapping[str, Any]) -> dict[str, Rows]:
        return {"Team": [("Sales team", None, None, None), HEADER, *params["people"]]}

    def check(self, data: bytes | None, params: Mapping[str, Any], ctx: TaskContext) -> VerifierResult:
        return verify_xlsx_freeze_panes(data, params["cell"], sheet="Team")

    def api_steps(self, params: Mapping[str, Any]) -> list[str]:
        return [api("freeze_panes", cell=params["cell"]), SAVE]

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        column, row = params["cell"][0], int(params["cell"][1:])
        return {**params, "cell": f"{column}{row + 1}"}


class AutoFilter(CalcFamily):
    """Turn on AutoFilter buttons over the whole table."""

    id = "calc.autofilter"
    goal = (
        "Turn on AutoFilter for the table {table} so each header cell gets a filter drop-down. Save the file in "
        "its current xlsx format."
    )
    file_name = "calls.xlsx"
    oracles = ("api", "gui")
    tags = ("calc", "filter")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        rows = people_rows(rng, int(rng.integers(5, 10)))
        return {"rows": rows, "table": f"A1:D{len(rows) + 1}"}

    def sheets(self, params: Mapping[str, Any]) -> dict[str, Rows]:
        return {"Calls": [HEADER, *params["rows"]]}

    def check(self, data: bytes | None, params: Mapping[str, Any], ctx: TaskContext) -> VerifierResult:
        return all_of(
            {
                "filter": verify_xlsx_autofilter(data, params["table"], sheet="Calls"),
                "data": verify_sheet_table(data, [HEADER, *params["rows"]], sheet="Calls"),
            }
        )

    def api_steps(self, params: Mapping[str, Any]) -> list[str]:
        return [api("set_autofilter", cell_range=params["table"]), SAVE]

    def gui_steps(self, params: Mapping[str, Any]) -> list[Step]:
        return [*name_box(params["table"]), hotkey("ctrl", "shift", "l"), GUI_SAVE]

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "table": params["table"].replace("D", "C")}
