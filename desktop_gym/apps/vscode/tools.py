"""``VSCodeTools``: VS Code (code-server in its desktop window) over the files it owns and its own interfaces.

The window is moved to a folder or file by loading the workbench's own address for it, and read
through its DevTools (title, editor tabs, unsaved state); a save is the workbench's own Ctrl+S.
Settings and keybindings are code-server's ``User/settings.json`` and ``keybindings.json`` in the
home (the live window applies a change at once); extensions go through code-server's command line;
search and replace act on the workspace folder's text files; commands run in that folder. A mistake
the agent can make is an :class:`ApiArgumentError`; VS Code not running or refusing is an
:class:`ApiCallError`.
"""

from __future__ import annotations

from typing import Any

from desktop_gym.guest.processes import run_capped, session_env

from ..home_files import truncate
from ..tools_base import slow
from . import extensions, workspace_search
from .settings_files import (
    KEYBINDINGS_FILE,
    MAX_KEYBINDINGS,
    SETTINGS_FILE,
    changed_settings,
    keybindings_text,
    same_rule,
)
from .tools_common import ApiArgumentError, ApiCallError, VSCodeToolsBase

#: Caps on one call.
MAX_SETTINGS_PER_CALL = 100
MAX_RESULTS = 500
MAX_COMMAND_TIMEOUT_S = 120.0
MAX_OUTPUT_CHARS = 100_000
MAX_GLOB_CHARS = 200
MAX_REPLACEMENT_CHARS = 10_000


class VSCodeTools(VSCodeToolsBase):
    """VS Code: the workspace folder and open files, settings.json, keybindings.json, extensions,
    search and replace across the workspace, and commands run in the workspace folder."""

    # ------------------------------------------------------------------ window
    def open_folder(self, path: str) -> str:
        """Show a folder as the workspace (the window reloads on it; open files are closed).

        Args:
            path: The folder, e.g. "~/project".
        """
        folder = self._existing(path)
        if not folder.is_dir():
            raise ApiArgumentError(f"path: {self._show(folder)} is not a folder")
        with self._workbench() as workbench:
            workbench.show(folder.resolve())
        self._set_folder(folder.resolve())
        return f"VS Code shows the folder {self._show(folder)}"

    def open_file(self, path: str) -> str:
        """Open a file in an editor (its folder becomes the workspace when it is outside the current one).

        Args:
            path: The file, e.g. "~/project/main.py".
        """
        target = self._existing(path).resolve()
        if not target.is_file():
            raise ApiArgumentError(f"path: {self._show(target)} is not a file")
        folder = self._folder()
        if folder not in target.parents:
            folder = target.parent
        with self._workbench() as workbench:
            workbench.show(folder, target)
        self._set_folder(folder)
        return f"opened {self._show(target)} in VS Code (workspace {self._show(folder)})"

    def get_workbench_state(self) -> dict:
        """What the window shows: the workspace folder, the window title and the open editors.

        Returns:
            {"folder", "title", "editors": [{"name", "folder", "dirty", "active"}]}; dirty means unsaved.
        """
        folder = self._folder()
        with self._workbench() as workbench:
            return {"folder": self._show(folder), "title": workbench.title(), "editors": workbench.tabs()}

    def save_active_editor(self) -> str:
        """Save the file in the active editor (the workbench's Ctrl+S); waits until it is saved."""
        with self._workbench() as workbench:
            active = [tab for tab in workbench.tabs() if tab["active"]]
            if not active:
                raise ApiCallError("no editor is open in VS Code")
            workbench.press("s", "KeyS", 83, modifiers=2)
            workbench.wait_saved()
        return f"saved {active[0]['name']}"

    # ------------------------------------------------------------------ workspace files
    def edit_file(self, path: str, old_text: str, new_text: str, count: int = 1) -> str:
        """Replace exact text in a file of the workspace (an open editor shows the change).

        Args:
            path: The file, e.g. "~/project/main.py".
            old_text: The text to find; it must occur exactly ``count`` times.
            new_text: What replaces each occurrence.
            count: How many occurrences there must be (1 to 1000).
        """
        if not old_text:
            raise ApiArgumentError("old_text must not be empty")
        if not 1 <= count <= 1000:
            raise ApiArgumentError(f"count must be 1 to 1000, got {count}")
        target = self._existing(path)
        if not target.is_file():
            raise ApiArgumentError(f"path: {self._show(target)} is not a file")
        text = self._read(target, workspace_search.MAX_FILE_BYTES) or ""
        if len(text) - count * len(old_text) + count * len(new_text) > workspace_search.MAX_FILE_BYTES:
            raise ApiArgumentError(f"the edited file would be over {workspace_search.MAX_FILE_BYTES} characters")
        found = text.count(old_text)
        if found != count:
            raise ApiCallError(f"old_text occurs {found} times in {self._show(target)}, expected {count}")
        self._write(target, text.replace(old_text, new_text))
        return f"replaced {count} occurrence(s) in {self._show(target)}"

    def search_in_files(
        self, text: str, include: str = "", regex: bool = False, match_case: bool = False, max_results: int = 100
    ) -> list[dict]:
        """Find lines in the workspace folder's text files (hidden, git-ignored and binary files are skipped).

        Args:
            text: What to find (literal unless regex).
            include: A glob of the files to search, e.g. "*.py" or "src/*.js" (default: all).
            regex: Treat text as a regular expression (ripgrep's syntax, as VS Code's search).
            match_case: Match upper and lower case exactly.
            max_results: The most lines returned (1 to 500).

        Returns:
            [{"path", "line", "text"}]; line numbers start at 1.
        """
        if not 1 <= max_results <= MAX_RESULTS:
            raise ApiArgumentError(f"max_results must be 1 to {MAX_RESULTS}, got {max_results}")
        self._glob(include)
        folder = self._folder()
        try:
            matches, _cut = workspace_search.search(folder, text, regex, match_case, include, max_results)
        except workspace_search.SearchError as error:
            raise ApiArgumentError(str(error)) from None
        return [{"path": self._show(m.path), "line": m.line, "text": m.text[:500]} for m in matches]

    def replace_in_files(
        self, text: str, replacement: str, include: str = "", regex: bool = False, match_case: bool = True
    ) -> dict:
        """Replace every match in the workspace folder's text files (as VS Code's Replace All).

        Args:
            text: What to find (literal unless regex).
            replacement: What replaces each match (with regex, $1 names a group).
            include: A glob of the files to change, e.g. "*.py" (default: all).
            regex: Treat text as a regular expression (ripgrep's syntax, as VS Code's search).
            match_case: Match upper and lower case exactly.

        Returns:
            {"files": [paths changed], "count": number of files changed}.
        """
        self._glob(include)
        if len(replacement) > MAX_REPLACEMENT_CHARS:
            raise ApiArgumentError(f"replacement is over {MAX_REPLACEMENT_CHARS} characters")
        folder = self._folder()
        changed = []
        try:
            for path in workspace_search.matching_files(folder, text, regex, match_case, include):
                if path.is_symlink() or not self._files._confined(path.resolve()):
                    continue
                original = self._read(path, workspace_search.MAX_FILE_BYTES) or ""
                new = workspace_search.replaced_text(path, original, text, replacement, regex, match_case)
                if new != original:
                    self._write(path, new)
                    changed.append(self._show(path))
        except workspace_search.SearchError as error:
            raise ApiArgumentError(str(error)) from None
        return {"files": changed, "count": len(changed)}

    @slow(MAX_COMMAND_TIMEOUT_S + 5)
    def run_in_terminal(self, command: str, timeout: float = 30.0) -> dict:
        """Run a bash command in the workspace folder (as VS Code's integrated terminal would) and wait.

        Args:
            command: The command line, e.g. "python3 main.py".
            timeout: Seconds before it and its children are killed (at most 120).

        Returns:
            {"exit_code", "output", "timed_out"}; output is stdout then stderr, cut to 100000 characters.
        """
        if not command.strip():
            raise ApiArgumentError("command must not be empty")
        if not 0 < timeout <= MAX_COMMAND_TIMEOUT_S:
            raise ApiArgumentError(f"timeout must be more than 0 and at most {MAX_COMMAND_TIMEOUT_S:g} s")
        result, _cut = run_capped(
            ["bash", "-c", command],
            session_env(self.home),
            timeout=timeout,
            cwd=self._folder(),
            max_output_bytes=4 * MAX_OUTPUT_CHARS,
            pid_namespace=True,
        )
        output, _ = truncate(result.stdout + result.stderr, MAX_OUTPUT_CHARS)
        return {"exit_code": result.returncode, "output": output, "timed_out": result.timed_out}

    # ------------------------------------------------------------------ settings.json
    def get_settings(self) -> dict:
        """The user's settings (settings.json) as an object, e.g. {"editor.tabSize": 2}."""
        return self._settings(self._path("~/" + SETTINGS_FILE))

    def set_settings(self, values: dict) -> str:
        """Set user settings in settings.json; the window applies them at once.

        Args:
            values: Setting name -> JSON value, e.g. {"editor.tabSize": 2, "files.autoSave": "afterDelay"}.
        """
        if not isinstance(values, dict) or not 1 <= len(values) <= MAX_SETTINGS_PER_CALL:
            raise ApiArgumentError(f"values must be an object of 1 to {MAX_SETTINGS_PER_CALL} settings")
        clean = {self._name(key, "a setting name"): self._json_value(key, value) for key, value in values.items()}
        target = self._path("~/" + SETTINGS_FILE)
        self._write(target, changed_settings(self._settings(target), clean))
        return f"set {', '.join(clean)} in {self._show(target)}"

    def remove_settings(self, names: list[str]) -> str:
        """Remove user settings from settings.json (they go back to VS Code's defaults).

        Args:
            names: The setting names, e.g. ["editor.fontSize"].
        """
        if not isinstance(names, list) or not 1 <= len(names) <= MAX_SETTINGS_PER_CALL:
            raise ApiArgumentError(f"names must be a list of 1 to {MAX_SETTINGS_PER_CALL} setting names")
        clean = [self._name(name, "a setting name") for name in names]
        target = self._path("~/" + SETTINGS_FILE)
        settings = self._settings(target)
        missing = [name for name in clean if name not in settings]
        if missing:
            raise ApiCallError(f"not in settings.json: {', '.join(missing)}")
        self._write(target, changed_settings(settings, {}, remove=clean))
        return f"removed {', '.join(clean)} from {self._show(target)}"

    # ------------------------------------------------------------------ keybindings.json
    def list_keybindings(self) -> list[dict]:
        """The user's keybindings (keybindings.json): [{"key", "command", "when"?}]."""
        return self._keybindings(self._path("~/" + KEYBINDINGS_FILE))

    def add_keybinding(self, key: str, command: str, when: str = "") -> str:
        """Bind a key to a command in keybindings.json (a binding of the same key and command is replaced).

        Args:
            key: The key chord(s), e.g. "ctrl+alt+l" or "ctrl+k ctrl+t".
            command: The command id, e.g. "editor.action.formatDocument"; "-id" removes a default binding.
            when: An optional when-clause, e.g. "editorTextFocus".
        """
        rule: dict[str, Any] = {"key": self._name(key, "key").lower(), "command": self._name(command, "command")}
        if when:
            rule["when"] = self._name(when, "when")
        target = self._path("~/" + KEYBINDINGS_FILE)
        rules = [r for r in self._keybindings(target) if not same_rule(r, rule["key"], rule["command"])]
        if len(rules) >= MAX_KEYBINDINGS:
            raise ApiCallError(f"keybindings.json already has {MAX_KEYBINDINGS} bindings")
        self._write(target, keybindings_text([*rules, rule]))
        return f"bound {rule['key']} to {rule['command']}"

    def remove_keybinding(self, key: str, command: str) -> str:
        """Remove the user's binding of a key to a command from keybindings.json.

        Args:
            key: The key chord(s) as bound, e.g. "ctrl+alt+l".
            command: The command id it runs.
        """
        key, command = self._name(key, "key"), self._name(command, "command")
        target = self._path("~/" + KEYBINDINGS_FILE)
        rules = self._keybindings(target)
        kept = [r for r in rules if not same_rule(r, key, command)]
        if len(kept) == len(rules):
            raise ApiCallError(f"keybindings.json does not bind {key} to {command}")
        self._write(target, keybindings_text(kept))
        return f"removed the binding of {key} to {command}"

    # ------------------------------------------------------------------ extensions
    def list_extensions(self, include_builtin: bool = False) -> list[str]:
        """The installed extensions as "publisher.name@version" (the built-in ones by folder name if asked).

        Args:
            include_builtin: Also list the extensions that come with VS Code.
        """
        try:
            found = extensions.describe(extensions.installed(self.home))
        except ValueError as error:
            raise ApiCallError(f"code-server's extension record is unreadable: {error}") from None
        return found + ([f"builtin:{name}" for name in extensions.builtin()] if include_builtin else [])

    def install_extension(self, vsix_path: str) -> str:
        """Install an extension from a .vsix file (offline; the marketplace is not reachable).

        Args:
            vsix_path: The .vsix file, e.g. "~/Downloads/tidy-notes-1.0.0.vsix".
        """
        source = self._existing(vsix_path, "vsix_path")
        if not source.is_file() or source.suffix.lower() != ".vsix":
            raise ApiArgumentError(f"vsix_path: {self._show(source)} is not a .vsix file")
        return self._cli("--install-extension", str(source.resolve()))

    def uninstall_extension(self, extension_id: str) -> str:
        """Uninstall a user extension.

        Args:
            extension_id: "publisher.name", as list_extensions shows it (without "@version").
        """
        name = self._name(extension_id, "extension_id").lower()
        if name not in {entry["id"] for entry in extensions.installed(self.home)}:
            raise ApiCallError(f"{name} is not installed (see list_extensions)")
        return self._cli("--uninstall-extension", name)

    # ------------------------------------------------------------------ helpers
    @staticmethod
    def _glob(include: str) -> None:
        if len(include) > MAX_GLOB_CHARS or "\0" in include:
            raise ApiArgumentError(f"include must be a glob of at most {MAX_GLOB_CHARS} characters, e.g. '*.py'")

    def _cli(self, *arguments: str) -> str:
        result, _cut = run_capped(
            extensions.cli_argv(self.home, *arguments), session_env(self.home), timeout=extensions.CLI_TIMEOUT_S
        )
        output = (result.stdout + result.stderr).strip()
        if result.returncode != 0 or "failed" in output.lower():
            raise ApiCallError(f"code-server refused: {output[-500:] or f'exit status {result.returncode}'}")
        return output.splitlines()[-1] if output else "done"
