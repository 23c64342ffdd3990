"""Workflow tier, Calc table cleanup: a sales table with an empty row, a repeated row and a misspelt
region is cleaned, then totalled by formula, each checked on the saved workbook.

One Calc launch; an API oracle, and a GUI oracle through the Name Box and keys. The cleaned table must
keep the remaining rows in their order, so deleting the wrong copy of the repeated row, or sorting,
fails too.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ...verifiers import all_of, verify_sheet_table, verify_xlsx_formulas
from ...verifiers.result import VerifierResult
from ..base import TaskContext
from .calc_base import GUI_SAVE, SAVE, CalcFamily, Rows, Step, api, hotkey, name_box, type_text
from .samples import ITEMS, REGIONS, draw, ints

HEADER = ("Region", "Item", "Units")
TYPOS = {"North": "Nrth", "South": "Soth", "East": "Eest", "West": "Wset"}


class TableCleanup(CalcFamily):
    """Delete an empty row and a repeated row, correct a misspelt region everywhere, add a SUM total."""

    id = "workflow.table_cleanup"
    instruction_template = (
        "The spreadsheet {path} is open in LibreOffice Calc. Clean up the Sales sheet: delete the empty row "
        "between the data rows; delete the row that repeats an earlier row exactly (keep the earlier one); the "
        'region "{region}" is misspelt "{typo}" in some cells, so correct it in every cell whose whole '
        'content is "{typo}"; keep the remaining rows in their order. Then put Total in A{total_row} and a '
        "formula summing the Units above it in C{total_row}. Save the file in its current xlsx format."
    )
    file_name = "sales_raw.xlsx"
    oracles = ("api", "gui")
    tags = ("workflow", "calc", "cleanup", "find-replace", "formula", "domain:calc")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        count = int(rng.integers(5, 8))
        regions = [str(name) for name in rng.choice(REGIONS, size=count)]
        region = regions[0]
        rows = [list(row) for row in zip(regions, draw(rng, ITEMS, count), ints(rng, 3, 95, count), strict=True)]
        rng.shuffle(rows)
        misspelt = [index for index, row in enumerate(rows) if row[0] == region]
        for index in misspelt[: max(1, len(misspelt) - 1)]:  # at least one typo; one correct copy where possible
            rows[index][0] = TYPOS[region]
        repeated = int(rng.integers(count))
        dirty: list[list[Any]] = [list(row) for row in rows]
        dirty.insert(int(rng.integers(repeated + 1, count + 1)), list(rows[repeated]))  # after its original
        dirty.insert(int(rng.integers(1, len(dirty))), [None, None, None])  # an empty row between data rows
        return {
            "dirty": dirty,
            "region": region,
            "typo": TYPOS[region],
            "last_row": count + 1,
            "total_row": count + 2,
        }

    def sheets(self, params: Mapping[str, Any]) -> dict[str, Rows]:
        return {"Sales": [HEADER, *params["dirty"]]}

    @staticmethod
    def cleaned(params: Mapping[str, Any]) -> list[list[Any]]:
        """The data rows left: no empty row, the first copy of each row only, the typo corrected."""
        kept: list[list[Any]] = []
        for row in params["dirty"]:
            fixed = [params["region"] if row[0] == params["typo"] else row[0], *row[1:]]
            if row[0] is not None and fixed not in kept:
                kept.append(fixed)
        return kept

    def check(self, data: bytes | None, params: Mapping[str, Any], ctx: TaskContext) -> VerifierResult:
        rows = self.cleaned(params)
        table = [HEADER, *rows, ["Total", None, sum(row[2] for row in rows)]]
        total_row = params["total_row"]
        return all_of(
            {
                "cleaned table with total": verify_sheet_table(data, table, sheet="Sales"),
                "total is a formula": verify_xlsx_formulas(
                    data, {f"C{total_row}": f"SUM(C2:C{params['last_row']})"}, sheet="Sales", match="contains"
                ),
            }
        )

    @staticmethod
    def doomed_rows(params: Mapping[str, Any]) -> list[int]:
        """The sheet rows to delete (the empty one and the repeat), bottom up: row numbers stay valid."""
        seen: list[list[Any]] = []
        doomed = []
        for number, row in enumerate(params["dirty"], start=2):
            if row[0] is None or row in seen:
                doomed.append(number)
            seen.append(row)
        return doomed[::-1]

    def api_steps(self, params: Mapping[str, Any]) -> list[str]:
        total_row = params["total_row"]
        return [
            *(api("delete_rows", row=row) for row in self.doomed_rows(params)),
            api("find_replace", find=params["typo"], replace=params["region"], match_case=True, whole_cell=True),
            api("set_cell_value", cell=f"A{total_row}", value="Total"),
            api("set_cell_formula", cell=f"C{total_row}", formula=f"=SUM(C2:C{params['last_row']})"),
            SAVE,
        ]

    def gui_steps(self, params: Mapping[str, Any]) -> list[Step]:
        # Each doomed row: select it (Shift+Space) and delete it (Ctrl+-); then retype each misspelt cell
        # (the end state of a whole-cell replace) and type the total's label and formula.
        steps: list[Step] = []
        for row in self.doomed_rows(params):
            steps += [*name_box(f"A{row}"), hotkey("shift", "space"), hotkey("ctrl", "-")]
        kept = [row for index, row in enumerate(params["dirty"], start=2) if index not in self.doomed_rows(params)]
        for number, row in enumerate(kept, start=2):
            if row[0] == params["typo"]:
                steps += [*name_box(f"A{number}"), type_text(params["region"] + "\n")]
        total_row = params["total_row"]
        steps += [*name_box(f"A{total_row}"), type_text("Total\n")]
        steps += [*name_box(f"C{total_row}"), type_text(f"=SUM(C2:C{params['last_row']})\n")]
        return [*steps, GUI_SAVE]

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "region": next(name for name in REGIONS if name != params["region"])}
