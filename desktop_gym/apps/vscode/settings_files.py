"""The user's settings.json and keybindings.json of code-server: read them, change them as data.

Both live in ``User/`` of code-server's data folder in the home. VS Code reads them as JSON with
comments (:mod:`.jsonc`); a file VS Code cannot read counts as empty here too, and is refused for
edits so a broken file is never silently replaced. Standard library only.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from .jsonc import parse_jsonc
from .launch import DATA_DIR

#: settings.json and keybindings.json, relative to the home.
SETTINGS_FILE = DATA_DIR + "/User/settings.json"
KEYBINDINGS_FILE = DATA_DIR + "/User/keybindings.json"
#: The most keybindings kept in keybindings.json.
MAX_KEYBINDINGS = 500
#: The longest setting key, keybinding key, command or when-clause accepted.
MAX_NAME_CHARS = 200


def settings_of(text: str | None) -> dict[str, Any]:
    """The settings object of a settings.json text (None or an empty file: no settings).

    Raises:
        ValueError: not JSON with comments, or not an object.
    """
    value = parse_jsonc(text) if text is not None else None
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ValueError(f"settings.json must hold a JSON object, not {type(value).__name__}")
    return value


def keybindings_of(text: str | None) -> list[dict[str, Any]]:
    """The keybinding rules of a keybindings.json text (None or an empty file: none).

    Raises:
        ValueError: not JSON with comments, not a list, or a rule that is not an object with a "key".
    """
    value = parse_jsonc(text) if text is not None else None
    if value is None:
        return []
    if not isinstance(value, list):
        raise ValueError(f"keybindings.json must hold a JSON list, not {type(value).__name__}")
    for index, rule in enumerate(value):
        if not isinstance(rule, dict) or not isinstance(rule.get("key"), str):
            raise ValueError(f"keybindings.json rule {index} is not an object with a 'key' string")
    return value


def changed_settings(settings: Mapping[str, Any], values: Mapping[str, Any], remove: Sequence[str] = ()) -> str:
    """settings.json text of ``settings`` with ``values`` set and the ``remove`` keys taken out."""
    merged = {key: value for key, value in settings.items() if key not in set(remove)}
    merged.update(values)
    return json.dumps(merged, indent=4, ensure_ascii=False) + "\n"


def normal_key(key: str) -> str:
    """A key chord as VS Code compares it: lowercase, no spaces around ``+`` (``"Ctrl + K"`` -> ``"ctrl+k"``)."""
    return " ".join(re.sub(r"\s*\+\s*", "+", key.lower().strip()).split())


def same_rule(rule: Mapping[str, Any], key: str, command: str) -> bool:
    """Whether ``rule`` binds ``key`` to ``command`` (a ``-command`` removal rule is another rule)."""
    return normal_key(str(rule.get("key", ""))) == normal_key(key) and rule.get("command") == command


def keybindings_text(rules: Sequence[Mapping[str, Any]]) -> str:
    """keybindings.json text of ``rules``."""
    return json.dumps(list(rules), indent=4, ensure_ascii=False) + "\n"


def user_file(home: Path, relative: str) -> Path:
    """A file of code-server's user folder in ``home``."""
    return Path(home) / relative
