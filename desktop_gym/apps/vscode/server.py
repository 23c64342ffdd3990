"""The process a VS Code launch runs: start code-server, wait until it answers, then become the window.

``python -m desktop_gym.apps.vscode.server <session.json>`` starts code-server (its child, so in the
launch's process group: the launcher's kill ends both), polls its ``/healthz`` until it answers (a
cap: :data:`SERVER_START_TIMEOUT_S`) and then replaces itself with the Chromium ``--app`` window on
the workbench. code-server exiting first ends this with its exit status. Standard library only.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

from ...polling import poll_until

#: How long code-server may take to answer before the launch gives up.
SERVER_START_TIMEOUT_S = 60.0


def answers(port: int) -> bool:
    """Whether code-server's health endpoint on ``port`` answers."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2.0) as response:
            return response.status == 200
    except (OSError, urllib.error.URLError):
        return False


def main(argv: list[str]) -> int:
    """Run the launch described by the JSON file ``argv[0]`` (written by ``launch.vscode_argv``)."""
    session = json.loads(Path(argv[0]).read_text(encoding="utf-8"))
    server = subprocess.Popen(session["server_argv"], stdin=subprocess.DEVNULL)  # noqa: S603 - our own argv

    def ready() -> bool:
        if server.poll() is not None:
            raise RuntimeError(f"code-server exited with status {server.returncode} before it answered")
        return answers(int(session["port"]))

    try:
        poll_until(
            ready, SERVER_START_TIMEOUT_S, f"code-server on port {session['port']}", interval=0.1, error=TimeoutError
        )
    except (RuntimeError, TimeoutError) as error:
        print(f"vscode launch: {error}", file=sys.stderr, flush=True)
        server.kill()
        return 1
    window = session["window_argv"]
    os.execvp(window[0], window)  # noqa: S606 - the window replaces this process, code-server stays its child
    return 0  # pragma: no cover - execvp does not return


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
