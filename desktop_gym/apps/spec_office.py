"""The shape every LibreOffice app's spec shares (one soffice, a module flag, UNO readiness)."""

from __future__ import annotations

from typing import Any

from .spec import AppSpec

#: What every LibreOffice module needs beside its own package: the gtk3 toolkit (for the
#: accessibility tree), UNO from Python, and Math (Writer keeps and inserts equations only with it).
OFFICE_PACKAGES = ("libreoffice-gtk3", "python3-uno", "libreoffice-math")


def libreoffice_app(
    key: str, flag: str, *, aliases: tuple[str, ...], packages: tuple[str, ...], **fields: Any
) -> AppSpec:
    """The spec of the LibreOffice module ``key`` started with ``soffice <flag>``."""
    return AppSpec(
        key=key,
        launch="libreoffice",
        command=(flag,),
        window_class="libreoffice",
        aliases=(f"libreoffice {key}", f"libreoffice-{key}", *aliases),
        saves_documents=True,
        packages=(*packages, *OFFICE_PACKAGES),
        doctor=("soffice",),
        domain=f"libreoffice_{key}",
        save_keys=("ctrl", "s"),
        readiness="uno",
        **fields,
    )
