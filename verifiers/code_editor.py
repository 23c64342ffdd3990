"""Verifiers of the code editor (VS Code through code-server): its settings.json and keybindings.json,
its installed extensions (code-server's ``extensions.json``) and the live workbench (the folder and the
open editors, as ``VSCodeTools.get_workbench_state`` reads them).

Strict: a setting compares as JSON data (``true`` is not ``1``, ``2`` is not ``"2"``); a key chord
compares as VS Code compares it (case and spaces around ``+`` aside); the files are read as VS Code
reads them (JSON with comments and trailing commas).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from ._load import guarded_read
from .registry import register_verifier
from .result import VerifierResult

#: The biggest settings, keybindings or extensions file read.
MAX_EDITOR_FILE_BYTES = 4 * 1024 * 1024


def _decoded(data: bytes, what: str) -> str:
    if len(data) > MAX_EDITOR_FILE_BYTES:
        raise ValueError(f"{what} is over {MAX_EDITOR_FILE_BYTES} bytes")
    text = data.decode("utf-8", errors="replace")
    if not text.strip():
        raise ValueError(f"{what} is empty")  # VS Code writes at least "{}" or "[]"
    return text


def _same(found: Any, expected: Any) -> bool:
    """Equal as JSON data: types count (``True`` is not ``1``)."""
    return json.dumps(found, sort_keys=True) == json.dumps(expected, sort_keys=True)


@register_verifier("vscode_settings", reads="file")
def verify_vscode_settings(
    data: bytes | None, expected: Mapping[str, Any], absent: Sequence[str] = ()
) -> VerifierResult:
    """settings.json sets each ``expected`` key to that JSON value and none of the ``absent`` keys."""
    from ..apps.vscode.settings_files import settings_of

    if data is None:
        return VerifierResult.failed("settings.json does not exist")
    settings = guarded_read("settings.json", lambda: settings_of(_decoded(data, "settings.json")))
    for key, value in expected.items():
        if key not in settings:
            return VerifierResult.failed(f"settings.json does not set {key}", key=key)
        if not _same(settings[key], value):
            return VerifierResult.failed(f"settings.json has {key}={settings[key]!r}, expected {value!r}", key=key)
    for key in absent:
        if key in settings:
            return VerifierResult.failed(f"settings.json still sets {key}", key=key)
    return VerifierResult.passed(f"settings.json sets {', '.join(expected) or 'nothing asked'} as asked")


@register_verifier("vscode_keybinding", reads="file")
def verify_vscode_keybinding(
    data: bytes | None, key: str, command: str, when: str | None = None, bound: bool = True
) -> VerifierResult:
    """keybindings.json binds ``key`` to ``command`` (with the when-clause ``when`` if given); with
    ``bound=False``, it does not."""
    from ..apps.vscode.settings_files import keybindings_of, same_rule

    if data is None:
        if bound:
            return VerifierResult.failed("keybindings.json does not exist")
        return VerifierResult.passed(f"keybindings.json does not exist, so {key} is not bound to {command}")
    rules = guarded_read("keybindings.json", lambda: keybindings_of(_decoded(data, "keybindings.json")))
    matching = [rule for rule in rules if same_rule(rule, key, command)]
    if not bound:
        if matching:
            return VerifierResult.failed(f"keybindings.json still binds {key} to {command}")
        return VerifierResult.passed(f"keybindings.json does not bind {key} to {command}")
    if not matching:
        return VerifierResult.failed(f"keybindings.json does not bind {key} to {command}", rules=len(rules))
    if when is not None and not any(
        (rule.get("when") or "").replace(" ", "") == when.replace(" ", "") for rule in matching
    ):
        found = [rule.get("when") for rule in matching]
        return VerifierResult.failed(f"{key} -> {command} has when {found}, expected {when!r}")
    return VerifierResult.passed(f"keybindings.json binds {key} to {command}")


@register_verifier("vscode_extensions", reads="file")
def verify_vscode_extensions(
    data: bytes | None, installed: Mapping[str, str] | None = None, absent: Sequence[str] = ()
) -> VerifierResult:
    """code-server's extensions.json lists each ``installed`` id at that version ("" for any version)
    and none of the ``absent`` ids."""
    from ..apps.vscode.extensions import installed_from

    if data is None:
        if installed:
            return VerifierResult.failed("extensions.json does not exist (no extension is installed)")
        return VerifierResult.passed("extensions.json does not exist, so none of the absent extensions is installed")
    entries = guarded_read("extensions.json", lambda: installed_from(_decoded(data, "extensions.json")))
    versions = {entry["id"]: entry["version"] for entry in entries}
    for ext_id, version in (installed or {}).items():
        if ext_id.lower() not in versions:
            return VerifierResult.failed(f"{ext_id} is not installed", installed=sorted(versions))
        if version and versions[ext_id.lower()] != version:
            return VerifierResult.failed(f"{ext_id} is at {versions[ext_id.lower()]}, expected {version}")
    for ext_id in absent:
        if ext_id.lower() in versions:
            return VerifierResult.failed(f"{ext_id} is still installed")
    return VerifierResult.passed("the installed extensions are as asked", installed=sorted(versions))


@register_verifier("vscode_workbench", reads="live")
def verify_vscode_workbench(
    state: Mapping[str, Any], folder: str | None = None, active_file: str | None = None, all_saved: bool = False
) -> VerifierResult:
    """The live workbench shows ``folder`` (``~/...``), has ``active_file`` (``~/...``) in the active
    editor, and, with ``all_saved``, no editor with unsaved changes."""
    if folder is not None and state.get("folder") != folder:
        return VerifierResult.failed(f"VS Code shows {state.get('folder')!r}, expected {folder!r}")
    editors = [tab for tab in state.get("editors") or [] if isinstance(tab, Mapping)]
    if active_file is not None:
        title_path = str(state.get("title", "")).split(" - ")[0]
        active = [tab for tab in editors if tab.get("active")]
        name = active_file.rsplit("/", 1)[-1]
        if title_path != active_file or not any(tab.get("name") == name for tab in active):
            return VerifierResult.failed(f"the active editor is {title_path!r}, expected {active_file!r}")
    if all_saved and any(tab.get("dirty") for tab in editors):
        unsaved = [tab.get("name") for tab in editors if tab.get("dirty")]
        return VerifierResult.failed(f"unsaved editors: {unsaved}")
    return VerifierResult.passed("the VS Code window shows what was asked", editors=len(editors))
