"""The shape every LibreOffice app's spec shares (one soffice, a module flag, UNO readiness)."""

from __future__ import annotations

from typing import Any

from .spec import AppSpec, tools_entry_point

#: What every LibreOffice module needs beside its own package: the gtk3 toolkit (for the
#: accessibility tree), UNO from Python, and Math (Writer keeps and inserts equations only with it).
OFFICE_PACKAGES = ("libreoffice-gtk3", "python3-uno", "libreoffice-math")


def libreoffice_app(
    key: str,
    flag: str = "",
    *,
    aliases: tuple[str, ...],
    packages: tuple[str, ...],
    tools: str = "",
    **fields: Any,
) -> AppSpec:
    """The spec of the LibreOffice module ``key``, started with ``soffice <flag>``.

    Args:
        key: The module (``"calc"``).
        flag: Its soffice flag (default: ``--<key>``).
        aliases: Other names agents call it by (the ``libreoffice <key>`` names are added).
        packages: Its own Debian packages (the office's shared ones are added).
        tools: Its API: ``"package.module:Class"``, or a class name in ``desktop_gym.apps.<key>.tools``;
            "" for none.
        **fields: The other :class:`AppSpec` fields.
    """
    if tools:
        fields["tools"] = tools_entry_point(key, tools)
    return AppSpec(
        key=key,
        launch="libreoffice",
        command=(flag or f"--{key}",),
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
