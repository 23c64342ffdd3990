"""Calc families about cell formatting: number formats, bold, fills, merges, widths, conditions."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ...verifiers import (
    all_of,
    verify_sheet_table,
    verify_xlsx_cells,
    verify_xlsx_column_widths,
    verify_xlsx_conditional_rule,
    verify_xlsx_fill,
    verify_xlsx_font,
    verify_xlsx_merged_cells,
    verify_xlsx_number_formats,
)
from ...verifiers.result import VerifierResult
from ..base import TaskContext
from .calc_base import GUI_SAVE, SAVE, CalcFamily, Rows, Step, api, hotkey, name_box
from .samples import ITEMS, REGIONS, column_letter, draw, ints

# LibreOffice writes a column of w cm as about 4.05 * w Excel character units in xlsx (measured).
CHARS_PER_CM = 4.05


def product_rows(rng: np.random.Generator, count: int) -> list[list[object]]:
    """Product rows: item, region, units, price."""
    return [
        [item, str(rng.choice(REGIONS)), units, price]
        for item, units, price in zip(
            draw(rng, ITEMS, count), ints(rng, 1, 300, count), ints(rng, 2, 90, count), strict=True
        )
    ]


PRODUCT_HEADER = ("Item", "Region", "Units", "Price")


class NumberFormat(CalcFamily):
    """Show a column as percentages or as dollar amounts (GUI: Ctrl+Shift+5 / Ctrl+Shift+4)."""

    id = "calc.number_format"
    goal = (
        "Format the cells {cells} ({what}) as {kind} without changing their values, then save the file in its "
        "current xlsx format."
    )
    file_name = "rates.xlsx"
    oracles = ("api", "gui")
    tags = ("calc", "format")

    kinds = {"percentages": ("%", "0.00%", "5"), "US dollar currency": ("$", "[$$-409]#,##0.00", "4")}

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        count = int(rng.integers(4, 8))
        kind = str(rng.choice(list(self.kinds)))
        if kind == "percentages":
            values = [v / 1000 for v in ints(rng, 5, 950, count)]
            what = "growth rates"
        else:
            values = [v / 100 for v in ints(rng, 100, 99999, count)]
            what = "amounts"
        return {
            "kind": kind,
            "what": what,
            "items": draw(rng, ITEMS, count),
            "values": values,
            "cells": f"B2:B{count + 1}",
        }

    def sheets(self, params: Mapping[str, Any]) -> dict[str, Rows]:
        return {"Rates": [("Item", "Value"), *zip(params["items"], params["values"], strict=True)]}

    def check(self, data: bytes | None, params: Mapping[str, Any], ctx: TaskContext) -> VerifierResult:
        symbol = self.kinds[params["kind"]][0]
        refs = [f"B{row}" for row in range(2, len(params["values"]) + 2)]
        return all_of(
            {
                "format": verify_xlsx_number_formats(
                    data, dict.fromkeys(refs, symbol), sheet="Rates", match="contains"
                ),
                "values": verify_xlsx_cells(data, dict(zip(refs, params["values"], strict=True)), sheet="Rates"),
            }
        )

    def api_steps(self, params: Mapping[str, Any]) -> list[str]:
        code = self.kinds[params["kind"]][1]
        return [api("set_number_format", cell_range=params["cells"], format_string=code), SAVE]

    def gui_steps(self, params: Mapping[str, Any]) -> list[Step]:
        digit = self.kinds[params["kind"]][2]
        return [*name_box(params["cells"]), hotkey("ctrl", "shift", digit), GUI_SAVE]

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        other = next(kind for kind in self.kinds if kind != params["kind"])
        return {**params, "kind": other}


class BoldHeader(CalcFamily):
    """Make the header row bold (GUI: Name Box + Ctrl+B)."""

    id = "calc.bold_header"
    goal = "Make the header cells {header} bold (only those) and save the file in its current xlsx format."
    file_name = "products.xlsx"
    oracles = ("api", "gui")
    tags = ("calc", "format", "font")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        return {"rows": product_rows(rng, int(rng.integers(3, 7))), "header": "A1:D1"}

    def sheets(self, params: Mapping[str, Any]) -> dict[str, Rows]:
        return {"Products": [PRODUCT_HEADER, *params["rows"]]}

    def check(self, data: bytes | None, params: Mapping[str, Any], ctx: TaskContext) -> VerifierResult:
        return all_of(
            {
                "header bold": verify_xlsx_font(data, "A1:D1", sheet="Products", bold=True),
                "body not bold": verify_xlsx_font(data, "A2:D2", sheet="Products", bold=False),
            }
        )

    def api_steps(self, params: Mapping[str, Any]) -> list[str]:
        return [api("set_bold", cell_range=params["header"]), SAVE]

    def gui_steps(self, params: Mapping[str, Any]) -> list[Step]:
        return [*name_box(params["header"]), hotkey("ctrl", "b"), GUI_SAVE]

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "header": "A1:C1"}


class BackgroundColor(CalcFamily):
    """Fill a range with a named colour."""

    id = "calc.background_color"
    goal = (
        "Give the cells {cells} a solid {color_name} background ({color}) and save the file in its current xlsx format."
    )
    file_name = "highlight.xlsx"
    oracles = ("api",)
    tags = ("calc", "format", "color")

    colors = {"yellow": "#FFFF00", "light green": "#CCFFCC", "light blue": "#CCE5FF", "orange": "#FFA500"}

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        rows = product_rows(rng, int(rng.integers(4, 8)))
        name = str(rng.choice(list(self.colors)))
        row = int(rng.integers(2, len(rows) + 2))
        return {"rows": rows, "cells": f"A{row}:D{row}", "color_name": name, "color": self.colors[name]}

    def sheets(self, params: Mapping[str, Any]) -> dict[str, Rows]:
        return {"Products": [PRODUCT_HEADER, *params["rows"]]}

    def check(self, data: bytes | None, params: Mapping[str, Any], ctx: TaskContext) -> VerifierResult:
        return verify_xlsx_fill(data, params["cells"], params["color"], sheet="Products")

    def api_steps(self, params: Mapping[str, Any]) -> list[str]:
        return [api("set_background_color", cell_range=params["cells"], color=params["color"]), SAVE]

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        other = next(color for color in self.colors.values() if color != params["color"])
        return {**params, "color": other}


class MergeTitle(CalcFamily):
    """Merge the title cells above a table."""

    id = "calc.merge_title"
    goal = (
        'Merge the cells {cells} into one cell holding the title "{title}" (the table below must stay as it '
        "is) and save the file in its current xlsx format."
    )
    file_name = "titled.xlsx"
    oracles = ("api",)
    tags = ("calc", "format", "merge")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        width = int(rng.integers(3, 6))
        rows = [[item, *ints(rng, 1, 99, width - 1)] for item in draw(rng, ITEMS, int(rng.integers(3, 6)))]
        header = ["Item", *(f"W{week}" for week in range(1, width))]
        title = f"{rng.choice(['Weekly', 'Monthly', 'Regional'])} report {int(rng.integers(2020, 2030))}"
        return {"title": title, "header": header, "rows": rows, "cells": f"A1:{column_letter(width - 1)}1"}

    def _table(self, params: Mapping[str, Any]) -> list[list[object]]:
        return [list(params["header"]), *params["rows"]]

    def sheets(self, params: Mapping[str, Any]) -> dict[str, Rows]:
        return {"Report": [[params["title"]], [], *self._table(params)]}

    def check(self, data: bytes | None, params: Mapping[str, Any], ctx: TaskContext) -> VerifierResult:
        return all_of(
            {
                "merged": verify_xlsx_merged_cells(data, params["cells"], sheet="Report"),
                "title": verify_xlsx_cells(data, {"A1": params["title"]}, sheet="Report"),
                "table": verify_sheet_table(data, self._table(params), sheet="Report", cell_range="A3:F20"),
            }
        )

    def api_steps(self, params: Mapping[str, Any]) -> list[str]:
        return [api("merge_cells", cell_range=params["cells"]), SAVE]

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        last = params["cells"].split(":")[1][0]  # one column short of the table's width
        return {**params, "cells": f"A1:{chr(ord(last) - 1)}1"}


class ColumnWidth(CalcFamily):
    """Set a column to a given width in centimetres."""

    id = "calc.column_width"
    goal = (
        "Set the width of column {column} to {width_cm} cm so the long names fit, and save the file in its "
        "current xlsx format."
    )
    file_name = "wide.xlsx"
    oracles = ("api",)
    tags = ("calc", "format", "layout")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        rows = product_rows(rng, int(rng.integers(3, 7)))
        for row in rows:
            row[0] = f"{row[0]} ({row[1]} warehouse, aisle {int(rng.integers(1, 40))})"
        return {"rows": rows, "column": "A", "width_cm": float(rng.choice([4.0, 4.5, 5.0, 5.5, 6.0, 7.0]))}

    def sheets(self, params: Mapping[str, Any]) -> dict[str, Rows]:
        return {"Products": [PRODUCT_HEADER, *params["rows"]]}

    def check(self, data: bytes | None, params: Mapping[str, Any], ctx: TaskContext) -> VerifierResult:
        expected = {params["column"]: params["width_cm"] * CHARS_PER_CM}
        # 0.2 cm either way: LibreOffice rounds widths to pixels.
        return verify_xlsx_column_widths(data, expected, sheet="Products", tolerance=0.2 * CHARS_PER_CM)

    def api_steps(self, params: Mapping[str, Any]) -> list[str]:
        return [api("set_column_width", column=params["column"], width_cm=params["width_cm"]), SAVE]

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "width_cm": params["width_cm"] - 1.0}


class ConditionalFormat(CalcFamily):
    """Highlight cells above (or below) a threshold with conditional formatting."""

    id = "calc.conditional_format"
    goal = (
        "Add conditional formatting to {cells} (Units) so that cells {relation} {threshold} get a red "
        "background ({color}). Save the file in its current xlsx format."
    )
    file_name = "units.xlsx"
    oracles = ("api",)
    tags = ("calc", "format", "conditional")

    relations = {"greater than": ("greater", "greaterThan"), "less than": ("less", "lessThan")}

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        rows = product_rows(rng, int(rng.integers(5, 10)))
        return {
            "rows": rows,
            "cells": f"C2:C{len(rows) + 1}",
            "relation": str(rng.choice(list(self.relations))),
            "threshold": int(rng.integers(50, 250)),
            "color": "#FF0000",
        }

    def sheets(self, params: Mapping[str, Any]) -> dict[str, Rows]:
        return {"Units": [PRODUCT_HEADER, *params["rows"]]}

    def check(self, data: bytes | None, params: Mapping[str, Any], ctx: TaskContext) -> VerifierResult:
        operator = self.relations[params["relation"]][1]
        return verify_xlsx_conditional_rule(
            data, params["cells"], operator, params["threshold"], color=params["color"], sheet="Units"
        )

    def api_steps(self, params: Mapping[str, Any]) -> list[str]:
        call = api(
            "add_conditional_format",
            cell_range=params["cells"],
            operator=self.relations[params["relation"]][0],
            value=params["threshold"],
            background_color=params["color"],
        )
        return [call, SAVE]

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        other = next(relation for relation in self.relations if relation != params["relation"])
        return {**params, "relation": other}
