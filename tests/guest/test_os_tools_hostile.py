"""OSTools against an agent that attacks it (issue 9): output floods, escaping children, hard
links, symlinks swapped between check and use, FIFOs. OSTools runs in-process on a temporary home."""

from __future__ import annotations

import contextlib
import os
import resource
import threading
import time
from pathlib import Path

import pytest

from desktop_gym.apps.os.tools import OSTools
from desktop_gym.guest.apps.tool_schema import ApiArgumentError, ApiCallError
from desktop_gym.guest.processes import pid_namespace_prefix


@pytest.fixture
def home(tmp_path: Path) -> Path:
    folder = tmp_path / "home"
    folder.mkdir()
    return folder


@pytest.fixture
def tools(home: Path) -> OSTools:
    return OSTools(home=home, allow_outside_home=False)


def gone(pid: int, timeout: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            return True
        if state in "ZX":
            return True
        time.sleep(0.02)
    return False


def test_300_mb_of_output_is_read_through_a_bounded_buffer(tools: OSTools) -> None:
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    result = tools.run_shell("head -c 300000000 /dev/zero | tr '\\0' x", timeout=60, max_output_chars=1000)
    grown_mib = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert result["exit_code"] == 0 and result["truncated"]
    assert result["stdout"].startswith("x" * 1000) and len(result["stdout"]) < 1100
    assert grown_mib < 50  # was ~900 MiB: all output buffered before cutting


def test_the_output_cap_itself_is_capped(tools: OSTools) -> None:
    with pytest.raises(ValueError, match="max_output_chars"):
        tools.run_shell("true", max_output_chars=10**12)


@pytest.mark.skipif(not pid_namespace_prefix(), reason="unshare cannot make a PID namespace here")
@pytest.mark.parametrize("launcher", ["setsid", "env -i setsid", "nohup setsid"])
def test_setsid_children_die_with_the_command(tools: OSTools, launcher: str) -> None:
    seconds = f"{1000 + time.time_ns() % 1000}.5"  # a command line no other process has
    result = tools.run_shell(f"{launcher} sleep {seconds} >/dev/null 2>&1 & sleep 0.2; echo started", timeout=10)
    assert result["exit_code"] == 0 and result["stdout"] == "started\n"
    # $! would be the pid inside the namespace: find the real one by its command line.
    survivors = [int(p) for p in os.listdir("/proc") if p.isdigit() and _cmdline(int(p)) == f"sleep\x00{seconds}\x00"]
    assert all(gone(pid) for pid in survivors)


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_text()
    except OSError:
        return ""


@pytest.mark.skipif(not pid_namespace_prefix(), reason="unshare cannot make a PID namespace here")
def test_a_foreground_setsid_child_holding_the_pipes_is_killed_at_the_timeout(tools: OSTools, home: Path) -> None:
    marker = home / "started"
    started = time.monotonic()
    result = tools.run_shell(f"touch {marker}; setsid sleep 60", timeout=1)
    elapsed = time.monotonic() - started
    assert result["timed_out"] and result["exit_code"] == -9  # was exit code 0 after 3.5 s
    assert elapsed < 3.0
    assert marker.exists()


def test_writes_through_a_hard_link_are_refused(tools: OSTools, home: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("precious")
    os.link(outside, home / "linked.txt")
    for write in (tools.write_text_file, tools.append_text_file):
        with pytest.raises(ApiCallError, match="hard links"):
            write("~/linked.txt", "overwritten")
    (home / "note.txt").write_text("n")
    with pytest.raises(ApiCallError, match="hard links"):
        tools.copy_path("~/note.txt", "~/linked.txt", overwrite=True)
    assert outside.read_text() == "precious"


def test_a_symlink_swapped_in_between_check_and_use_never_redirects_a_write(
    tools: OSTools, home: Path, tmp_path: Path
) -> None:
    outside, inner = tmp_path / "outside", home / "inner"
    outside.mkdir()
    inner.mkdir()
    link, spare = home / "d", home / ".d.next"
    link.symlink_to(inner)
    stop = threading.Event()

    def flip() -> None:  # ~/d points inside, then outside the home, swapped atomically (like `mv -T`)
        while not stop.is_set():
            for target in (outside, inner):
                spare.symlink_to(target)
                os.replace(spare, link)

    flipper = threading.Thread(target=flip)
    flipper.start()
    try:
        for index in range(1000):
            with contextlib.suppress(ApiCallError, ApiArgumentError):  # refused at the check or at the open
                tools.write_text_file(f"~/d/f{index}.txt", "x")
    finally:
        stop.set()
        flipper.join()
    assert list(outside.iterdir()) == []  # was 1,374 of 3,000 writes outside


def test_reads_do_not_follow_symlinks_either(tools: OSTools, home: Path, tmp_path: Path) -> None:
    (home / "inner.txt").write_text("inner")
    (home / "alias.txt").symlink_to(home / "inner.txt")
    with pytest.raises(ApiCallError, match="does not follow links"):
        tools.read_text_file("~/alias.txt")


def test_a_fifo_does_not_hang_the_guest(tools: OSTools, home: Path) -> None:
    os.mkfifo(home / "pipe")
    started = time.monotonic()
    for call in (lambda: tools.write_text_file("~/pipe", "x"), lambda: tools.read_text_file("~/pipe")):
        with pytest.raises(ApiCallError, match="not a regular file"):
            call()
    assert time.monotonic() - started < 1.0


def test_ordinary_file_work_still_works(tools: OSTools, home: Path) -> None:
    assert tools.write_text_file("~/a/b/c.txt", "hello") == "wrote 5 characters to ~/a/b/c.txt"
    assert tools.append_text_file("~/a/b/c.txt", "!") == "appended 1 characters to ~/a/b/c.txt (now 6)"
    assert tools.read_text_file("~/a/b/c.txt", max_chars=3).startswith("hel")
    assert tools.copy_path("~/a/b/c.txt", "~/copy.txt") == "copied ~/a/b/c.txt to ~/copy.txt"
    assert (home / "copy.txt").read_text() == "hello!"
    assert tools.create_folder("~/x/y") == "created folder ~/x/y" and (home / "x" / "y").is_dir()


def test_guest_exec_output_is_bounded_too(home: Path) -> None:
    from desktop_gym.guest.processes import DEFAULT_MAX_OUTPUT_BYTES, run_command

    result = run_command(
        f"head -c {DEFAULT_MAX_OUTPUT_BYTES + 4096} /dev/zero | tr '\\0' y",
        {"HOME": str(home), "PATH": os.environ["PATH"]},
        shell=True,
    )
    assert result.returncode == 0
    assert result.stdout.endswith(f"[output cut at {DEFAULT_MAX_OUTPUT_BYTES} bytes]")
    assert len(result.stdout) < DEFAULT_MAX_OUTPUT_BYTES + 100
