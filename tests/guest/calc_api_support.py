"""Helpers for the CalcTools tests: a source workbook, API calls over gRPC, saved-file readback."""

from __future__ import annotations

import io
import json
import uuid
from collections.abc import Iterator
from typing import Any

import openpyxl

from desktop_gym.guest.client import GuestClient

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


def call(guest: GuestClient, method: str, **arguments: Any) -> Any:
    """``CalcTools.<method>(**arguments)`` through the real CallApi RPC; the decoded result."""
    return json.loads(guest.call_api("CalcTools", method, json.dumps(arguments)))


def saved_copy(guest: GuestClient, suffix: str = ".xlsx") -> bytes:
    """Save the live document through the API to a fresh file in the guest; return its bytes."""
    path = call(guest, "save", path=f"~/api-saved/{uuid.uuid4().hex}{suffix}")
    return guest.get_file(path)


def saved_workbook(guest: GuestClient) -> openpyxl.Workbook:
    """The live document as openpyxl reads it after an API save as xlsx (the independent check)."""
    return openpyxl.load_workbook(io.BytesIO(saved_copy(guest)))


def launched_calc(guest: GuestClient, name: str) -> Iterator[GuestClient]:
    """Put the source workbook in the guest as ``~/<name>.xlsx``, open it in Calc, kill it after."""
    guest.exec("mkdir -p ~/api-saved", shell=True)
    path = guest.put_file(f"~/{name}.xlsx", workbook_bytes())
    guest.launch_app("calc", path)
    try:
        yield guest
    finally:
        guest.kill_apps()
