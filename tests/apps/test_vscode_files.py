"""The VS Code app's file-level parts without a desktop: settings and keybindings as data, search and
replace across a folder, code-server's extension record, the .vsix builder, and the code-editor
verifiers (each passes on the right file and fails on a near miss)."""

from __future__ import annotations

import json
import zipfile
from io import BytesIO
from pathlib import Path

import pytest

from desktop_gym.apps.vscode import workspace_search
from desktop_gym.apps.vscode.extensions import installed_from
from desktop_gym.apps.vscode.launch import workbench_url
from desktop_gym.apps.vscode.settings_files import (
    changed_settings,
    keybindings_of,
    normal_key,
    same_rule,
    settings_of,
)
from desktop_gym.apps.vscode.vsix import vsix_bytes
from desktop_gym.verifiers import (
    verify_vscode_extensions,
    verify_vscode_keybinding,
    verify_vscode_settings,
    verify_vscode_workbench,
)


def test_settings_merge_and_remove():
    settings = settings_of('{"a": 1, // c\n "b": [1,],}')
    assert settings == {"a": 1, "b": [1]}
    assert json.loads(changed_settings(settings, {"c": True}, remove=["a"])) == {"b": [1], "c": True}
    assert settings_of(None) == {} and settings_of("") == {}
    with pytest.raises(ValueError, match="object"):
        settings_of("[1]")


def test_keybindings_compare_as_vs_code_does():
    assert normal_key("Ctrl + Shift+K  Ctrl+T") == "ctrl+shift+k ctrl+t"
    rule = {"key": "Ctrl+Alt+L", "command": "x"}
    assert same_rule(rule, "ctrl+alt+l", "x") and not same_rule(rule, "ctrl+alt+l", "-x")
    assert keybindings_of("// none\n[]") == []
    with pytest.raises(ValueError, match="rule 0"):
        keybindings_of('[{"command": "x"}]')


def test_search_and_replace_skip_hidden_binary_and_big_files(tmp_path: Path):
    (tmp_path / "a.py").write_text("total = 1\nprint(total)\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b.txt").write_text("Total\n")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "c.py").write_text("total\n")
    (tmp_path / "bin.dat").write_bytes(b"total\0")
    (tmp_path / "big.py").write_text("total\n" * (workspace_search.MAX_FILE_BYTES // 6 + 10))
    pattern = workspace_search.compile_pattern("total", regex=False, match_case=False)
    matches, cut = workspace_search.search(tmp_path, pattern, "", 100)
    assert [(m.path.name, m.line) for m in matches] == [("a.py", 1), ("a.py", 2), ("b.txt", 1)] and not cut
    assert workspace_search.search(tmp_path, pattern, "*.py", 1) == ([matches[0]], True)
    exact = workspace_search.compile_pattern("total", regex=False, match_case=True)
    changed = workspace_search.replace(tmp_path, exact, r"sum\1", "", regex=False)
    assert changed == {tmp_path / "a.py": "sum\\1 = 1\nprint(sum\\1)\n"}
    grouped = workspace_search.compile_pattern(r"(t)otal", regex=True, match_case=True)
    assert workspace_search.replace(tmp_path, grouped, r"\1ally", "*.py", regex=True)[tmp_path / "a.py"].startswith(
        "tally"
    )
    for bad in ("", "x" * (workspace_search.MAX_PATTERN_CHARS + 1)):
        with pytest.raises(ValueError):
            workspace_search.compile_pattern(bad, regex=False, match_case=True)
    with pytest.raises(ValueError, match="regular expression"):
        workspace_search.compile_pattern("(", regex=True, match_case=True)


def test_search_does_not_follow_a_symlink_out_of_the_folder(tmp_path: Path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("total\n")
    work = tmp_path / "work"
    work.mkdir()
    (work / "link").symlink_to(outside)
    (work / "file.txt").symlink_to(outside / "secret.txt")
    pattern = workspace_search.compile_pattern("total", regex=False, match_case=True)
    assert workspace_search.search(work, pattern, "", 10) == ([], False)


def test_extension_record_and_vsix():
    record = json.dumps([{"identifier": {"id": "Pub.Name"}, "version": "1.0.0"}])
    assert installed_from(record) == [{"id": "pub.name", "version": "1.0.0"}]
    assert installed_from("") == []
    with pytest.raises(ValueError):
        installed_from('[{"version": "1"}]')
    with zipfile.ZipFile(BytesIO(vsix_bytes("pub", "name", "1.2.3", "Name <&>"))) as archive:
        assert json.loads(archive.read("extension/package.json"))["publisher"] == "pub"
        assert "Name &lt;&amp;&gt;" in archive.read("extension.vsixmanifest").decode()
    for bad in (("Pub", "name", "1.0.0"), ("pub", "na me", "1.0.0"), ("pub", "name", "1.0")):
        with pytest.raises(ValueError):
            vsix_bytes(*bad, "x")


def test_workbench_url_quotes_the_folder_and_the_file():
    url = workbench_url(8080, Path("/home/u/my proj"), Path("/home/u/my proj/a&b.py"))
    assert url.startswith("http://127.0.0.1:8080/?folder=%2Fhome%2Fu%2Fmy%20proj&payload=")
    assert "a%26b.py" in url


def test_settings_verifier_is_strict_about_json_types():
    data = b'{"editor.tabSize": 2, "editor.insertSpaces": true, // c\n}'
    assert verify_vscode_settings(data, {"editor.tabSize": 2, "editor.insertSpaces": True}).success
    assert not verify_vscode_settings(data, {"editor.tabSize": "2"}).success
    assert not verify_vscode_settings(data, {"editor.insertSpaces": 1}).success
    assert not verify_vscode_settings(data, {"editor.fontSize": 12}).success
    assert not verify_vscode_settings(data, {}, absent=["editor.tabSize"]).success
    assert not verify_vscode_settings(None, {}).success
    assert not verify_vscode_settings(b"{broken", {}).success


def test_keybinding_extension_and_workbench_verifiers():
    rules = json.dumps([{"key": "ctrl+alt+f", "command": "fmt", "when": "editorTextFocus"}]).encode()
    assert verify_vscode_keybinding(rules, "Ctrl+Alt+F", "fmt", when="editorTextFocus").success
    assert not verify_vscode_keybinding(rules, "ctrl+alt+f", "fmt", when="editorFocus").success
    assert not verify_vscode_keybinding(rules, "ctrl+alt+g", "fmt").success
    assert not verify_vscode_keybinding(rules, "ctrl+alt+f", "fmt", bound=False).success
    assert verify_vscode_keybinding(None, "ctrl+alt+f", "fmt", bound=False).success
    record = json.dumps([{"identifier": {"id": "a.b"}, "version": "1.0.0"}]).encode()
    assert verify_vscode_extensions(record, installed={"a.b": "1.0.0"}, absent=["c.d"]).success
    assert not verify_vscode_extensions(record, installed={"a.b": "1.0.1"}).success
    assert not verify_vscode_extensions(record, absent=["a.b"]).success
    state = {
        "folder": "~/p",
        "title": "~/p/a.py - ~/p - code-server",
        "editors": [{"name": "a.py", "active": True, "dirty": False}, {"name": "b.py", "active": False, "dirty": True}],
    }
    assert verify_vscode_workbench(state, folder="~/p", active_file="~/p/a.py").success
    assert not verify_vscode_workbench(state, active_file="~/p/b.py").success
    assert not verify_vscode_workbench(state, folder="~/q").success
    assert not verify_vscode_workbench(state, all_saved=True).success
