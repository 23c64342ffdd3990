"""LibreOffice Impress: its spec (the rest of the folder is its API, ``ImpressTools``, over UNO in the guest).

Standard library only: the host and the guest both import it to read the app table.
"""

from __future__ import annotations

from ..spec import AppSpec
from ..spec_office import libreoffice_app

SPEC: AppSpec = libreoffice_app(
    "impress",
    aliases=("loimpress", "powerpoint", "presentation", "slides", "simpress"),
    packages=("libreoffice-impress",),
    file_types=(".pptx", ".odp", ".ppt"),
    tools="ImpressTools",
)
