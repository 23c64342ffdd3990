"""LibreOffice Writer: its spec (the rest of the folder is its API, ``WriterTools``, over UNO in the guest).

Standard library only: the host and the guest both import it to read the app table.
"""

from __future__ import annotations

from ..spec import AppSpec
from ..spec_office import libreoffice_app

SPEC: AppSpec = libreoffice_app(
    "writer",
    aliases=("lowriter", "word", "word processor", "document", "swriter"),
    packages=("libreoffice-writer",),
    file_types=(".docx", ".odt", ".doc", ".rtf", ".txt"),
    tools="WriterTools",
)
