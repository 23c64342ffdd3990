"""What the Calc families share: input workbooks, the family base class, action-text builders.

Every family writes one xlsx file into ``~/Documents``, opens it in Calc, and verifies the file the
agent saved. Oracles are lists of action texts: ``CalcTools`` calls for API oracles, keys, typing and
the Name Box (Ctrl+Shift+T) for GUI oracles, played by :class:`~desktop_gym.tasks.gui_script.GuiScript`
with focus gates; a pointer position, where one is needed, comes from the observation's accessibility
tree (:func:`~desktop_gym.tasks.gui_script.click_node`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from ...guest.a11y_text import find_node, focused_with_ancestors
from ...verifiers import verify_xlsx_charts
from ...verifiers.result import VerifierResult
from ..artifacts import workbook_bytes
from ..base import Policy, ScriptedPolicy, Task, TaskContext
from ..gui_script import Computed, GuiScript, WaitFor, tree_of
from .samples import ITEMS, PEOPLE, REGIONS, SHEET_WORDS, column_letter, draw, ints  # noqa: F401 - re-exported

SAVE = "CalcTools.save()"
GUI_SAVE = 'hotkey(keys=["ctrl", "s"])'
DONE = "exit(success=True)"

Rows = Sequence[Sequence[object]]
Step = str | Computed | WaitFor


def api(method: str, **kwargs: Any) -> str:
    """The action text of a ``CalcTools`` call: ``api("save")`` -> ``CalcTools.save()``."""
    arguments = ", ".join(f"{name}={value!r}" for name, value in kwargs.items())
    return f"CalcTools.{method}({arguments})"


def column_chart(data: bytes | None, sheet: str, chart_type: str, title: str, last_row: int) -> VerifierResult:
    """Check for a ``chart_type`` chart on ``sheet`` titled ``title`` that plots ``B2:B<last_row>``
    against the categories in ``A2:A<last_row>``."""
    return verify_xlsx_charts(
        data,
        sheet=sheet,
        chart_type=chart_type,
        title=title,
        values=[f"{sheet}!B2:B{last_row}"],
        categories=f"{sheet}!A2:A{last_row}",
    )


def type_text(text: str) -> str:
    """The action text typing ``text`` (newlines and tabs are typed as Enter and Tab)."""
    return f"type(text={json.dumps(text)})"


def hotkey(*keys: str) -> str:
    """The action text pressing a key combination."""
    return f"hotkey(keys={json.dumps(list(keys))})"


def name_box(ref: str) -> list[Step]:
    """Steps selecting a cell or range through the Name Box (Ctrl+Shift+T, type, Enter), each keystroke
    gated on the focus it needs."""
    return [GRID_READY, hotkey("ctrl", "shift", "t"), NAME_BOX_READY, type_text(f"{ref}\n"), GRID_READY]


def find_box(tree: str, role: str, name: str) -> tuple[int, int, int, int] | None:
    """The box ``(x, y, width, height)`` of the first node with ``role`` and ``name`` in a linearized
    accessibility tree (the observation's ``a11y_tree``), or None when absent or off screen."""
    node = find_node(tree, role, name)
    return node.box if node is not None else None


def focused_nodes(tree: str) -> list[tuple[str, str, str, tuple[str, ...]]]:
    """The focused nodes of a linearized a11y tree: (role, name, text, ancestors as 'role "name"')."""
    return [(node.role, node.name, node.text, ancestors) for node, ancestors in focused_with_ancestors(tree)]


GRID_READY = WaitFor(
    lambda obs: any(role == "table" and name.startswith("Sheet ") for role, name, _, _ in focused_nodes(tree_of(obs))),
    "the sheet grid to have the keyboard focus",
)
NAME_BOX_READY = WaitFor(
    lambda obs: any(
        role == "text" and 'tool bar "Formula Tool Bar"' in ancestors
        for role, _, _, ancestors in focused_nodes(tree_of(obs))
    ),
    "the Name Box to have the keyboard focus",
)


def field_ready(text: str) -> WaitFor:
    """A gate: a text field holding ``text`` (e.g. a dialog's name field) has the focus."""
    return WaitFor(
        lambda obs: any(role == "text" and found == text for role, _, found, _ in focused_nodes(tree_of(obs))),
        f"a text field holding {text!r} to have the keyboard focus",
    )


def gate_on_grid(steps: Sequence[Step]) -> list[Step]:
    """``steps`` with :data:`GRID_READY` gates at the start, after each typing step and around the save.

    Typed text is committed, and Ctrl+S handled, only when LibreOffice gets to those key events; the
    focus coming back to the grid shows it has (a save still queued behind typing could otherwise
    land after the verifier has read the file).
    """
    gated: list[Step] = [GRID_READY]
    for step in steps:
        if step == GUI_SAVE and gated[-1] is not GRID_READY:
            gated.append(GRID_READY)
        gated.append(step)
        if isinstance(step, str) and (step.startswith("type(") or step == GUI_SAVE):
            gated.append(GRID_READY)
    return gated


SHEET_OPEN = "The spreadsheet {path} is open in LibreOffice Calc."


class CalcFamily(Task):
    """A Calc task over one xlsx file: subclasses give the sheets and the check.

    Subclasses set ``id``, ``goal`` (or a whole ``instruction_template``), ``file_name`` and implement
    ``sheets``, ``sample_params``, ``check`` and ``perturb``, plus one or both oracles (``api_steps``,
    ``gui_steps``, which return action texts without the final ``exit``).
    """

    apps = ("calc",)
    needs_save = True
    max_steps = 40  # GUI oracles spend steps waiting for the focus on a slow machine
    file_name = "data.xlsx"
    goal_frame = f"{SHEET_OPEN} {{goal}}"

    @property
    def path(self) -> str:
        """Where the input workbook lives in the desktop."""
        return f"~/Documents/{self.file_name}"

    def instruction(self, params: Mapping[str, Any]) -> str:
        return self.instruction_template.format(path=self.path, **params)

    def sheets(self, params: Mapping[str, Any]) -> dict[str, Rows]:
        """The input workbook: sheet name -> rows."""
        raise NotImplementedError

    def active_sheet(self, params: Mapping[str, Any]) -> str | None:
        """The sheet shown on opening (the first when None)."""
        return None

    def input_bytes(self, params: Mapping[str, Any]) -> bytes:
        """The input workbook's bytes (deterministic for the same parameters)."""
        return workbook_bytes(self.sheets(params), self.active_sheet(params))

    def setup(self, ctx: TaskContext) -> None:
        ctx.client.put_file(self.path, self.input_bytes(ctx.params))
        ctx.client.launch_app("calc", self.path)

    def check(self, data: bytes | None, params: Mapping[str, Any], ctx: TaskContext) -> VerifierResult:
        """Judge the saved workbook's bytes (None when missing)."""
        raise NotImplementedError

    def verify(self, ctx: TaskContext) -> VerifierResult:
        return self.check(ctx.read_file(self.path), ctx.params, ctx)

    def api_steps(self, params: Mapping[str, Any]) -> list[str] | None:
        return None

    def gui_steps(self, params: Mapping[str, Any]) -> list[Step] | None:
        return None

    def api_oracle(self, params: Mapping[str, Any]) -> Policy | None:
        steps = self.api_steps(params)
        return None if steps is None else ScriptedPolicy([*steps, DONE])

    def gui_oracle(self, params: Mapping[str, Any]) -> Policy | None:
        steps = self.gui_steps(params)
        return None if steps is None else GuiScript([*gate_on_grid(steps), DONE])
