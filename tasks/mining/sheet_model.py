"""What the Calc miner believes a workbook holds: a small model its calls are drawn from and applied to.

The miner samples a program's arguments from this model (the document's own names, numbers and
rows), applies each call to it, and later compares the model with the state the real app saved
(``verifiers.workbook_state``): a program whose real effect differs from the model's is dropped, so
an instruction written from the model always says what the app did.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ...verifiers.workbook_state import STATE_KEYS, cell_content
from .model_base import DocumentModel

#: Seed tables: (sheet and file name, label column, number columns).
THEMES: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("Sales", "Region", ("Q1", "Q2", "Q3")),
    ("Stock", "Item", ("Units", "Price")),
    ("Grades", "Student", ("Math", "Art", "Music")),
    ("Projects", "Project", ("Hours", "Budget")),
    ("Weather", "City", ("Jan", "Feb", "Mar", "Apr")),
    ("Fleet", "Vehicle", ("Km", "Fuel")),
)
MIN_ROWS, MAX_ROWS = 4, 7


def column_letter(index: int) -> str:
    """0 -> ``A``, 25 -> ``Z``, 26 -> ``AA``."""
    letters = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        letters = chr(65 + rest) + letters
    return letters


def ref(row: int, column: int) -> str:
    """0-based (row, column) -> ``B3``."""
    return f"{column_letter(column)}{row + 1}"


@dataclass
class Cell:
    """One cell of the model: its content and the formatting the miner's calls set."""

    value: Any = None
    bold: bool = False
    fill: str | None = None
    number_format: str | None = None


@dataclass
class SheetModel(DocumentModel):
    """A workbook of one table sheet plus, perhaps, empty sheets added by the program.

    Attributes:
        sheets: sheet names in order; the table is on ``sheets[table]``.
        table: the index of the table's sheet.
        rows: the table's cells, row 0 the header.
        label_column / number_columns: which columns hold names and numbers.
    """

    sheets: list[str]
    rows: list[list[Cell]]
    label_column: int = 0
    number_columns: tuple[int, ...] = ()
    table: int = 0

    @property
    def sheet(self) -> str:
        return self.sheets[self.table]

    @property
    def width(self) -> int:
        return max((len(row) for row in self.rows), default=0)

    def cell(self, row: int, column: int) -> Cell:
        """The cell at 0-based (row, column), growing the table as needed."""
        while len(self.rows) <= row:
            self.rows.append([])
        line = self.rows[row]
        while len(line) <= column:
            line.append(Cell())
        return line[column]

    def data_rows(self) -> list[int]:
        """0-based indexes of the rows under the header that hold a label."""
        return [i for i in range(1, len(self.rows)) if self.value(i, self.label_column) not in (None, "")]

    def value(self, row: int, column: int) -> Any:
        if row < len(self.rows) and column < len(self.rows[row]):
            return self.rows[row][column].value
        return None

    def last_row(self) -> int:
        """The 0-based index of the last row holding anything."""
        filled = [i for i, line in enumerate(self.rows) if any(c.value not in (None, "") for c in line)]
        return filled[-1] if filled else 0

    def state(self) -> dict[str, Any]:
        """The model as ``workbook_state`` would read the saved file."""
        state: dict[str, Any] = {key: {} for key in STATE_KEYS}
        state["sheets"] = list(self.sheets)
        for name in self.sheets:
            for key in STATE_KEYS[1:]:
                state[key][name] = [] if key in ("bold", "merged") else {}
        cells, bold, fills, formats = {}, [], {}, {}
        for r, line in enumerate(self.rows):
            for c, cell in enumerate(line):
                at = ref(r, c)
                if cell.value not in (None, ""):
                    cells[at] = cell_content(cell.value)
                    if cell.number_format:
                        formats[at] = cell.number_format
                if cell.bold:
                    bold.append(at)
                if cell.fill:
                    fills[at] = cell.fill
        state["cells"][self.sheet] = cells
        state["bold"][self.sheet] = sorted(bold)
        state["fill"][self.sheet] = fills
        state["number_format"][self.sheet] = formats
        return state


def seed_model(rng: np.random.Generator) -> tuple[SheetModel, str]:
    """A random seed table and its file name (``~/Documents/<theme>.xlsx``)."""
    name, label, numbers = THEMES[int(rng.integers(len(THEMES)))]
    count = int(rng.integers(MIN_ROWS, MAX_ROWS + 1))
    model = SheetModel(sheets=[name], rows=[], number_columns=tuple(range(1, len(numbers) + 1)))
    model.rows.append([Cell(label), *(Cell(title) for title in numbers)])
    for _ in range(count):
        word = model.fresh_word(rng)
        model.rows.append([Cell(word), *(Cell(int(rng.integers(5, 500))) for _ in numbers)])
    return model, f"~/Documents/{name.lower()}.xlsx"


def model_rows(model: SheetModel) -> list[list[Any]]:
    """The table as the ``rows`` of a ``put_file`` setup step."""
    return [[cell.value for cell in line] for line in model.rows]
