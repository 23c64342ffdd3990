"""The Calc calls the miner composes programs from: how each draws its arguments, what it does, and its sentence.

Each ``CallKind`` draws typed arguments from the model (the table's own names, rows and number
columns, sensible ranges), applies the call to the model, says it as an instruction sentence, and
names the one argument a perturbation may change (``var``) with the other values it could take.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..family_kit import pick
from .calls import Args, CallKind
from .sheet_model import Cell, SheetModel, column_letter, ref

COLORS = {"FFFF00": "yellow", "90EE90": "light green", "ADD8E6": "light blue", "FFC0CB": "pink", "D3D3D3": "light grey"}
NUMBER_FORMATS = {
    "0.00": "two decimal places (0.00)",
    "#,##0": "a thousands separator (#,##0)",
    "0.0": "one decimal place (0.0)",
}
FUNCTIONS = ("SUM", "AVERAGE", "MAX", "MIN")


# -- set a number -------------------------------------------------------------------------------


def _number_target(model: SheetModel, rng: np.random.Generator) -> Args | None:
    if not model.number_columns:
        return None
    column = pick(rng, model.number_columns)
    rows = model.data_rows()
    row = pick(rng, rows) if rows else 1
    return {"cell": ref(row, column), "value": int(rng.integers(1, 1000))}


def _cell_position(cell: str) -> tuple[int, int]:
    letters = "".join(ch for ch in cell if ch.isalpha())
    column = 0
    for ch in letters:
        column = column * 26 + ord(ch) - 64
    return int(cell[len(letters) :]) - 1, column - 1


def _set_value(model: SheetModel, args: Args) -> None:
    model.cell(*_cell_position(args["cell"])).value = args["value"]


def _other_numbers(model: SheetModel, args: Args, rng: np.random.Generator) -> list[Any]:
    return [int(v) for v in rng.choice(np.arange(1, 1000), size=4, replace=False) if int(v) != args["value"]]


SET_NUMBER = CallKind(
    "set_number", "set_cell_value", _number_target, _set_value,
    lambda a, m: f"set cell {a['cell']} to {a['value']}", "value", _other_numbers,
)  # fmt: skip


# -- rename a row's label ---------------------------------------------------------------------------


def _label_target(model: SheetModel, rng: np.random.Generator) -> Args | None:
    rows = model.data_rows()
    if not rows:
        return None
    row = pick(rng, rows)
    return {"cell": ref(row, model.label_column), "value": model.fresh_word(rng)}


def _other_words(model: SheetModel, args: Args, rng: np.random.Generator) -> list[Any]:
    return [model.fresh_word(rng) for _ in range(3)]


SET_LABEL = CallKind(
    "set_label", "set_cell_value", _label_target, _set_value,
    lambda a, m: f"change the text in cell {a['cell']} to {a['value']!r}", "value", _other_words,
)  # fmt: skip


# -- a new row at the bottom ------------------------------------------------------------------------


def _new_row(model: SheetModel, rng: np.random.Generator) -> Args | None:
    row = model.last_row() + 1
    values = [model.fresh_word(rng), *(int(rng.integers(5, 500)) for _ in model.number_columns)]
    return {"start_cell": ref(row, model.label_column), "values": [values]}


def _set_row(model: SheetModel, args: Args) -> None:
    row, column = _cell_position(args["start_cell"])
    for offset, value in enumerate(args["values"][0]):
        model.cell(row, column + offset).value = value


def _lower_starts(model: SheetModel, args: Args, rng: np.random.Generator) -> list[Any]:
    row, column = _cell_position(args["start_cell"])
    return [ref(row + gap, column) for gap in (1, 2)]


APPEND_ROW = CallKind(
    "append_row", "set_range_values", _new_row, _set_row,
    lambda a, m: f"add the row {', '.join(map(str, a['values'][0]))} starting at cell {a['start_cell']}", "start_cell",
    _lower_starts, gui_steps=3,
)  # fmt: skip


# -- a formula under a column -------------------------------------------------------------------------


def _formula_target(model: SheetModel, rng: np.random.Generator) -> Args | None:
    rows = model.data_rows()
    if not rows or not model.number_columns:
        return None
    column = column_letter(pick(rng, model.number_columns))
    span = f"{column}{rows[0] + 1}:{column}{rows[-1] + 1}"
    return {"cell": f"{column}{model.last_row() + 2}", "formula": f"={pick(rng, FUNCTIONS)}({span})"}


def _set_formula(model: SheetModel, args: Args) -> None:
    model.cell(*_cell_position(args["cell"])).value = args["formula"]
    model.formulas = True


def _other_functions(model: SheetModel, args: Args, rng: np.random.Generator) -> list[Any]:
    name, _, rest = args["formula"][1:].partition("(")
    return [f"={other}({rest}" for other in FUNCTIONS if other != name]


def _say_formula(args: Args, model: SheetModel) -> str:
    name, _, rest = args["formula"][1:].partition("(")
    return f"in cell {args['cell']}, enter a formula with the {name} function over {rest.rstrip(')')}"


FORMULA = CallKind(
    "formula", "set_cell_formula", _formula_target, _set_formula, _say_formula, "formula", _other_functions
)


# -- formatting ---------------------------------------------------------------------------------------


def _a_range(model: SheetModel, rng: np.random.Generator) -> str:
    last = column_letter(model.width - 1)
    rows = model.data_rows()
    choices = [f"A1:{last}1"]
    if rows:
        choices += [f"A{rows[0] + 1}:A{rows[-1] + 1}", f"A{rows[-1] + 1}:{last}{rows[-1] + 1}"]
        choices += [f"{column_letter(c)}{rows[0] + 1}:{column_letter(c)}{rows[-1] + 1}" for c in model.number_columns]
    return pick(rng, choices)


def _cells_of(cell_range: str) -> list[tuple[int, int]]:
    first, _, last = cell_range.partition(":")
    (r0, c0), (r1, c1) = _cell_position(first), _cell_position(last or first)
    return [(r, c) for r in range(r0, r1 + 1) for c in range(c0, c1 + 1)]


def _bold_target(model: SheetModel, rng: np.random.Generator) -> Args | None:
    cell_range = _a_range(model, rng)
    if all(model.cell(r, c).bold for r, c in _cells_of(cell_range)):
        return None
    return {"cell_range": cell_range}


def _set_bold(model: SheetModel, args: Args) -> None:
    for r, c in _cells_of(args["cell_range"]):
        model.cell(r, c).bold = True


def _other_ranges(model: SheetModel, args: Args, rng: np.random.Generator) -> list[Any]:
    return [r for r in {_a_range(model, rng) for _ in range(8)} if r != args["cell_range"]]


BOLD = CallKind(
    "bold",
    "set_bold",
    _bold_target,
    _set_bold,
    lambda a, m: f"make {a['cell_range']} bold",
    "cell_range",
    _other_ranges,
)


def _fill_target(model: SheetModel, rng: np.random.Generator) -> Args | None:
    return {"cell_range": _a_range(model, rng), "color": "#" + pick(rng, tuple(COLORS))}


def _set_fill(model: SheetModel, args: Args) -> None:
    for r, c in _cells_of(args["cell_range"]):
        model.cell(r, c).fill = args["color"][1:]


def _other_colors(model: SheetModel, args: Args, rng: np.random.Generator) -> list[Any]:
    return ["#" + color for color in COLORS if "#" + color != args["color"]]


FILL = CallKind(
    "fill", "set_background_color", _fill_target, _set_fill,
    lambda a, m: f"fill {a['cell_range']} with {COLORS[a['color'][1:]]} ({a['color']})", "color", _other_colors,
    gui_steps=4,
)  # fmt: skip


def _format_target(model: SheetModel, rng: np.random.Generator) -> Args | None:
    rows = model.data_rows()
    if not rows or not model.number_columns:
        return None
    column = column_letter(pick(rng, model.number_columns))
    return {
        "cell_range": f"{column}{rows[0] + 1}:{column}{rows[-1] + 1}",
        "format_string": pick(rng, tuple(NUMBER_FORMATS)),
    }


def _set_format(model: SheetModel, args: Args) -> None:
    for r, c in _cells_of(args["cell_range"]):
        model.cell(r, c).number_format = args["format_string"]


NUMBER_FORMAT = CallKind(
    "number_format", "set_number_format", _format_target, _set_format,
    lambda a, m: f"give {a['cell_range']} {NUMBER_FORMATS[a['format_string']]}", "format_string",
    lambda m, a, rng: [f for f in NUMBER_FORMATS if f != a["format_string"]], gui_steps=5,
)  # fmt: skip


# -- structure ------------------------------------------------------------------------------------------


def _insert_target(model: SheetModel, rng: np.random.Generator) -> Args | None:
    rows = model.data_rows()
    if model.formulas or not rows:
        return None
    return {"row": int(pick(rng, rows)) + 1, "count": int(rng.integers(1, 3))}


def _insert(model: SheetModel, args: Args) -> None:
    at = args["row"] - 1
    for _ in range(args["count"]):
        model.rows.insert(at, [Cell() for _ in range(model.width)])


def _say_insert(args: Args, model: SheetModel) -> str:
    rows = "an empty row" if args["count"] == 1 else f"{args['count']} empty rows"
    return f"insert {rows} above row {args['row']}"


INSERT_ROWS = CallKind(
    "insert_rows", "insert_rows", _insert_target, _insert, _say_insert, "row",
    lambda m, a, rng: [r + 1 for r in m.data_rows() if r + 1 != a["row"]], structural=True, gui_steps=3,
)  # fmt: skip


def _delete_target(model: SheetModel, rng: np.random.Generator) -> Args | None:
    rows = model.data_rows()
    if model.formulas or len(rows) < 3:
        return None
    return {"row": int(pick(rng, rows)) + 1}


def _delete(model: SheetModel, args: Args) -> None:
    del model.rows[args["row"] - 1]


DELETE_ROW = CallKind(
    "delete_row", "delete_rows", _delete_target, _delete, lambda a, m: f"delete row {a['row']}", "row",
    lambda m, a, rng: [r + 1 for r in m.data_rows() if r + 1 != a["row"]], structural=True, gui_steps=3,
)  # fmt: skip


def _sort_target(model: SheetModel, rng: np.random.Generator) -> Args | None:
    rows = model.data_rows()
    if model.formulas or len(rows) < 3 or rows != list(range(1, len(rows) + 1)):
        return None
    column = pick(rng, (model.label_column, *model.number_columns))
    keys = [model.value(r, column) for r in rows]
    if len(set(map(str, keys))) != len(keys) or any(k is None for k in keys):
        return None  # ties or blanks: the order the app picks is not the model's to predict
    span = f"A1:{column_letter(model.width - 1)}{rows[-1] + 1}"
    return {"cell_range": span, "column": column_letter(column), "ascending": bool(rng.integers(2))}


def _sort(model: SheetModel, args: Args) -> None:
    column = _cell_position(f"{args['column']}1")[1]
    rows = model.data_rows()
    body = [model.rows[r] for r in rows]
    body.sort(key=lambda line: (isinstance(line[column].value, str), line[column].value), reverse=not args["ascending"])
    for r, line in zip(rows, body, strict=True):
        model.rows[r] = line


def _say_sort(args: Args, model: SheetModel) -> str:
    order = "ascending (smallest or A first)" if args["ascending"] else "descending (largest or Z first)"
    return f"sort {args['cell_range']} by column {args['column']} in {order} order, keeping row 1 as the header"


SORT = CallKind(
    "sort", "sort_range", _sort_target, _sort, _say_sort, "ascending", lambda m, a, rng: [not a["ascending"]],
    structural=True, gui_steps=6,
)  # fmt: skip


def _replace_target(model: SheetModel, rng: np.random.Generator) -> Args | None:
    rows = model.data_rows()
    if not rows:
        return None
    word = model.value(pick(rng, rows), model.label_column)
    return {"find": word, "replace": model.fresh_word(rng), "match_case": True, "whole_cell": True}


def _replace(model: SheetModel, args: Args) -> None:
    for line in model.rows:
        for cell in line:
            if cell.value == args["find"]:
                cell.value = args["replace"]


REPLACE = CallKind(
    "replace", "find_replace", _replace_target, _replace,
    lambda a, m: f"replace the cell text {a['find']!r} with {a['replace']!r} everywhere in the sheet", "replace",
    _other_words, gui_steps=5,
)  # fmt: skip


def _rename_target(model: SheetModel, rng: np.random.Generator) -> Args | None:
    return {"old_name": model.sheet, "new_name": model.fresh_word(rng)}


def _rename(model: SheetModel, args: Args) -> None:
    model.sheets[model.sheets.index(args["old_name"])] = args["new_name"]


RENAME_SHEET = CallKind(
    "rename_sheet", "rename_sheet", _rename_target, _rename,
    lambda a, m: f"rename the sheet {a['old_name']!r} to {a['new_name']!r}", "new_name", _other_words, gui_steps=4,
)  # fmt: skip


def _add_target(model: SheetModel, rng: np.random.Generator) -> Args | None:
    if len(model.sheets) > 2:
        return None
    return {"name": model.fresh_word(rng)}


ADD_SHEET = CallKind(
    "add_sheet", "add_sheet", _add_target, lambda m, a: m.sheets.append(a["name"]),
    lambda a, m: f"add an empty sheet named {a['name']!r} after the last sheet", "name", _other_words, gui_steps=4,
)  # fmt: skip

CALC_KINDS: tuple[CallKind, ...] = (
    SET_NUMBER, SET_LABEL, APPEND_ROW, FORMULA, BOLD, FILL, NUMBER_FORMAT, INSERT_ROWS, DELETE_ROW, SORT, REPLACE,
    RENAME_SHEET, ADD_SHEET,
)  # fmt: skip
