"""Starter suite: one Calc, one Writer and one terminal task, each a seeded family.

Every task here has a keyboard-only GUI oracle (no coordinates), an API oracle (CalcTools,
WriterTools, OSTools) and a verifier that reads the real saved file from the desktop.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ..verifiers import verify_docx_has_paragraph, verify_text_file, verify_xlsx_cells
from ..verifiers.result import VerifierResult
from .artifacts import docx_bytes, xlsx_bytes
from .base import Policy, ScriptedPolicy, Task, TaskContext

ITEMS = ("Apples", "Pears", "Plums", "Cherries", "Lemons", "Figs", "Dates", "Kiwis", "Mangos", "Limes")
WORDS = ("amber", "birch", "cobalt", "delta", "ember", "fjord", "garnet", "harbor", "indigo", "juniper")
SUBJECTS = ("The quarterly review", "Our field study", "The pilot project", "This survey", "The audit")
VERBS = ("confirms", "shows", "suggests", "documents", "reports")
OBJECTS = ("steady growth", "lower costs", "a shorter backlog", "fewer defects", "higher demand")


class CalcFillTotals(Task):
    """Fill a Total column with Q1 + Q2 per row in a real Calc document, then save it as xlsx."""

    id = "starter.calc_fill_totals"
    instruction_template = (
        "The spreadsheet {path} is open in LibreOffice Calc. Fill column D (Total) with the sum of Q1 and Q2 "
        "for each of the {rows} item rows, then save the file in its current xlsx format."
    )
    apps = ("calc",)
    oracles = ("api", "gui")
    tags = ("calc", "starter")
    max_steps = 15
    needs_save = True

    path = "~/Documents/sales.xlsx"

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        rows = int(rng.integers(3, 7))
        names = [str(n) for n in rng.choice(ITEMS, size=rows, replace=False)]
        q1 = [int(v) for v in rng.integers(10, 500, size=rows)]
        q2 = [int(v) for v in rng.integers(10, 500, size=rows)]
        return {"path": self.path, "rows": rows, "items": names, "q1": q1, "q2": q2}

    def setup(self, ctx: TaskContext) -> None:
        p = ctx.params
        table = [("Item", "Q1", "Q2", "Total")] + list(zip(p["items"], p["q1"], p["q2"], strict=True))
        ctx.client.put_file(self.path, xlsx_bytes(table, sheet_title="Sales"))
        ctx.client.launch_app("calc", self.path)

    def verify(self, ctx: TaskContext) -> VerifierResult:
        p = ctx.params
        expected = {f"D{row + 2}": a + b for row, (a, b) in enumerate(zip(p["q1"], p["q2"], strict=True))}
        return verify_xlsx_cells(ctx.read_file(self.path), expected, sheet="Sales")

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        formulas = [[f"=B{row}+C{row}"] for row in range(2, params["rows"] + 2)]
        return ScriptedPolicy(
            [
                f"CalcTools.set_range_values(start_cell='D2', values={formulas!r})",
                "CalcTools.save()",
                "exit(success=True)",
            ]
        )

    def gui_oracle(self, params: Mapping[str, Any]) -> Policy:
        formulas = "".join(f"=B{row}+C{row}\n" for row in range(2, params["rows"] + 2))
        return ScriptedPolicy(
            [
                'hotkey(keys=["ctrl", "home"])',
                # One key per step: the env lets the desktop settle between steps, and LibreOffice can
                # drop navigation keys that arrive back to back.
                'press(key="right")',
                'press(key="right")',
                'press(key="right")',
                'press(key="down")',
                f"type(text={formulas!r})",
                'hotkey(keys=["ctrl", "s"])',
                "exit(success=True)",
            ]
        )

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        # One row fewer: the oracle leaves the last total empty.
        return {**params, "rows": params["rows"] - 1}


class WriterAppendParagraph(Task):
    """Append a given sentence as a new paragraph to a real Writer document, then save it."""

    id = "starter.writer_append_paragraph"
    instruction_template = (
        "The document {path} is open in LibreOffice Writer. Add a new paragraph at the end with exactly this "
        "text: {sentence} Then save the document in its current docx format."
    )
    apps = ("writer",)
    oracles = ("api", "gui")
    tags = ("writer", "starter")
    max_steps = 10
    needs_save = True

    path = "~/Documents/report.docx"

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        sentence = f"{rng.choice(SUBJECTS)} {rng.choice(VERBS)} {rng.choice(OBJECTS)} in region {rng.integers(2, 99)}."
        intro = f"Summary prepared for team {str(rng.choice(WORDS)).capitalize()}."
        return {"path": self.path, "sentence": sentence, "intro": intro}

    def setup(self, ctx: TaskContext) -> None:
        ctx.client.put_file(self.path, docx_bytes([ctx.params["intro"]], heading="Status report"))
        ctx.client.launch_app("writer", self.path)

    def verify(self, ctx: TaskContext) -> VerifierResult:
        return verify_docx_has_paragraph(ctx.read_file(self.path), ctx.params["sentence"], last=True)

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        return ScriptedPolicy(
            [f"WriterTools.append_paragraph(text={params['sentence']!r})", "WriterTools.save()", "exit(success=True)"]
        )

    def gui_oracle(self, params: Mapping[str, Any]) -> Policy:
        return ScriptedPolicy(
            [
                'hotkey(keys=["ctrl", "end"])',
                'press(key="enter")',
                f"type(text={params['sentence']!r})",
                'hotkey(keys=["ctrl", "s"])',
                "exit(success=True)",
            ]
        )

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "sentence": params["sentence"].replace(" in region ", " outside region ")}


class TerminalWriteFile(Task):
    """Use a real terminal to create a folder and a file holding a given token."""

    id = "starter.terminal_write_file"
    instruction_template = (
        "In the open terminal, create the folder ~/{folder} and in it a text file {name}.txt whose only line is {token}"
    )
    apps = ("terminal",)
    oracles = ("api", "gui")
    tags = ("terminal", "files", "starter")
    max_steps = 8

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        folder = f"reports_{rng.choice(WORDS)}"
        name = str(rng.choice(WORDS))
        token = f"{rng.choice(WORDS)}-{int(rng.integers(1000, 9999))}"
        return {"folder": folder, "name": name, "token": token}

    def setup(self, ctx: TaskContext) -> None:
        ctx.client.launch_app("terminal")

    def verify(self, ctx: TaskContext) -> VerifierResult:
        p = ctx.params
        return verify_text_file(ctx.read_file(f"~/{p['folder']}/{p['name']}.txt"), p["token"])

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        # write_text_file creates the missing folder too.
        path = f"~/{params['folder']}/{params['name']}.txt"
        return ScriptedPolicy(
            [f"OSTools.write_text_file(path={path!r}, text={params['token'] + chr(10)!r})", "exit(success=True)"]
        )

    def gui_oracle(self, params: Mapping[str, Any]) -> Policy:
        p = params
        command = f"mkdir -p ~/{p['folder']} && echo {p['token']} > ~/{p['folder']}/{p['name']}.txt\n"
        return ScriptedPolicy([f"type(text={command!r})", "wait(seconds=0.2)", "exit(success=True)"])

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        word, number = params["token"].rsplit("-", 1)
        return {**params, "token": f"{word}-{int(number) + 1}"}
