"""The browser's profile in the session home: where it lives and what a fresh one starts with.

The profile is ``~/.config/chromium`` (Chromium's own default, so a ``chromium`` started from the
terminal joins the same browser). A fresh home means a fresh profile: first-run prompts off,
downloads saved to ``~/Downloads`` without asking. Standard library only.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

#: The profile folder, relative to the session home.
PROFILE_DIR = ".config/chromium"
#: Where downloads go, relative to the session home.
DOWNLOADS_DIR = "Downloads"


def profile_dir(home: Path) -> Path:
    """The profile folder of the session whose home is ``home``."""
    return Path(home) / PROFILE_DIR


def _initial_preferences(home: Path) -> dict[str, Any]:
    return {
        "download": {"default_directory": str(Path(home) / DOWNLOADS_DIR), "prompt_for_download": False},
        "browser": {"has_seen_welcome_page": True, "check_default_browser": False},
        "profile": {"exit_type": "Normal", "exited_cleanly": True},
        "translate": {"enabled": False},
        "credentials_enable_service": False,
        "autofill": {"profile_enabled": False, "credit_card_enabled": False},
    }


def prepare_profile(home: Path) -> Path:
    """Make the profile ready to start: created with the initial preferences if new; returns its folder.

    An existing profile (a task seeded bookmarks or preferences) keeps its files; only its last exit is
    marked clean, so no "restore pages?" bubble covers the page.
    """
    profile = profile_dir(home)
    default = profile / "Default"
    default.mkdir(parents=True, exist_ok=True)
    (Path(home) / DOWNLOADS_DIR).mkdir(parents=True, exist_ok=True)
    (profile / "First Run").touch()
    preferences = default / "Preferences"
    current: dict[str, Any] = {}
    if preferences.is_file():
        try:
            current = json.loads(preferences.read_text())
        except (OSError, ValueError):
            current = {}
    merged = _merge(_initial_preferences(home), current if isinstance(current, dict) else {})
    merged.setdefault("profile", {}).update({"exit_type": "Normal", "exited_cleanly": True})
    preferences.write_text(json.dumps(merged))
    (profile / "DevToolsActivePort").unlink(missing_ok=True)  # a stale one from a killed browser
    return profile


def _merge(base: dict[str, Any], override: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in override.items():
        out[key] = _merge(out[key], value) if isinstance(value, dict) and isinstance(out.get(key), dict) else value
    return out
