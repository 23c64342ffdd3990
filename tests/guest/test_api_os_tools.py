"""OSTools through the real CallApi RPC, checked independently (guest files, exec, other processes)."""

from __future__ import annotations

import json
import time
import uuid
from typing import Any

import pytest

from desktop_gym.guest.client import GuestClient, GuestError

from .calc_api_support import call, workbook_bytes

pytestmark = pytest.mark.slow


def os_call(guest: GuestClient, method: str, **arguments: Any) -> Any:
    return json.loads(guest.call_api("OSTools", method, json.dumps(arguments)))


def sh(guest: GuestClient, command: str) -> str:
    result = guest.exec(command, shell=True)
    assert result.returncode == 0, result
    return result.stdout


@pytest.fixture
def folder(guest: GuestClient) -> str:
    """A fresh folder under the session home, as "~/..."."""
    name = f"~/os-tools-{uuid.uuid4().hex[:8]}"
    yield name
    guest.exec(f"rm -rf {name}", shell=True)


def test_os_tools_run_without_any_app(guest, folder):
    assert [app for app in guest.apps() if app.alive] == []  # no LibreOffice, no UNO connection
    assert os_call(guest, "create_folder", path=f"{folder}/a/b") == f"created folder {folder}/a/b"
    assert sh(guest, f"test -d {folder}/a/b && echo yes") == "yes\n"
    assert os_call(guest, "path_exists", path=folder) is True


def test_write_append_read_text_files(guest, folder):
    os_call(guest, "write_text_file", path=f"{folder}/notes/day.txt", text="first line\nzwei ü\n")
    assert guest.get_file(f"{folder}/notes/day.txt") == "first line\nzwei ü\n".encode()
    os_call(guest, "append_text_file", path=f"{folder}/notes/day.txt", text="third\n")
    assert guest.get_file(f"{folder}/notes/day.txt") == "first line\nzwei ü\nthird\n".encode()
    guest.put_file(f"{folder}/from-guest.txt", b"written by put_file\n")
    assert os_call(guest, "read_text_file", path=f"{folder}/from-guest.txt") == "written by put_file\n"
    cut = os_call(guest, "read_text_file", path=f"{folder}/notes/day.txt", max_chars=5)
    assert cut.startswith("first\n... [") and "more characters cut" in cut


def test_list_folder_matches_ls(guest, folder):
    sh(guest, f"mkdir -p {folder}/sub && touch {folder}/b.txt {folder}/a.txt {folder}/.hidden")
    assert os_call(guest, "list_folder", path=folder) == ["a.txt", "b.txt", "sub/"]
    assert os_call(guest, "list_folder", path=folder, show_hidden=True) == [".hidden", "a.txt", "b.txt", "sub/"]
    assert sh(guest, f"ls -p {folder}").split() == ["a.txt", "b.txt", "sub/"]


def test_copy_move_delete_files_and_folders(guest, folder):
    sh(guest, f"mkdir -p {folder}/src/inner && printf data > {folder}/src/inner/f.txt && mkdir {folder}/dest")
    os_call(guest, "copy_path", source=f"{folder}/src", destination=f"{folder}/copy")
    assert guest.get_file(f"{folder}/copy/inner/f.txt") == b"data"
    os_call(guest, "copy_path", source=f"{folder}/src/inner/f.txt", destination=f"{folder}/dest")
    assert guest.get_file(f"{folder}/dest/f.txt") == b"data"  # a file copied onto a folder goes inside it
    with pytest.raises(GuestError, match="already exists; pass overwrite=True"):
        os_call(guest, "copy_path", source=f"{folder}/src/inner/f.txt", destination=f"{folder}/dest/f.txt")

    os_call(guest, "move_path", source=f"{folder}/copy", destination=f"{folder}/moved")
    assert sh(guest, f"test -e {folder}/copy || echo gone; cat {folder}/moved/inner/f.txt") == "gone\ndata"

    with pytest.raises(GuestError, match="is not empty; pass recursive=True"):
        os_call(guest, "delete_path", path=f"{folder}/moved")
    os_call(guest, "delete_path", path=f"{folder}/moved", recursive=True)
    os_call(guest, "delete_path", path=f"{folder}/dest/f.txt")
    assert sh(guest, f"ls -A {folder}; ls -A {folder}/dest") == "dest\nsrc\n"
    with pytest.raises(GuestError, match="does not exist"):
        os_call(guest, "delete_path", path=f"{folder}/nothing-here")


def test_path_info_matches_stat(guest, folder):
    guest.put_file(f"{folder}/size.bin", b"x" * 1234, mode=0o640)
    info = os_call(guest, "path_info", path=f"{folder}/size.bin")
    assert info["type"] == "file" and info["size"] == 1234 and info["mode"] == "640"
    assert info["path"] == f"{folder}/size.bin"
    assert sh(guest, f"stat -c %s {folder}/size.bin") == "1234\n"
    assert os_call(guest, "path_info", path=folder)["type"] == "folder"


def test_tilde_and_relative_paths_are_the_home(guest, folder):
    home = guest.ping()["home"]
    relative = folder[2:] + "/rel.txt"
    os_call(guest, "write_text_file", path=relative, text="r")
    os_call(guest, "write_text_file", path=f"{home}/{folder[2:]}/abs.txt", text="a")
    assert sh(guest, f"cat {folder}/rel.txt {folder}/abs.txt") == "ra"


@pytest.mark.parametrize("path", ["/etc/passwd", "~/../../etc/passwd", "../outside.txt", "~root/x"])
def test_paths_outside_the_home_are_refused(guest, path):
    with pytest.raises(GuestError) as error:
        os_call(guest, "read_text_file", path=path)
    message = str(error.value)
    assert "outside the home folder" in message or "only '~/'" in message
    if "outside" in message:
        assert "DESKTOP_GYM_OS_TOOLS_ALLOW_OUTSIDE_HOME=1" in message


def test_a_symlink_out_of_the_home_is_refused(guest, folder):
    sh(guest, f"mkdir -p {folder} && ln -s /etc {folder}/etc-link")
    with pytest.raises(GuestError, match="outside the home folder"):
        os_call(guest, "write_text_file", path=f"{folder}/etc-link/evil.txt", text="x")
    with pytest.raises(GuestError, match="refusing to delete the home folder"):
        os_call(guest, "delete_path", path="~", recursive=True)


def test_run_shell_returns_exit_code_and_output(guest, folder):
    sh(guest, f"mkdir -p {folder}")
    result = os_call(guest, "run_shell", command="pwd; echo oops >&2; exit 7", cwd=folder)
    assert result["exit_code"] == 7 and result["timed_out"] is False and result["truncated"] is False
    assert result["stdout"] == guest.ping()["home"] + "/" + folder[2:] + "\n"
    assert result["stderr"] == "oops\n"
    long = os_call(guest, "run_shell", command="seq 1 5000", max_output_chars=100)
    assert long["truncated"] is True and long["stdout"].startswith("1\n2\n3\n")
    assert "more characters cut" in long["stdout"]


def test_run_shell_timeout_kills_the_command(guest, folder):
    marker = f"{folder}/late.txt"
    started = time.monotonic()
    result = os_call(guest, "run_shell", command=f"mkdir -p {folder}; sleep 20; touch {marker}", timeout=0.5)
    assert time.monotonic() - started < 5
    assert result["timed_out"] is True and result["exit_code"] == -9
    with pytest.raises(GuestError, match="timeout must be more than 0 and at most 120"):
        os_call(guest, "run_shell", command="true", timeout=500)
    assert guest.exec(f"test -e {marker}", shell=True).returncode == 1


def test_clipboard_is_the_desktops(guest):
    text = f"clip {uuid.uuid4().hex[:6]} ü"
    os_call(guest, "set_clipboard", text=text)
    # Another process on the desktop reads what OSTools set ...
    assert guest.exec("xclip -selection clipboard -o", shell=True).stdout == text
    # ... and OSTools reads what another process set.
    # (xclip stays behind to serve the selection: it must not hold exec's output pipes open)
    guest.exec("printf 'from xclip' | xclip -selection clipboard -i >/dev/null 2>&1", shell=True)
    assert os_call(guest, "get_clipboard") == "from xclip"


def test_clipboard_round_trips_through_a_real_app(guest, wait_until):
    guest.launch_app("calc", guest.put_file("~/clipboard.xlsx", workbook_bytes()))
    # What the user copies in Calc (ctrl+c on the cursor's cell A1) is what OSTools reads ...
    call(guest, "set_cell_value", cell="A1", value="copied-in-calc")
    guest.hotkey(["ctrl", "c"])
    assert wait_until(lambda: os_call(guest, "get_clipboard").strip() == "copied-in-calc", what="Calc's copy")
    # ... and what OSTools sets, ctrl+v pastes into Calc (into the empty F1).
    os_call(guest, "set_clipboard", text="pasted-by-api")
    guest.press("right", presses=5)
    guest.hotkey(["ctrl", "v"])
    wait_until(lambda: call(guest, "get_cell_value", cell="F1") == "pasted-by-api", what="the paste in F1")


def test_os_tools_run_under_the_api_deadline(tmp_path):
    # No guest needed: the registry runs tools without UNO in a worker thread under a deadline.
    from desktop_gym.guest.apps import registry

    args = json.dumps({"command": "sleep 3", "timeout": 10})
    started = time.monotonic()
    with pytest.raises(TimeoutError, match=r"OSTools.run_shell did not return within 0.3 s"):
        registry.call_api(None, "run_shell", args, home=tmp_path, timeout=0.3, app="os")
    assert time.monotonic() - started < 2
    assert json.loads(registry.call_api(None, "path_exists", '{"path": "~"}', home=tmp_path, app="OSTools")) is True
