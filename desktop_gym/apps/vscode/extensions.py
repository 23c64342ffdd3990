"""code-server's installed extensions: the list it keeps, and its own command line to change it.

code-server records the user's extensions in ``extensions.json`` of its extensions folder (identifier
and version of each); :func:`installed` reads that record. Installing a .vsix file and uninstalling
go through ``code-server --install-extension`` / ``--uninstall-extension`` on the session's folders,
which work offline. The built-in extensions are the folders of the installed code-server.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from .launch import CODE_SERVER, DATA_DIR

#: The extensions folder, relative to the home.
EXTENSIONS_DIR = DATA_DIR + "/extensions"
#: The biggest extensions.json read.
MAX_RECORD_BYTES = 4 * 1024 * 1024
#: How long one install or uninstall may take.
CLI_TIMEOUT_S = 120.0


def installed_from(text: str) -> list[dict[str, str]]:
    """The extensions in an ``extensions.json`` text: ``{"id", "version"}`` each, sorted by id.

    Raises:
        ValueError: not the JSON list code-server writes.
    """
    if len(text) > MAX_RECORD_BYTES:
        raise ValueError(f"extensions.json is over {MAX_RECORD_BYTES} bytes")
    record = json.loads(text) if text.strip() else []
    if not isinstance(record, list):
        raise ValueError("extensions.json must hold a JSON list")
    found = []
    for entry in record:
        identifier = entry.get("identifier") if isinstance(entry, dict) else None
        ext_id = identifier.get("id") if isinstance(identifier, dict) else None
        if not isinstance(ext_id, str):
            raise ValueError("an extensions.json entry has no identifier.id")
        found.append({"id": ext_id.lower(), "version": str(entry.get("version", ""))})
    return sorted(found, key=lambda item: item["id"])


def installed(home: Path) -> list[dict[str, str]]:
    """The user's extensions in the session at ``home`` (none when the record does not exist)."""
    record = Path(home) / EXTENSIONS_DIR / "extensions.json"
    if not record.is_file():
        return []
    return installed_from(record.read_text(encoding="utf-8", errors="replace"))


def builtin() -> list[str]:
    """The built-in extensions' folder names of the installed code-server (``[]`` when not found)."""
    program = shutil.which(CODE_SERVER)
    if program is None:
        return []
    folder = Path(program).resolve().parents[2] / "lib" / "vscode" / "extensions"
    return sorted(p.name for p in folder.iterdir() if (p / "package.json").is_file()) if folder.is_dir() else []


def cli_argv(home: Path, *arguments: str) -> list[str]:
    """``code-server`` on the session's data and extensions folders, with ``arguments``."""
    data = Path(home) / DATA_DIR
    return [CODE_SERVER, f"--user-data-dir={data}", f"--extensions-dir={Path(home) / EXTENSIONS_DIR}", *arguments]


def describe(entries: list[dict[str, Any]]) -> list[str]:
    """``["publisher.name@1.2.3", ...]`` for the agent."""
    return [f"{entry['id']}@{entry['version']}" for entry in entries]
