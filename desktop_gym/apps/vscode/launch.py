"""Starting VS Code (code-server in a Chromium app window) in the desktop, and knowing when it is usable.

:func:`vscode_argv` picks a free loopback port, writes the quiet machine settings (no welcome page,
no workspace-trust prompt, no telemetry or update checks; the agent's own settings stay in
``User/settings.json``), records the launch in ``~/.config/gym-vscode/session.json`` (port, folder,
the window's Chromium profile: ``VSCodeTools`` reads it there) and returns the command of
:mod:`.server`, which starts code-server and then becomes the ``chromium --app`` window on the
workbench. code-server keeps its state in the home: ``~/.local/share/code-server`` (``User/``:
settings.json, keybindings.json; ``extensions/``). :func:`wait_vscode_ready` returns once the
workbench is drawn in the window (DevTools sees its explorer). Standard library only.
"""

from __future__ import annotations

import json
import socket
import sys
import time
import urllib.parse
from pathlib import Path
from typing import Any

from ...errors import DevToolsError
from ...polling import poll_until
from ..devtools_browser import CHROMIUM_QUIET_FLAGS

#: The code-server command (scripts/install_code_server.sh links it on PATH).
CODE_SERVER = "code-server"
#: The browser that shows the workbench.
CHROMIUM = "chromium"
#: The window's WM_CLASS class (Chromium's ``--class``), how the launcher finds the window.
WINDOW_CLASS = "gym-vscode"
#: code-server's data, relative to the home.
DATA_DIR = ".local/share/code-server"
#: The launch record ``VSCodeTools`` reads, relative to the home.
SESSION_FILE = ".config/gym-vscode/session.json"
#: Settings every launch applies below the user's own (VS Code's "machine" scope on the server).
QUIET_SETTINGS: dict[str, Any] = {
    "workbench.startupEditor": "none",
    "workbench.welcomePage.walkthroughs.openOnInstall": False,
    "workbench.tips.enabled": False,
    "security.workspace.trust.enabled": False,
    "telemetry.telemetryLevel": "off",
    "update.mode": "none",
    "extensions.autoCheckUpdates": False,
    "extensions.autoUpdate": False,
    "git.enabled": False,
    "files.autoSave": "off",
    # What the workbench reader relies on: the active file's and the folder's paths in the title,
    # each tab's folder beside its name.
    "window.title": "${activeEditorLong}${separator}${rootPath}${separator}code-server",
    "workbench.editor.labelFormat": "long",
}
#: Flags of the workbench window: the Chrome app's quiet ones, for the same reasons.
WINDOW_FLAGS = (
    *CHROMIUM_QUIET_FLAGS,
    "--disable-features=Translate,MediaRouter,OptimizationHints",
    "--start-maximized",
    f"--class={WINDOW_CLASS}",
)


def data_dir(home: Path) -> Path:
    """code-server's user-data-dir in the session home."""
    return Path(home) / DATA_DIR


def session_path(home: Path) -> Path:
    """Where the running launch is recorded."""
    return Path(home) / SESSION_FILE


def free_port() -> int:
    """A loopback port no one listens on now (the kernel's pick)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def workbench_url(port: int, folder: Path, file: Path | None = None) -> str:
    """The workbench's address showing ``folder`` (and opening ``file`` in an editor, if given)."""
    query = {"folder": str(folder)}
    if file is not None:
        query["payload"] = json.dumps([["openFile", f"vscode-remote://127.0.0.1:{port}{file}"]])
    return f"http://127.0.0.1:{port}/?{urllib.parse.urlencode(query, quote_via=urllib.parse.quote)}"


def write_machine_settings(home: Path) -> None:
    """The quiet settings, in code-server's machine scope (the user's settings.json is left alone)."""
    machine = data_dir(home) / "Machine"
    machine.mkdir(parents=True, exist_ok=True)
    (machine / "settings.json").write_text(json.dumps(QUIET_SETTINGS, indent=2) + "\n", encoding="utf-8")


def vscode_argv(home: Path, launch_dir: Path, file: str | None) -> list[str]:
    """The command line of a VS Code launch for the session at ``home`` (opening ``file`` if given).

    The workspace folder is the file's folder, else the home. The window's Chromium profile is in
    the per-launch folder, outside the home.
    """
    home, launch_dir = Path(home), Path(launch_dir)
    port = free_port()
    target = Path(file) if file else None
    folder = target.parent if target is not None else home
    data = data_dir(home)
    write_machine_settings(home)
    profile = launch_dir / "chromium"
    profile.mkdir(parents=True, exist_ok=True)
    server_argv = [
        CODE_SERVER,
        "--auth=none",
        f"--bind-addr=127.0.0.1:{port}",
        "--disable-telemetry",
        "--disable-update-check",
        "--disable-workspace-trust",
        "--disable-getting-started-override",
        "--ignore-last-opened",
        f"--user-data-dir={data}",
        f"--extensions-dir={data / 'extensions'}",
        f"--config={launch_dir / 'code-server.yaml'}",
    ]
    (launch_dir / "code-server.yaml").write_text("auth: none\ncert: false\n", encoding="utf-8")
    window_argv = [
        CHROMIUM,
        f"--user-data-dir={profile}",
        "--remote-debugging-port=0",
        *WINDOW_FLAGS,
        f"--app={workbench_url(port, folder, target)}",
    ]
    record = {"port": port, "folder": str(folder), "profile": str(profile), "data": str(data), "file": file or ""}
    session = session_path(home)
    session.parent.mkdir(parents=True, exist_ok=True)
    session.write_text(json.dumps(record), encoding="utf-8")
    plan = launch_dir / "vscode-launch.json"
    plan.write_text(json.dumps({**record, "server_argv": server_argv, "window_argv": window_argv}), encoding="utf-8")
    return [sys.executable, "-m", "desktop_gym.apps.vscode.server", str(plan)]


def wait_vscode_ready(home: Path, launch_dir: Path, deadline: float) -> None:
    """Return once the workbench in the window is drawn (code-server answered, the page loaded) and
    shows the launch's file in the active editor.

    Raises:
        TimeoutError: not by ``deadline``.
    """
    from .workbench import Workbench

    def ready() -> bool:
        wait = max(0.5, min(5.0, deadline - time.monotonic()))
        with Workbench.of_session(Path(home), timeout=wait) as workbench:
            file = str(workbench.record.get("file") or "")
            return workbench.ready() and (not file or workbench.showing(Path(file).name))

    poll_until(
        ready,
        deadline - time.monotonic(),
        "the VS Code workbench in its window",
        interval=0.1,
        retry_on=(DevToolsError, OSError, ValueError),
        error=TimeoutError,
    )


def vscode_presented(home: Path, launch_dir: Path, timeout: float) -> bool:
    """After an action: the workbench has handled its queued input and drawn it (two animation frames)."""
    from ..devtools_browser import wait_two_frames
    from .workbench import read_session

    return wait_two_frames(Path(read_session(Path(home))["profile"]), timeout)
