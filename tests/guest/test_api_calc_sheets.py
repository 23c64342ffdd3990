"""CalcTools sheet, chart, pivot table and save methods on a live Calc document, read back with openpyxl.

Also measures the latency of ``set_cell_value`` over the real CallApi path.
"""

from __future__ import annotations

import csv
import io
import statistics
import time
from collections.abc import Iterator

import openpyxl
import pytest

from desktop_gym.guest.client import GuestClient
from desktop_gym.guest.types import GuestError

from .calc_api_support import HEADER, call, launched_calc, saved_copy, saved_workbook

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def calc(_session_guest: GuestClient) -> Iterator[GuestClient]:
    """One Calc instance on the source workbook for this module's tests."""
    yield from launched_calc(_session_guest, "api_sheets")


def test_sheets(calc: GuestClient) -> None:
    assert call(calc, "list_sheets") == ["Data", "Notes"]
    call(calc, "add_sheet", name="Summary", position=1)
    call(calc, "add_sheet", name="Scratch")
    call(calc, "rename_sheet", old_name="Notes", new_name="Remarks")
    call(calc, "delete_sheet", name="Scratch")
    assert call(calc, "switch_sheet", name="Summary") == "active sheet is 'Summary'"
    call(calc, "set_cell_value", cell="A1", value="on the active sheet")
    assert call(calc, "list_sheets") == ["Data", "Summary", "Remarks"]
    book = saved_workbook(calc)
    assert book.sheetnames == ["Data", "Summary", "Remarks"]
    assert book.active.title == "Summary"
    assert book["Summary"]["A1"].value == "on the active sheet"
    with pytest.raises(GuestError, match="a sheet named 'Data' already exists"):
        call(calc, "add_sheet", name="Data")
    call(calc, "switch_sheet", name="Data")


def test_used_range(calc: GuestClient) -> None:
    assert call(calc, "get_used_range") == "A1:D6"
    assert call(calc, "get_used_range", sheet="Summary") == "A1"
    call(calc, "set_cell_value", cell="Remarks!C4", value=1)
    assert call(calc, "get_used_range", sheet="Remarks") == "C4"
    assert saved_workbook(calc)["Data"].dimensions == "A1:D6"


def test_insert_chart(calc: GuestClient) -> None:
    names = [
        call(calc, "insert_chart", data_range="B1:C6", chart_type=kind, anchor_cell=anchor, title=f"{kind} chart")
        for kind, anchor in (("bar", "F2"), ("line", "F20"), ("pie", "F40"))
    ]
    assert names == ["Chart1", "Chart2", "Chart3"]
    charts = saved_workbook(calc)["Data"]._charts
    assert sorted(type(chart).__name__ for chart in charts) == ["BarChart", "LineChart", "PieChart"]
    with pytest.raises(GuestError, match=r"chart_type must be one of 'bar', 'line', 'pie', got 'donut'"):
        call(calc, "insert_chart", data_range="B1:C6", chart_type="donut")


def test_create_pivot_table(calc: GuestClient) -> None:
    name = call(
        calc,
        "create_pivot_table",
        source_range="A1:D6",
        row_field="Region",
        data_field="Units",
        function="sum",
        target_cell="Summary!A3",
    )
    assert name == "PivotTable1"
    book = saved_workbook(calc)
    pivots = book["Summary"]._pivots
    assert len(pivots) == 1
    pivot = pivots[0]
    assert pivot.cache.cacheSource.worksheetSource.ref == "A1:D6"
    assert [field.subtotal for field in pivot.dataFields] == ["sum"]
    values = {row[0]: row[1] for row in book["Summary"].iter_rows(min_row=3, values_only=True) if row[0]}
    assert values["North"] == 55 and values["South"] == 50 and values["East"] == 5
    with pytest.raises(GuestError, match=r"row_field: no column headed 'Area'.*'Region'"):
        call(calc, "create_pivot_table", source_range="A1:D6", row_field="Area", data_field="Units")


def test_save_in_place_and_as_other_formats(calc: GuestClient) -> None:
    rows = list(csv.reader(io.StringIO(saved_copy(calc, ".csv").decode())))
    assert rows[0] == HEADER and rows[1][:3] == ["North", "Apples", "30"]
    assert saved_copy(calc, ".ods")[:2] == b"PK"
    path = call(calc, "save", path="~/api-saved/final.xlsx")
    call(calc, "set_cell_value", cell="A7", value="saved in place")
    assert call(calc, "save") == path
    book = openpyxl.load_workbook(io.BytesIO(calc.get_file(path)))
    assert book["Data"]["A7"].value == "saved in place"
    with pytest.raises(GuestError, match="path must end in one of"):
        call(calc, "save", path="~/api-saved/out.docx")


def test_set_cell_value_latency(calc: GuestClient) -> None:
    for _ in range(5):  # warm up the channel and the UNO bridge
        call(calc, "set_cell_value", cell="J1", value=0)
    samples = []
    for index in range(50):
        started = time.perf_counter()
        call(calc, "set_cell_value", cell="J1", value=index)
        samples.append(time.perf_counter() - started)
    p50 = statistics.median(samples) * 1000
    print(f"set_cell_value p50 {p50:.2f} ms over the CallApi RPC")
    assert p50 < 50  # the target is < 5 ms; a loaded CI machine gets headroom
