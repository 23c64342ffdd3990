"""VSCodeTools against live VS Code (code-server in its Chromium window) through the real CallApi RPC,
each result checked a second way (the files on disk, the workbench's own DOM, code-server's CLI)."""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Iterator
from typing import Any

import pytest

from desktop_gym.apps.vscode.vsix import vsix_bytes
from desktop_gym.guest.client import GuestClient, GuestError

from .conftest import launched_app

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("code-server") is None, reason="run scripts/install_code_server.sh"),
]

SETTINGS = "~/.local/share/code-server/User/settings.json"
KEYBINDINGS = "~/.local/share/code-server/User/keybindings.json"


def vscode(guest: GuestClient, method: str, **arguments: Any) -> Any:
    return json.loads(guest.call_api("VSCodeTools", method, json.dumps(arguments), timeout=90.0))


def read(guest: GuestClient, path: str) -> str:
    done = guest.exec(f"cat {path}", shell=True, timeout=10)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture(scope="module")
def editor(_session_guest: GuestClient) -> Iterator[GuestClient]:
    """One VS Code for the module, on ~/proj with two files."""
    guest = _session_guest
    guest.kill_apps()
    guest.exec("rm -rf ~/.local/share/code-server ~/.config/gym-vscode ~/proj && mkdir -p ~/proj/src", shell=True)
    guest.put_file("~/proj/main.py", b"import util\n\nprint(util.greet('world'))\n")
    guest.put_file("~/proj/src/util.py", b"def greet(name):\n    return 'hello ' + name\n")
    yield from launched_app(guest, "vscode", "~/proj/main.py", timeout=120.0)


def test_launch_shows_the_file_in_the_window(editor):
    windows = [w for w in editor.windows() if "gym-vscode" in w.app.lower() or "code-server" in w.title]
    assert windows, editor.windows()
    state = vscode(editor, "get_workbench_state")
    assert state["folder"] == "~/proj"
    assert [tab["name"] for tab in state["editors"] if tab["active"]] == ["main.py"]
    assert state["title"].startswith("~/proj/main.py")


def test_open_file_and_folder_move_the_window(editor):
    vscode(editor, "open_file", path="~/proj/src/util.py")
    state = vscode(editor, "get_workbench_state")
    assert [tab["name"] for tab in state["editors"] if tab["active"]] == ["util.py"]
    assert state["title"].startswith("~/proj/src/util.py")
    with pytest.raises(GuestError, match="not a file"):
        vscode(editor, "open_file", path="~/proj/src")
    with pytest.raises(GuestError, match="outside the home"):
        vscode(editor, "open_file", path="/etc/passwd")
    vscode(editor, "open_folder", path="~/proj/src")
    assert vscode(editor, "get_workbench_state")["folder"] == "~/proj/src"
    vscode(editor, "open_folder", path="~/proj")
    assert "proj" in vscode(editor, "get_workbench_state")["title"]


def test_settings_round_trip_and_the_window_applies_them(editor):
    editor.put_file(SETTINGS, b'{\n  // the user\'s comment\n  "editor.fontSize": 15,\n}\n')
    assert vscode(editor, "get_settings") == {"editor.fontSize": 15}
    vscode(editor, "set_settings", values={"editor.tabSize": 2, "files.trimTrailingWhitespace": True})
    on_disk = json.loads(read(editor, SETTINGS))
    assert on_disk == {"editor.fontSize": 15, "editor.tabSize": 2, "files.trimTrailingWhitespace": True}
    vscode(editor, "remove_settings", names=["editor.fontSize"])
    assert "editor.fontSize" not in json.loads(read(editor, SETTINGS))
    with pytest.raises(GuestError, match="not in settings.json"):
        vscode(editor, "remove_settings", names=["editor.fontSize"])
    with pytest.raises(GuestError, match="1 to 100 settings"):
        vscode(editor, "set_settings", values={})


def test_keybindings_add_replace_remove(editor):
    vscode(editor, "add_keybinding", key="Ctrl+Alt+L", command="editor.action.formatDocument", when="editorTextFocus")
    vscode(editor, "add_keybinding", key="ctrl+alt+l", command="editor.action.formatDocument")
    rules = json.loads(read(editor, KEYBINDINGS))
    assert rules == [{"key": "ctrl+alt+l", "command": "editor.action.formatDocument"}]
    assert vscode(editor, "list_keybindings") == rules
    vscode(editor, "remove_keybinding", key="ctrl+alt+l", command="editor.action.formatDocument")
    assert json.loads(read(editor, KEYBINDINGS)) == []
    with pytest.raises(GuestError, match="does not bind"):
        vscode(editor, "remove_keybinding", key="ctrl+alt+l", command="editor.action.formatDocument")


def test_search_replace_and_edit_change_the_files(editor):
    found = vscode(editor, "search_in_files", text="greet", include="*.py")
    assert {(m["path"], m["line"]) for m in found} == {("~/proj/main.py", 3), ("~/proj/src/util.py", 1)}
    changed = vscode(editor, "replace_in_files", text="greet", replacement="welcome")
    assert changed["count"] == 2
    assert "welcome" in read(editor, "~/proj/src/util.py") and "greet" not in read(editor, "~/proj/main.py")
    vscode(editor, "edit_file", path="~/proj/src/util.py", old_text="'hello '", new_text="'hi '")
    assert "'hi ' + name" in read(editor, "~/proj/src/util.py")
    with pytest.raises(GuestError, match="occurs 0 times"):
        vscode(editor, "edit_file", path="~/proj/src/util.py", old_text="'hello '", new_text="x")
    with pytest.raises(GuestError, match="include must be"):
        vscode(editor, "search_in_files", text="x", include="*" * 300)
    with pytest.raises(GuestError, match="unclosed group"):
        vscode(editor, "search_in_files", text="(", regex=True)


def test_run_in_terminal_runs_in_the_workspace(editor):
    command = "pwd && python3 -c \"import sys; sys.path.insert(0, 'src'); import util; print(util.welcome('you'))\""
    result = vscode(editor, "run_in_terminal", command=command)
    assert result["exit_code"] == 0, result
    assert result["output"].splitlines()[0].endswith("/proj")
    assert result["output"].splitlines()[-1] == "hi you"
    with pytest.raises(GuestError, match="at most 120"):
        vscode(editor, "run_in_terminal", command="true", timeout=1000)


def test_a_command_may_run_past_the_guests_default_call_limit(editor):
    # The guest's watchdog allows 10 s a call unless the method says more (``@slow``): a command
    # given 20 s must not be cut off as a hung app at 10 s.
    started = time.monotonic()
    result = vscode(editor, "run_in_terminal", command="sleep 10.5 && echo finished", timeout=20)
    assert result["exit_code"] == 0 and not result["timed_out"], result
    assert result["output"].strip() == "finished"
    assert time.monotonic() - started >= 10.5


def test_extensions_install_list_uninstall_offline(editor):
    editor.put_file("~/Downloads/tidy.vsix", vsix_bytes("gymtest", "tidy-notes", "1.2.3", "Tidy Notes"))
    assert vscode(editor, "list_extensions") == []
    vscode(editor, "install_extension", vsix_path="~/Downloads/tidy.vsix")
    assert vscode(editor, "list_extensions") == ["gymtest.tidy-notes@1.2.3"]
    listed = editor.exec(
        "code-server --user-data-dir ~/.local/share/code-server "
        "--extensions-dir ~/.local/share/code-server/extensions --list-extensions",
        shell=True,
        timeout=60,
    )
    assert "gymtest.tidy-notes" in listed.stdout
    assert any(name.startswith("builtin:") for name in vscode(editor, "list_extensions", include_builtin=True))
    vscode(editor, "uninstall_extension", extension_id="gymtest.tidy-notes")
    assert vscode(editor, "list_extensions") == []


def test_save_active_editor_saves_what_was_typed_in_the_editor(editor):
    """Text typed into the live editor (DevTools' insertText, as a keyboard would) is unsaved until
    save_active_editor presses the workbench's Ctrl+S; then it is in the file."""
    from pathlib import Path

    from desktop_gym.apps.devtools import connect
    from desktop_gym.apps.vscode.workbench import Workbench

    editor.put_file("~/proj/notes.md", b"first\n")
    vscode(editor, "open_file", path="~/proj/notes.md")
    record = json.loads(read(editor, "~/.config/gym-vscode/session.json"))
    with Workbench(record, connect(Path(record["profile"]))) as workbench:
        workbench.browser.evaluate("document.querySelector('.monaco-editor textarea').focus()")
        session = workbench.browser.session(workbench.browser.active_page()["targetId"])
        workbench.devtools.send("Input.insertText", {"text": "typed "}, session=session)
        from desktop_gym.polling import poll_until

        poll_until(lambda: any(tab["dirty"] for tab in workbench.tabs()), 10, "the editor to have unsaved text")
    assert read(editor, "~/proj/notes.md") == "first\n"
    assert any(tab["dirty"] for tab in vscode(editor, "get_workbench_state")["editors"])
    assert vscode(editor, "save_active_editor") == "saved notes.md"
    assert read(editor, "~/proj/notes.md") == "typed first\n"
    assert not any(tab["dirty"] for tab in vscode(editor, "get_workbench_state")["editors"])
