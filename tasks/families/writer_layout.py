"""Writer families on document structure and pages: tables, header/footer, page numbers, page setup,
saving in another format; plus the suite's infeasible task.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ...verifiers import (
    verify_docx_header_footer,
    verify_docx_page_number,
    verify_docx_page_setup,
    verify_docx_tables,
)
from ...verifiers.result import VerifierResult
from ..base import Policy, ScriptedPolicy, Task, TaskContext
from .samples import KEYWORDS
from .writer_base import (
    Step,
    WriterDocumentTask,
    click_beside,
    click_node,
    keys,
    saved_by_api,
    saved_by_gui,
    typed,
    when_present,
)

ALIGN_KEYS = {"left": "l", "center": "e", "right": "r"}


def open_header_or_footer(part: str) -> list[Step]:
    """GUI steps: Insert > Header and Footer > Header (or Footer) > Default Page Style; the cursor lands in it."""
    submenu = part.capitalize()
    return [
        keys("alt", "i"),
        click_node("menu", "Header and Footer"),
        click_node("menu", submenu),
        click_node("check menu item", "Default Page Style", within=("menu", submenu)),
    ]


PRODUCTS = ("Apples", "Pears", "Plums", "Cherries", "Lemons", "Figs", "Kiwis", "Mangos")


class InsertTable(WriterDocumentTask):
    """Insert a table holding given data (header row + item rows) at the end of the document."""

    id = "writer.insert_table"
    goal = (
        "At the end of the document, insert a table with {rows} rows and 3 columns holding this data, row by "
        "row (cells separated by |): {table_text}."
    )
    oracles = ("api", "gui")
    tags = ("writer", "tables")
    max_steps = 20

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        params = self.base_params(rng, count=int(rng.integers(1, 4)))
        names = rng.choice(PRODUCTS, size=int(rng.integers(2, 5)), replace=False)
        data = [["Item", "Quantity", "Price"]] + [
            [str(name), str(int(rng.integers(1, 50))), f"{int(rng.integers(1, 20))}.{int(rng.integers(0, 100)):02d}"]
            for name in names
        ]
        params.update(data=data, rows=len(data), table_text="; ".join(" | ".join(row) for row in data))
        return params

    def verify(self, ctx: TaskContext) -> VerifierResult:
        p = ctx.params
        return verify_docx_tables(self.saved(ctx), count=1, expected_rows=p["data"])

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        call = f"WriterTools.insert_table(rows={params['rows']}, columns=3, data={params['data']!r})"
        return saved_by_api(call)

    def gui_oracle(self, params: Mapping[str, Any]) -> Policy:
        # Table > Insert Table (ctrl+F12): the dialog opens in its Name field; tab on to Columns, then Rows.
        cells = "\t".join(cell for row in params["data"] for cell in row)
        return saved_by_gui(
            keys("ctrl", "end"),
            keys("ctrl", "f12"),
            when_present("dialog", "Insert Table", keys("tab")),
            keys("ctrl", "a"),
            typed("3"),
            keys("tab"),
            keys("ctrl", "a"),
            typed(str(params["rows"])),
            click_node("push button", "Insert", within=("dialog", "Insert Table")),
            typed(cells),  # tab moves to the next cell
        )

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        data = [list(row) for row in params["data"]]
        data[-1][1] = str(int(data[-1][1]) + 1)
        return {**params, "data": data}


class HeaderFooterText(WriterDocumentTask):
    """Put a given line of text into the page header or the page footer."""

    id = "writer.header_footer_text"
    goal = 'Add the text "{text}" to the page {part} (shown on every page).'
    oracles = ("api", "gui")
    tags = ("writer", "page")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        params = self.base_params(rng, count=int(rng.integers(2, 4)))
        label = str(rng.choice(("Prepared by the", "Reviewed by the", "Owned by the", "Distributed to the")))
        params.update(
            text=f"{label} {rng.choice(KEYWORDS).capitalize()} team", part=str(rng.choice(("header", "footer")))
        )
        return params

    def verify(self, ctx: TaskContext) -> VerifierResult:
        p = ctx.params
        return verify_docx_header_footer(self.saved(ctx), p["text"], part=p["part"])

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        return saved_by_api(f"WriterTools.set_{params['part']}_text(text={params['text']!r})")

    def gui_oracle(self, params: Mapping[str, Any]) -> Policy:
        return saved_by_gui(*open_header_or_footer(params["part"]), typed(params["text"]))

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "part": "footer" if params["part"] == "header" else "header"}


class PageNumbers(WriterDocumentTask):
    """Show the page number on every page, in the footer or the header."""

    id = "writer.page_numbers"
    goal = "Add automatic page numbers to the page {part} (aligned {alignment}) so that every page shows its number."
    oracles = ("api", "gui")
    tags = ("writer", "page", "fields")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        params = self.base_params(rng, count=int(rng.integers(2, 4)))
        params.update(
            part=str(rng.choice(("header", "footer"))), alignment=str(rng.choice(("left", "center", "right")))
        )
        return params

    def verify(self, ctx: TaskContext) -> VerifierResult:
        return verify_docx_page_number(self.saved(ctx), part=ctx.params["part"], alignment=ctx.params["alignment"])

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        call = f"WriterTools.insert_page_numbers(position={params['part']!r}, alignment={params['alignment']!r})"
        return saved_by_api(call)

    def gui_oracle(self, params: Mapping[str, Any]) -> Policy:
        # In the new header/footer: Insert > Field > Page Number, then align its paragraph.
        insert_field = [keys("alt", "i"), click_node("menu", "Field"), click_node("menu item", "Page Number")]
        align = keys("ctrl", ALIGN_KEYS[params["alignment"]])
        return saved_by_gui(*open_header_or_footer(params["part"]), *insert_field, align)

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "part": "footer" if params["part"] == "header" else "header"}


MARGINS_CM = (1.0, 1.5, 2.0, 3.0)


class PageSetup(WriterDocumentTask):
    """Turn the page to landscape and set all four margins."""

    id = "writer.page_setup"
    goal = (
        "Change the page to landscape orientation and set all four page margins (top, bottom, left, right) to "
        "{margin} cm."
    )
    oracles = ("api", "gui")
    tags = ("writer", "page")
    max_steps = 30

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        params = self.base_params(rng, count=int(rng.integers(2, 4)))
        params["margin"] = float(rng.choice(MARGINS_CM))
        return params

    def verify(self, ctx: TaskContext) -> VerifierResult:
        margin = ctx.params["margin"]
        sides = {side: margin for side in ("top", "bottom", "left", "right")}
        return verify_docx_page_setup(self.saved(ctx), orientation="landscape", margins_cm=sides)

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        m = params["margin"]
        return saved_by_api(
            "WriterTools.set_page_orientation(orientation='landscape')",
            f"WriterTools.set_page_margins(top_cm={m}, bottom_cm={m}, left_cm={m}, right_cm={m})",
        )

    def gui_oracle(self, params: Mapping[str, Any]) -> Policy:
        # Format > Page Style... > Page tab: Landscape first (it swaps width and height), then each margin;
        # the fields take a unit ("2 cm") whatever the UI's measurement unit is.
        margins: list[Step] = []
        for side in ("Left:", "Right:", "Top:", "Bottom:"):
            field = click_beside(side, "spin button", within=("panel", "Margins"))
            margins += [field, keys("ctrl", "a"), typed(f"{params['margin']:g} cm\t")]
        return saved_by_gui(
            keys("alt", "o"),
            click_node("menu item", "Page Style..."),
            click_node("page tab", "Page"),
            click_node("radio button", "Landscape"),
            *margins,
            click_node("push button", "OK"),
        )

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "margin": params["margin"] + 0.5}


class RecolorMissingChart(WriterDocumentTask):
    """Infeasible: recolour a chart the document does not have; the right answer is to declare FAIL."""

    id = "writer.infeasible_chart_color"
    instruction_template = (
        "The document {path} is open in LibreOffice Writer. Change the colour of the bars in its chart "
        '"{chart}" to green, then save the document. If this cannot be done, say so by declaring failure.'
    )
    tags = ("writer", "infeasible")
    max_steps = 8
    needs_save = False
    infeasible = True

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        chart = (
            f"{rng.choice(('Sales', 'Costs', 'Visitors', 'Downloads'))} by {rng.choice(('month', 'region', 'team'))}"
        )
        return {**self.base_params(rng, count=3), "chart": chart}

    def verify(self, ctx: TaskContext) -> VerifierResult:
        return VerifierResult.failed("the task is infeasible: only declaring FAIL succeeds")

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        # Look before giving up: the document has no chart (nor any object to hold one).
        return ScriptedPolicy(["WriterTools.list_tables()", "fail()"])


LAYOUT_TASKS: tuple[type[Task], ...] = (
    InsertTable,
    HeaderFooterText,
    PageNumbers,
    PageSetup,
    RecolorMissingChart,
)
