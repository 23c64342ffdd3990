"""CalcTools cell, row/column, sort, filter and find & replace methods on a live Calc document.

Every change goes through ``guest.call_api`` (the real CallApi RPC) and is checked in the xlsx the
document is then saved as, read with openpyxl: an independent path from the UNO getters.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from desktop_gym.guest.client import GuestClient
from desktop_gym.guest.types import GuestError

from .calc_api_support import HEADER, ROWS, call, launched_calc, saved_workbook

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def calc(_session_guest: GuestClient) -> Iterator[GuestClient]:
    """One Calc instance on the source workbook for this module's tests (they run in order)."""
    yield from launched_calc(_session_guest, "api_cells")


def test_cell_values_and_formulas(calc: GuestClient) -> None:
    assert call(calc, "get_cell_value", cell="A2") == "North"
    assert call(calc, "get_cell_value", cell="C2") == 30
    assert call(calc, "get_cell_value", cell="Z99") is None
    assert call(calc, "set_cell_value", cell="F1", value="Total") == "set F1 to 'Total'"
    call(calc, "set_cell_value", cell="F2", value=12.5)
    call(calc, "set_cell_value", cell="Notes!B3", value="on the other sheet")
    assert call(calc, "set_cell_formula", cell="F3", formula="SUM(C2:C6)") == "F3 = 110"
    call(calc, "set_cell_value", cell="F4", value="=C2*D2")
    assert call(calc, "get_cell_formula", cell="F3") == "=SUM(C2:C6)"
    assert call(calc, "get_cell_value", cell="F4") == 45
    # Excel-style commas between arguments work like ";" (not inside strings).
    assert call(calc, "set_cell_formula", cell="F5", formula='=IF(C2>20,"big, yes","small")') == "F5 = 'big, yes'"
    call(calc, "set_cell_value", cell="F6", value="=MAX(C2,C3,C4)")
    assert call(calc, "get_cell_value", cell="F6") == 30
    book = saved_workbook(calc)
    data = book["Data"]
    assert data["F5"].value == '=IF(C2>20,"big, yes","small")'
    assert (data["F1"].value, data["F2"].value) == ("Total", 12.5)
    assert data["F3"].value == "=SUM(C2:C6)"
    assert data["F4"].value == "=C2*D2"
    assert book["Notes"]["B3"].value == "on the other sheet"


def test_range_values(calc: GuestClient) -> None:
    assert call(calc, "get_range_values", cell_range="A1:D2") == [HEADER, ROWS[0][:2] + [30, 1.5]]
    assert call(calc, "set_range_values", start_cell="H1", values=[["x", 1], [None, "=I1+1"], [3]]) == "wrote H1:I3"
    data = saved_workbook(calc)["Data"]
    assert [[c.value for c in row] for row in data["H1:I3"]] == [["x", 1], [None, "=I1+1"], [3, None]]


def test_insert_and_delete_rows_and_columns(calc: GuestClient) -> None:
    call(calc, "insert_rows", row=2, count=2)
    call(calc, "insert_columns", column="B")
    data = saved_workbook(calc)["Data"]
    assert data["A2"].value is None and data["A3"].value is None
    assert data["A4"].value == "North" and data["C1"].value == "Product" and data["B1"].value is None
    call(calc, "delete_rows", row=2, count=2)
    call(calc, "delete_columns", column="B")
    data = saved_workbook(calc)["Data"]
    assert [c.value for c in data[1][:4]] == HEADER
    assert data["A2"].value == "North"


def test_sort_range_by_a_column(calc: GuestClient) -> None:
    call(calc, "sort_range", cell_range="A1:D6", column="C", ascending=False, has_header=True)
    data = saved_workbook(calc)["Data"]
    assert data["A1"].value == "Region"
    assert [data.cell(row, 3).value for row in range(2, 7)] == [40, 30, 25, 10, 5]
    call(calc, "sort_range", cell_range="A2:D6", column="B", has_header=False)
    data = saved_workbook(calc)["Data"]
    assert [data.cell(row, 2).value for row in range(2, 7)] == ["Apples"] * 3 + ["Pears"] * 2


def test_autofilter(calc: GuestClient) -> None:
    assert call(calc, "set_autofilter", cell_range="A1:D6") == "AutoFilter on for A1:D6"
    assert saved_workbook(calc)["Data"].auto_filter.ref == "A1:D6"


def test_find_replace_counts_cells(calc: GuestClient) -> None:
    assert call(calc, "find_replace", find="Apples", replace="Plums") == 3
    assert call(calc, "find_replace", find="nothing-like-this", replace="x") == 0
    data = saved_workbook(calc)["Data"]
    assert sorted(data.cell(row, 2).value for row in range(2, 7)) == ["Pears", "Pears", "Plums", "Plums", "Plums"]


@pytest.mark.parametrize(
    ("method", "arguments", "message"),
    [
        (
            "set_cel_value",
            {"cell": "A1", "value": 1},
            r"CalcTools has no method 'set_cel_value' \(did you mean 'set_cell_value'",
        ),
        ("set_cell_value", {"cel": "A1", "value": 1}, r"unknown argument 'cel' \(did you mean 'cell'\?\)"),
        ("set_cell_value", {"cell": "A1"}, "missing the required argument 'value'"),
        ("set_cell_value", {"cell": "A1", "value": [1]}, "value must be str | float | None"),
        ("get_cell_value", {"cell": "not a cell"}, "cell must be an A1 reference"),
        ("get_cell_value", {"cell": "Nope!A1"}, "no sheet named 'Nope'"),
        ("get_cell_value", {"cell": "A1:B2"}, "cell must be one cell"),
    ],
)
def test_errors_name_the_method_and_argument(calc: GuestClient, method: str, arguments: dict, message: str) -> None:
    with pytest.raises(GuestError, match=message):
        call(calc, method, **arguments)
