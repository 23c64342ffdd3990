"""LibreOffice Calc: its spec (the rest of the folder is its API, ``CalcTools``, over UNO in the guest).

Standard library only: the host and the guest both import it to read the app table.
"""

from __future__ import annotations

from ..spec import AppSpec
from ..spec_office import libreoffice_app

SPEC: AppSpec = libreoffice_app(
    "calc",
    aliases=("localc", "spreadsheet", "excel", "scalc"),
    packages=("libreoffice-calc",),
    file_types=(".xlsx", ".ods", ".xls", ".csv"),
    tools="CalcTools",
)
