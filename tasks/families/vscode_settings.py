"""VS Code settings and keybindings families (OSWorld's vs_code checks read settings.json and
keybindings.json too): editor indentation, auto save, the color theme, files hidden from the explorer,
a setting removed from a commented settings.json, a keybinding added, a keybinding removed.

The verifiers read the files VS Code reads, as it reads them (JSON with comments), and compare the
values as JSON data.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import numpy as np

from ...verifiers import verify_vscode_keybinding, verify_vscode_settings
from ...verifiers.result import VerifierResult
from ..base import Policy, TaskContext
from ..family_kit import api_calls, pick
from .vscode_base import KEYBINDINGS_PATH, PROJECTS, SETTINGS_PATH, VSCodeTask, vscode_call

THEMES = ("Solarized Light", "Monokai", "Abyss", "Quiet Light", "Red", "Tomorrow Night Blue", "Kimbie Dark")
COMMANDS = (
    ("editor.action.formatDocument", "Format Document"),
    ("editor.action.commentLine", "Toggle Line Comment"),
    ("workbench.action.files.saveAll", "Save All"),
    ("editor.action.duplicateSelection", "Duplicate Selection"),
    ("workbench.action.toggleSidebarVisibility", "Toggle Primary Side Bar Visibility"),
    ("editor.action.selectAll", "Select All"),
)
KEYS = ("ctrl+alt+f", "ctrl+shift+y", "ctrl+alt+s", "ctrl+alt+d", "ctrl+shift+u", "alt+f9")


class SettingsTask(VSCodeTask):
    """A task whose result is settings.json: ``expected(params)`` keys set, ``absent(params)`` keys gone."""

    tags = ("vscode", "settings")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        return {"project": pick(rng, PROJECTS)}

    def expected(self, params: Mapping[str, Any]) -> dict[str, Any]:
        return {}

    def absent(self, params: Mapping[str, Any]) -> list[str]:
        return []

    def verify(self, ctx: TaskContext) -> VerifierResult:
        data = ctx.read_file(SETTINGS_PATH)
        return verify_vscode_settings(data, self.expected(ctx.params), absent=self.absent(ctx.params))

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        return api_calls(vscode_call("set_settings", values=self.expected(params)))


class EditorIndentation(SettingsTask):
    """Indentation of the editor: tab size, spaces or tabs, and the rulers."""

    id = "vscode.editor_indentation"
    oracles = ("api",)
    goal = (
        "In VS Code's user settings, make the editor indent with {indent} of size {size} (do not detect it from "
        "files) and show a vertical ruler at column {ruler}."
    )

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        spaces = bool(rng.integers(0, 2))
        return {
            **super().sample_params(rng),
            "size": int(rng.choice([2, 3, 8])),
            "spaces": spaces,
            "indent": "spaces" if spaces else "tabs",
            "ruler": int(rng.choice([72, 79, 88, 100, 120])),
        }

    def expected(self, params: Mapping[str, Any]) -> dict[str, Any]:
        return {
            "editor.tabSize": params["size"],
            "editor.insertSpaces": params["spaces"],
            "editor.detectIndentation": False,
            "editor.rulers": [params["ruler"]],
        }

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "size": 4}


class AutoSave(SettingsTask):
    """Auto save after a delay, and trimming trailing whitespace on save."""

    id = "vscode.auto_save"
    oracles = ("api",)
    goal = (
        "Make VS Code save files automatically {delay} milliseconds after the last edit, and trim trailing "
        "whitespace when a file is saved."
    )

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        return {**super().sample_params(rng), "delay": int(rng.choice([500, 750, 1500, 2000, 3000]))}

    def expected(self, params: Mapping[str, Any]) -> dict[str, Any]:
        return {
            "files.autoSave": "afterDelay",
            "files.autoSaveDelay": params["delay"],
            "files.trimTrailingWhitespace": True,
        }

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "delay": params["delay"] + 1}


class ColorTheme(SettingsTask):
    """The color theme and the editor font size."""

    id = "vscode.color_theme"
    oracles = ("api",)
    goal = "Switch VS Code to the '{theme}' color theme and set the editor font size to {font_size}."

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        return {**super().sample_params(rng), "theme": pick(rng, THEMES), "font_size": int(rng.integers(11, 21))}

    def expected(self, params: Mapping[str, Any]) -> dict[str, Any]:
        return {"workbench.colorTheme": params["theme"], "editor.fontSize": params["font_size"]}

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "theme": pick(rng, [t for t in THEMES if t != params["theme"]])}


class HideFiles(SettingsTask):
    """Files hidden from the explorer and from search (``files.exclude``)."""

    id = "vscode.hide_files"
    oracles = ("api",)
    goal = (
        "Hide {patterns} from VS Code's file explorer (files.exclude), keeping VS Code's other exclusions "
        "out of it: the setting should hold exactly these patterns."
    )
    PATTERNS = ("**/*.log", "**/build", "**/.cache", "**/*.tmp", "**/dist", "**/*.pyc", "**/coverage")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        chosen = sorted(pick(rng, self.PATTERNS, 2))
        return {**super().sample_params(rng), "chosen": chosen, "patterns": " and ".join(chosen)}

    def expected(self, params: Mapping[str, Any]) -> dict[str, Any]:
        return {"files.exclude": dict.fromkeys(params["chosen"], True)}

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "chosen": params["chosen"][:1]}


class RemoveSetting(SettingsTask):
    """Take one setting out of a settings.json with comments and trailing commas; keep the rest."""

    id = "vscode.remove_setting"
    oracles = ("api",)
    goal = "Remove the '{key}' setting from VS Code's user settings, keeping every other setting as it is."
    KEPT = {"editor.fontSize": 13, "editor.minimap.enabled": False, "files.eol": "\n", "editor.wordWrap": "on"}
    REMOVABLE = {"editor.cursorStyle": "block", "editor.lineNumbers": "relative", "workbench.sideBar.location": "right"}

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        return {**super().sample_params(rng), "key": pick(rng, sorted(self.REMOVABLE))}

    def initial_settings(self, params: Mapping[str, Any]) -> str:
        lines = ["{", "    // my editor setup"]
        for key, value in {**self.KEPT, **self.REMOVABLE}.items():
            lines.append(f"    {json.dumps(key)}: {json.dumps(value)},  /* {key.split('.')[-1]} */")
        return "\n".join([*lines, "}", ""])

    def expected(self, params: Mapping[str, Any]) -> dict[str, Any]:
        return {**self.KEPT, **{k: v for k, v in self.REMOVABLE.items() if k != params["key"]}}

    def absent(self, params: Mapping[str, Any]) -> list[str]:
        return [params["key"]]

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        return api_calls(vscode_call("remove_settings", names=[params["key"]]))

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "key": pick(rng, [k for k in sorted(self.REMOVABLE) if k != params["key"]])}


class AddKeybinding(VSCodeTask):
    """A user keybinding with a when-clause."""

    id = "vscode.add_keybinding"
    oracles = ("api",)
    goal = (
        "In VS Code, bind {key} to the '{title}' command ({command}), only when the editor has focus (editorTextFocus)."
    )
    tags = ("vscode", "keybindings")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        command, title = pick(rng, COMMANDS)
        return {"project": pick(rng, PROJECTS), "key": pick(rng, KEYS), "command": command, "title": title}

    def verify(self, ctx: TaskContext) -> VerifierResult:
        data = ctx.read_file(KEYBINDINGS_PATH)
        return verify_vscode_keybinding(data, ctx.params["key"], ctx.params["command"], when="editorTextFocus")

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        call = vscode_call("add_keybinding", key=params["key"], command=params["command"], when="editorTextFocus")
        return api_calls(call)

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "key": pick(rng, [k for k in KEYS if k != params["key"]])}


class RemoveKeybinding(VSCodeTask):
    """One of the user's keybindings removed, the others kept."""

    id = "vscode.remove_keybinding"
    oracles = ("api",)
    goal = "Remove your VS Code keybinding of {key} (it runs {command}); keep your other keybindings."
    tags = ("vscode", "keybindings")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        keys = pick(rng, KEYS, 3)
        commands = [command for command, _ in pick(rng, COMMANDS, 3)]
        rules = [{"key": k, "command": c} for k, c in zip(keys, commands, strict=True)]
        return {"project": pick(rng, PROJECTS), "rules": rules, "key": keys[0], "command": commands[0]}

    def initial_keybindings(self, params: Mapping[str, Any]) -> str:
        return "// my keybindings\n" + json.dumps(params["rules"], indent=4) + "\n"

    def verify(self, ctx: TaskContext) -> VerifierResult:
        data = ctx.read_file(KEYBINDINGS_PATH)
        gone = verify_vscode_keybinding(data, ctx.params["key"], ctx.params["command"], bound=False)
        if not gone.success:
            return gone
        for rule in ctx.params["rules"][1:]:
            kept = verify_vscode_keybinding(data, rule["key"], rule["command"])
            if not kept.success:
                return kept
        return gone

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        return api_calls(vscode_call("remove_keybinding", key=params["key"], command=params["command"]))

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        other = params["rules"][1]
        return {**params, "key": other["key"], "command": other["command"]}
