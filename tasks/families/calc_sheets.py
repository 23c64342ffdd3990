"""Calc families about sheets: rename, add, delete, and copy a block to another sheet."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ...verifiers import verify_sheet_table, verify_xlsx_sheet_names
from ...verifiers.result import VerifierResult
from ..base import TaskContext
from ..gui_script import click_node
from .calc_base import GUI_SAVE, SAVE, CalcFamily, Rows, Step, api, field_ready, hotkey, name_box, type_text
from .samples import ITEMS, SHEET_WORDS, draw, ints


class SheetFamily(CalcFamily):
    """Workbooks of a few small sheets; the check reads the sheet names."""

    tags = ("calc", "sheets")

    def _names(self, rng: np.random.Generator, count: int) -> list[str]:
        return draw(rng, SHEET_WORDS, count)

    def sheets(self, params: Mapping[str, Any]) -> dict[str, Rows]:
        return {name: [("Item", "Amount"), (ITEMS[i], 10 * (i + 1))] for i, name in enumerate(params["sheet_names"])}


class RenameSheet(SheetFamily):
    """Rename one sheet (GUI: double-click its tab, found in the accessibility tree)."""

    id = "calc.rename_sheet"
    goal = 'Rename the sheet "{old}" to "{new}" and save the file in its current xlsx format.'
    file_name = "workbook.xlsx"
    oracles = ("api", "gui")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        names = self._names(rng, int(rng.integers(1, 4)) + 1)
        new = names.pop()
        old = names[int(rng.integers(0, len(names)))]
        return {"sheet_names": names, "old": old, "new": f"{new} {int(rng.integers(2020, 2030))}"}

    def check(self, data: bytes | None, params: Mapping[str, Any], ctx: TaskContext) -> VerifierResult:
        expected = [params["new"] if name == params["old"] else name for name in params["sheet_names"]]
        return verify_xlsx_sheet_names(data, expected)

    def api_steps(self, params: Mapping[str, Any]) -> list[str]:
        return [api("rename_sheet", old_name=params["old"], new_name=params["new"]), SAVE]

    def gui_steps(self, params: Mapping[str, Any]) -> list[Step]:
        # Double-clicking a sheet tab opens the Rename Sheet dialog with the name selected.
        return [
            click_node("page tab", params["old"], clicks=2, enabled_only=False),
            field_ready(params["old"]),
            hotkey("ctrl", "a"),
            type_text(params["new"] + "\n"),
            GUI_SAVE,
        ]

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "new": params["new"] + "x"}


class AddSheet(SheetFamily):
    """Add an empty sheet at the end."""

    id = "calc.add_sheet"
    goal = 'Add a new empty sheet named "{new}" after the last sheet and save the file in its current xlsx format.'
    file_name = "book.xlsx"
    oracles = ("api",)

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        names = self._names(rng, int(rng.integers(1, 4)) + 1)
        return {"sheet_names": names[:-1], "new": names[-1]}

    def check(self, data: bytes | None, params: Mapping[str, Any], ctx: TaskContext) -> VerifierResult:
        return verify_xlsx_sheet_names(data, [*params["sheet_names"], params["new"]])

    def api_steps(self, params: Mapping[str, Any]) -> list[str]:
        return [api("add_sheet", name=params["new"], position=len(params["sheet_names"])), SAVE]

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "new": params["new"] + " 2"}


class DeleteSheet(SheetFamily):
    """Delete one sheet."""

    id = "calc.delete_sheet"
    goal = 'Delete the sheet "{doomed}" (keep the others) and save the file in its current xlsx format.'
    file_name = "sheets.xlsx"
    oracles = ("api",)

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        names = self._names(rng, int(rng.integers(2, 5)))
        return {"sheet_names": names, "doomed": names[int(rng.integers(0, len(names)))]}

    def check(self, data: bytes | None, params: Mapping[str, Any], ctx: TaskContext) -> VerifierResult:
        return verify_xlsx_sheet_names(data, [name for name in params["sheet_names"] if name != params["doomed"]])

    def api_steps(self, params: Mapping[str, Any]) -> list[str]:
        return [api("delete_sheet", name=params["doomed"]), SAVE]

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        others = [name for name in params["sheet_names"] if name != params["doomed"]]
        return {**params, "doomed": others[0]}


class CopyToSheet(CalcFamily):
    """Copy a block of one sheet to the top-left of another."""

    id = "calc.copy_to_sheet"
    goal = (
        "Copy the range A1:C{last_row} of sheet Data to sheet {target_sheet}, starting at cell A1 there (the "
        "Data sheet stays as it is). Save the file in its current xlsx format."
    )
    file_name = "records.xlsx"
    oracles = ("api", "gui")
    tags = ("calc", "edit", "sheets")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        count = int(rng.integers(4, 8))
        rows = [
            [item, int(a), int(b)]
            for item, a, b in zip(
                draw(rng, ITEMS, count), rng.integers(1, 99, size=count), rng.integers(1, 99, size=count), strict=True
            )
        ]
        return {
            "rows": rows,
            "copy_rows": count,
            "last_row": count + 1,
            "target_sheet": str(rng.choice(["Archive", "Backup", "Copy"])),
            "extra": ints(rng, 100, 999, count),
        }

    def _data(self, params: Mapping[str, Any]) -> list[list[object]]:
        return [["Item", "Jan", "Feb"], *params["rows"]]

    def sheets(self, params: Mapping[str, Any]) -> dict[str, Rows]:
        # Column D is not part of the range to copy.
        data = [[*row, extra] for row, extra in zip(self._data(params), ["Notes", *params["extra"]], strict=True)]
        return {"Data": data, params["target_sheet"]: []}

    def check(self, data: bytes | None, params: Mapping[str, Any], ctx: TaskContext) -> VerifierResult:
        return verify_sheet_table(data, self._data(params), sheet=params["target_sheet"])

    def api_steps(self, params: Mapping[str, Any]) -> list[str]:
        block = self._data(params)[: params["copy_rows"] + 1]
        return [api("set_range_values", start_cell=f"{params['target_sheet']}.A1", values=block), SAVE]

    def gui_steps(self, params: Mapping[str, Any]) -> list[Step]:
        return [
            *name_box(f"A1:C{params['copy_rows'] + 1}"),
            hotkey("ctrl", "c"),
            hotkey("ctrl", "pagedown"),
            hotkey("ctrl", "home"),
            hotkey("ctrl", "v"),
            GUI_SAVE,
        ]

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "copy_rows": params["copy_rows"] - 1}
