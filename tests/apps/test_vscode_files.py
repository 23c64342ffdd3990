"""The VS Code app's file-level parts without a desktop: settings and keybindings as data, search and
replace across a folder, code-server's extension record, the .vsix builder, and the code-editor
verifiers (each passes on the right file and fails on a near miss)."""

from __future__ import annotations

import json
import time
import zipfile
from io import BytesIO
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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
    (tmp_path / "a.py").write_text("total = 1\nprint(total)")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b.txt").write_text("Total\n")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "c.py").write_text("total\n")
    (tmp_path / "bin.dat").write_bytes(b"total\0")
    (tmp_path / "big.py").write_text("total\n" * (workspace_search.MAX_FILE_BYTES // 6 + 10))
    matches, cut = workspace_search.search(tmp_path, "total", False, False, "", 100)
    assert sorted((m.path.name, m.line, m.text) for m in matches) == [
        ("a.py", 1, "total = 1"),
        ("a.py", 2, "print(total)"),
        ("b.txt", 1, "Total"),
    ]
    assert not cut and all(m.path.parent in (tmp_path, tmp_path / "sub") for m in matches)
    assert len(workspace_search.search(tmp_path, "total", False, False, "*.py", 1)[0]) == 1
    assert workspace_search.search(tmp_path, "total", False, False, "*.py", 1)[1]
    files = workspace_search.matching_files(tmp_path, "total", False, True, "")
    assert files == [tmp_path / "a.py"]
    original = (tmp_path / "a.py").read_text()
    assert workspace_search.replaced_text(files[0], original, "total", "$1x", False, True) == "$1x = 1\nprint($1x)"
    assert workspace_search.replaced_text(files[0], original, "TOTAL", "$x", False, False) == "$x = 1\nprint($x)"
    assert workspace_search.replaced_text(files[0], original, "(t)otal", "${1}ally", True, True) == (
        "tally = 1\nprint(tally)"
    )
    for bad in ("", "x" * (workspace_search.MAX_PATTERN_CHARS + 1)):
        with pytest.raises(workspace_search.SearchError):
            workspace_search.rg_argv(bad, False, True, "")
    with pytest.raises(workspace_search.SearchError, match="ripgrep refused"):
        workspace_search.search(tmp_path, "(", True, True, "", 10)


def test_a_backtracking_pattern_cannot_hang_the_search(tmp_path: Path):
    (tmp_path / "a.txt").write_text("a" * 40 + "!\n")
    started = time.monotonic()
    assert workspace_search.search(tmp_path, "^(a+)+$", True, True, "", 10) == ([], False)
    assert time.monotonic() - started < 10


def test_search_does_not_follow_a_symlink_out_of_the_folder(tmp_path: Path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("total\n")
    work = tmp_path / "work"
    work.mkdir()
    (work / "link").symlink_to(outside)
    (work / "file.txt").symlink_to(outside / "secret.txt")
    assert workspace_search.search(work, "total", False, True, "", 10) == ([], False)


MATCH_RECORDS = st.fixed_dictionaries(
    {"path": st.text(min_size=1, max_size=20), "line": st.integers(1, 10**6), "text": st.text(max_size=40)}
)


@settings(max_examples=200, deadline=None)
@given(st.lists(MATCH_RECORDS, max_size=8), st.lists(st.text(max_size=30), max_size=4), st.integers(0, 10))
def test_rg_json_parser_reads_back_every_match_and_skips_the_rest(records, noise, limit):
    lines = [json.dumps({"type": "begin", "data": {"path": {"text": "x"}}}), *noise]
    for record in records:
        data = {"path": {"text": record["path"]}, "lines": {"text": record["text"] + "\n"}}
        lines.append(json.dumps({"type": "match", "data": {**data, "line_number": record["line"]}}))
    lines.append(json.dumps({"type": "match", "data": {"path": {"bytes": "AA=="}, "lines": {"text": "z"}}}))
    matches, cut = workspace_search.parse_matches(lines, limit)
    wanted = [(Path(r["path"]), r["line"], r["text"].rstrip("\r\n")) for r in records]
    assert [(m.path, m.line, m.text) for m in matches] == wanted[:limit]
    assert cut == (len(records) > limit)


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
