"""The learning demo's family (``demo.enter_number``): put one number into one cell of an open sheet.

One API call solves it (``CalcTools.set_cell_value(cell="C4", value=37)``), so an episode can be a
single step, and the verifier reads the live cell through the guest (no save needed): short
episodes with a clear reward, where a small model starts at a middling success rate. The value
must arrive as a number: the text ``"37"`` in the cell does not count.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import numpy as np

from ...verifiers.result import VerifierResult
from ..base import TaskContext
from .calc_base import CalcFamily, Rows, Step, api, gate_on_grid, name_box, type_text

COLUMNS = "BCDEF"
ROWS = range(2, 10)


class EnterNumber(CalcFamily):
    """Enter a number into a named cell."""

    id = "demo.enter_number"
    instruction_template = "Enter the number {value} into cell {cell} of the open spreadsheet."
    file_name = "numbers.xlsx"
    oracles = ("api", "gui")
    tags = ("calc", "demo", "one-step")
    needs_save = False

    max_steps = 12  # the GUI oracle's Name Box walk; training envs set max_steps=1

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        cell = f"{COLUMNS[int(rng.integers(len(COLUMNS)))]}{int(rng.integers(ROWS.start, ROWS.stop))}"
        return {"cell": cell, "value": int(rng.integers(10, 1000))}

    def sheets(self, params: Mapping[str, Any]) -> dict[str, Rows]:
        return {"Sheet1": [("Numbers",)]}

    def verify(self, ctx: TaskContext) -> VerifierResult:
        cell, value = ctx.params["cell"], ctx.params["value"]
        found = json.loads(ctx.client.call_api("calc", "get_cell_value", json.dumps({"cell": cell})))
        if isinstance(found, dict) and "result" in found:  # tolerate a wrapped reply
            found = found["result"]
        if isinstance(found, int | float) and not isinstance(found, bool) and float(found) == float(value):
            return VerifierResult.passed(f"{cell} holds the number {value}")
        return VerifierResult.failed(f"{cell} holds {found!r}, expected the number {value}")

    def api_steps(self, params: Mapping[str, Any]) -> list[str]:
        return [api("set_cell_value", cell=params["cell"], value=params["value"])]

    def gui_steps(self, params: Mapping[str, Any]) -> list[Step]:
        return gate_on_grid([*name_box(params["cell"]), type_text(f"{params['value']}\n")])

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "value": int(params["value"]) + 1}
