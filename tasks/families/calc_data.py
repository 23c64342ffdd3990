"""Calc families that change cell data: fix values, sort, replace, deduplicate, transpose."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ...verifiers import all_of, verify_sheet_table, verify_xlsx_sorted
from ...verifiers.result import VerifierResult
from ..base import TaskContext
from .calc_base import GUI_SAVE, SAVE, CalcFamily, Rows, Step, api, hotkey, name_box, type_text
from .samples import ITEMS, PEOPLE, REGIONS, column_letter, distinct_ints, draw, ints

STOCK_HEADER = ("Item", "Region", "Stock", "Price")


def stock_rows(rng: np.random.Generator, rows: int) -> list[list[object]]:
    """Inventory rows (item, region, stock, price) with distinct items and distinct stock counts."""
    items = draw(rng, ITEMS, rows)
    stock = distinct_ints(rng, 5, 400, rows)
    prices = ints(rng, 1, 60, rows)
    return [[item, str(rng.choice(REGIONS)), s, p] for item, s, p in zip(items, stock, prices, strict=True)]


class FixWrongValues(CalcFamily):
    """Correct the stock counts the instruction names."""

    id = "calc.fix_wrong_values"
    goal = (
        "A stock count was mistyped: {corrections}. Correct the Stock column (C) accordingly, change nothing "
        "else, and save the file in its current xlsx format."
    )
    file_name = "stock.xlsx"
    oracles = ("api", "gui")
    tags = ("calc", "edit")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        rows = stock_rows(rng, int(rng.integers(5, 9)))
        wrong = sorted(int(i) for i in rng.choice(len(rows), size=int(rng.integers(1, 4)), replace=False))
        fixes = {i: rows[i][2] + int(rng.integers(10, 90)) for i in wrong}
        corrections = "; ".join(f"the stock of {rows[i][0]} is {value}, not {rows[i][2]}" for i, value in fixes.items())
        return {"rows": rows, "fixes": [[i, v] for i, v in fixes.items()], "corrections": corrections}

    def sheets(self, params: Mapping[str, Any]) -> dict[str, Rows]:
        return {"Stock": [STOCK_HEADER, *params["rows"]]}

    def check(self, data: bytes | None, params: Mapping[str, Any], ctx: TaskContext) -> VerifierResult:
        rows = [list(row) for row in params["rows"]]
        for index, value in params["fixes"]:
            rows[index][2] = value
        return verify_sheet_table(data, [STOCK_HEADER, *rows], sheet="Stock")

    def api_steps(self, params: Mapping[str, Any]) -> list[str]:
        return [*(api("set_cell_value", cell=f"C{i + 2}", value=v) for i, v in params["fixes"]), SAVE]

    def gui_steps(self, params: Mapping[str, Any]) -> list[Step]:
        steps: list[str] = []
        for index, value in params["fixes"]:
            steps += [*name_box(f"C{index + 2}"), type_text(f"{value}\n")]
        return [*steps, GUI_SAVE]

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        (index, value), *rest = params["fixes"]
        return {**params, "fixes": [[index, value + 1], *rest]}


class SortRows(CalcFamily):
    """Sort the table by one column, ascending or descending, keeping rows together."""

    id = "calc.sort_rows"
    goal = (
        "Sort the table's {count} data rows by {key} ({column_name}) in {order} order, keeping each row's cells "
        "together and the header in row 1. Save the file in its current xlsx format."
    )
    file_name = "inventory.xlsx"
    oracles = ("api",)
    tags = ("calc", "sort")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        rows = stock_rows(rng, int(rng.integers(5, 10)))
        column = int(rng.choice([0, 2]))  # item names and stock counts are both distinct
        descending = bool(rng.integers(0, 2))
        return {
            "rows": rows,
            "count": len(rows),
            "key": f"column {column_letter(column)}",
            "column": column_letter(column),
            "column_name": STOCK_HEADER[column],
            "descending": descending,
            "order": "descending" if descending else "ascending",
        }

    def sheets(self, params: Mapping[str, Any]) -> dict[str, Rows]:
        return {"Stock": [STOCK_HEADER, *params["rows"]]}

    def check(self, data: bytes | None, params: Mapping[str, Any], ctx: TaskContext) -> VerifierResult:
        index = STOCK_HEADER.index(params["column_name"])
        key = (lambda row: str(row[index]).casefold()) if index == 0 else (lambda row: row[index])
        ordered = sorted(params["rows"], key=key, reverse=params["descending"])
        return all_of(
            {
                "sorted": verify_xlsx_sorted(data, params["column"], sheet="Stock", descending=params["descending"]),
                "rows intact": verify_sheet_table(data, [STOCK_HEADER, *ordered], sheet="Stock"),
            }
        )

    def api_steps(self, params: Mapping[str, Any]) -> list[str]:
        table = f"A1:D{params['count'] + 1}"
        sort = api("sort_range", cell_range=table, column=params["column"], ascending=not params["descending"])
        return [sort, SAVE]

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "descending": not params["descending"]}


class FindReplace(CalcFamily):
    """Replace a misspelt word everywhere in the sheet."""

    id = "calc.find_replace"
    goal = (
        'The city "{right}" is misspelt as "{wrong}" throughout the sheet. Replace every "{wrong}" with '
        '"{right}" and save the file in its current xlsx format.'
    )
    file_name = "shipments.xlsx"
    oracles = ("api",)
    tags = ("calc", "edit", "find_replace")

    cities = (
        ("Sprngfield", "Springfield"),
        ("Rivervale", "Riverdale"),
        ("Lakesde", "Lakeside"),
        ("Oakvile", "Oakville"),
    )

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        wrong, right = self.cities[int(rng.integers(0, len(self.cities)))]
        others = ["Fairview", "Milton", "Ashford", "Brookfield"]
        count = int(rng.integers(5, 9))
        cities = [wrong if rng.random() < 0.5 else str(rng.choice(others)) for _ in range(count)]
        cities[0] = wrong
        return {
            "wrong": wrong,
            "right": right,
            "names": draw(rng, PEOPLE, count),
            "cities": cities,
            "weights": ints(rng, 1, 40, count),
        }

    def _rows(self, params: Mapping[str, Any], city_of: Any) -> list[list[object]]:
        return [
            [name, city_of(city), f"Depot {city_of(city)}", weight]
            for name, city, weight in zip(params["names"], params["cities"], params["weights"], strict=True)
        ]

    def sheets(self, params: Mapping[str, Any]) -> dict[str, Rows]:
        return {"Shipments": [("Customer", "City", "Hub", "Kg"), *self._rows(params, lambda c: c)]}

    def check(self, data: bytes | None, params: Mapping[str, Any], ctx: TaskContext) -> VerifierResult:
        fixed = self._rows(params, lambda c: params["right"] if c == params["wrong"] else c)
        return verify_sheet_table(data, [("Customer", "City", "Hub", "Kg"), *fixed], sheet="Shipments")

    def api_steps(self, params: Mapping[str, Any]) -> list[str]:
        return [api("find_replace", find=params["wrong"], replace=params["right"], match_case=True), SAVE]

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "right": params["right"] + "s"}


class RemoveDuplicates(CalcFamily):
    """Delete exact duplicate rows, keeping each first occurrence and leaving no gaps."""

    id = "calc.remove_duplicates"
    goal = (
        "Some rows of the table are exact duplicates of an earlier row. Delete the duplicate rows (keep the "
        "first occurrence of each, leave no empty rows) and save the file in its current xlsx format."
    )
    file_name = "contacts.xlsx"
    oracles = ("api", "gui")
    tags = ("calc", "edit", "deduplicate")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        unique = [
            [name, str(rng.choice(REGIONS)), int(v)]
            for name, v in zip(draw(rng, PEOPLE, int(rng.integers(5, 8))), rng.integers(100, 999, size=8), strict=False)
        ]
        rows = [list(row) for row in unique]
        for _ in range(int(rng.integers(2, 4))):
            source = int(rng.integers(0, len(rows)))
            rows.insert(int(rng.integers(source + 1, len(rows) + 1)), list(rows[source]))
        seen: set[tuple[object, ...]] = set()
        duplicates = []
        for index, row in enumerate(rows):
            if tuple(row) in seen:
                duplicates.append(index + 2)
            seen.add(tuple(row))
        return {"rows": rows, "unique": unique, "duplicate_rows": duplicates}

    def sheets(self, params: Mapping[str, Any]) -> dict[str, Rows]:
        return {"Contacts": [("Name", "Region", "Extension"), *params["rows"]]}

    def check(self, data: bytes | None, params: Mapping[str, Any], ctx: TaskContext) -> VerifierResult:
        return verify_sheet_table(data, [("Name", "Region", "Extension"), *params["unique"]], sheet="Contacts")

    def api_steps(self, params: Mapping[str, Any]) -> list[str]:
        # Bottom-up, so the row numbers of the duplicates still to delete do not move.
        return [*(api("delete_rows", row=row) for row in sorted(params["duplicate_rows"], reverse=True)), SAVE]

    def gui_steps(self, params: Mapping[str, Any]) -> list[Step]:
        steps: list[str] = []
        for row in sorted(params["duplicate_rows"], reverse=True):
            steps += [*name_box(f"A{row}"), hotkey("shift", "space"), hotkey("ctrl", "-")]
        return [*steps, GUI_SAVE]

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "duplicate_rows": params["duplicate_rows"][:-1]}


class TransposeRange(CalcFamily):
    """Write a transposed copy of a small table at a given cell."""

    id = "calc.transpose"
    goal = (
        "Put a transposed copy of the table in {source} (rows become columns) with its top-left corner in cell "
        "{target}; leave the original as it is. Save the file in its current xlsx format."
    )
    file_name = "matrix.xlsx"
    oracles = ("api",)
    tags = ("calc", "edit", "transpose")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        months = ["Jan", "Feb", "Mar", "Apr", "May"][: int(rng.integers(3, 6))]
        names = draw(rng, PEOPLE, int(rng.integers(2, 4)))
        table = [["Name", *months]] + [[name, *ints(rng, 1, 99, len(months))] for name in names]
        target_row = len(table) + int(rng.integers(2, 4))
        return {
            "table": table,
            "source": f"A1:{column_letter(len(months))}{len(table)}",
            "target": f"A{target_row}",
            "target_row": target_row,
        }

    def sheets(self, params: Mapping[str, Any]) -> dict[str, Rows]:
        return {"Matrix": params["table"]}

    def check(self, data: bytes | None, params: Mapping[str, Any], ctx: TaskContext) -> VerifierResult:
        table = params["table"]
        transposed = [list(column) for column in zip(*table, strict=True)]
        end = f"{column_letter(len(table) - 1)}{params['target_row'] + len(transposed) - 1}"
        return all_of(
            {
                "original": verify_sheet_table(data, table, sheet="Matrix", cell_range=params["source"]),
                "transposed": verify_sheet_table(
                    data, transposed, sheet="Matrix", cell_range=f"A{params['target_row']}:{end}"
                ),
            }
        )

    def api_steps(self, params: Mapping[str, Any]) -> list[str]:
        transposed = [list(column) for column in zip(*params["table"], strict=True)]
        return [api("set_range_values", start_cell=params["target"], values=transposed), SAVE]

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "target": f"B{params['target_row']}"}
