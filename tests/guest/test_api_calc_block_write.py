"""CalcTools.set_range_values' one-call path for plain rectangular blocks, checked in the saved xlsx."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from desktop_gym.guest.client import GuestClient

from .calc_api_support import call, launched_calc, saved_workbook

pytestmark = pytest.mark.slow


@pytest.fixture
def calc(guest: GuestClient) -> Iterator[GuestClient]:
    yield from launched_calc(guest, "api_block")


def test_plain_block_keeps_types_like_cell_by_cell_writes(calc: GuestClient) -> None:
    assert call(calc, "set_range_values", start_cell="F2", values=[["007", 1.5, "text"]]) == "wrote F2:H2"
    assert call(calc, "set_range_values", start_cell="F3", values=[[2, "x", -3], [4, 5, 6]]) == "wrote F3:H4"
    assert call(calc, "get_cell_value", cell="F2") == "007"  # text that looks like a number stays text
    data = saved_workbook(calc)["Data"]
    assert [[data.cell(row, column).value for column in range(6, 9)] for row in range(2, 5)] == [
        ["007", 1.5, "text"],
        [2, "x", -3],
        [4, 5, 6],
    ]
