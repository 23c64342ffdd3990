"""Helpers for the CalcTools tests: a source workbook, API calls over gRPC, saved-file readback."""

from __future__ import annotations

import io

import openpyxl

from desktop_gym.guest.client import GuestClient

from .office_api_support import OfficeApi

HEADER = ["Region", "Product", "Units", "Price"]
ROWS = [
    ["North", "Apples", 30, 1.5],
    ["South", "Pears", 10, 2.0],
    ["North", "Pears", 25, 2.5],
    ["East", "Apples", 5, 1.0],
    ["South", "Apples", 40, 1.25],
]


def workbook_bytes() -> bytes:
    """An xlsx with ``HEADER`` + ``ROWS`` on ``Data`` (A1:D6) and an empty ``Notes`` sheet."""
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "Data"
    sheet.append(HEADER)
    for row in ROWS:
        sheet.append(row)
    book.create_sheet("Notes")
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()


API = OfficeApi("CalcTools", "calc", ".xlsx", workbook_bytes)
call, saved_copy, launched_calc = API.call, API.saved_copy, API.launched


def saved_workbook(guest: GuestClient) -> openpyxl.Workbook:
    """The live document as openpyxl reads it after an API save as xlsx (the independent check)."""
    return openpyxl.load_workbook(io.BytesIO(saved_copy(guest)))
