"""Shared parts of the VS Code suite: the task base (fresh code-server data, a seeded project written,
optional settings / keybindings / extensions put in place, VS Code started on the project), the state
readers and the oracle helpers.

Verifiers read the files code-server owns (``User/settings.json``, ``User/keybindings.json``,
``extensions/extensions.json``), the project's files, and the live workbench
(``VSCodeTools.get_workbench_state``).
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from ...apps.vscode.extensions import EXTENSIONS_DIR
from ...apps.vscode.launch import DATA_DIR
from ...apps.vscode.settings_files import KEYBINDINGS_FILE, SETTINGS_FILE
from ..base import Task, TaskContext, TaskSetupError
from ..family_kit import tool_call

#: The files code-server owns, as the agent sees them.
SETTINGS_PATH = "~/" + SETTINGS_FILE
KEYBINDINGS_PATH = "~/" + KEYBINDINGS_FILE
EXTENSIONS_RECORD = "~/" + EXTENSIONS_DIR + "/extensions.json"
#: Project folder names a task picks from.
PROJECTS = ("inventory", "webshop", "weather", "billing", "notes", "tracker", "library", "planner")
#: Python identifiers a task picks from.
IDENTIFIERS = ("total_price", "load_items", "parse_row", "send_mail", "user_count", "read_config", "fetch_rates")


def vscode_call(method: str, **arguments: Any) -> str:
    """``VSCodeTools.method(arg=...)`` as an action string."""
    return tool_call("VSCodeTools", method, **arguments)


def run(ctx: TaskContext, command: str, what: str, timeout: float = 60) -> None:
    """Run a shell command in the desktop; a failure is a ``TaskSetupError`` naming ``what``."""
    done = ctx.client.exec(command, shell=True, timeout=timeout)
    if done.returncode != 0:
        raise TaskSetupError(f"could not {what}: {(done.stderr or done.stdout).strip()[:300]}")


def project_files(name: str, identifier: str) -> dict[str, str]:
    """A small Python project using ``identifier`` in two files (``relative path -> text``)."""
    return {
        "README.md": f"# {name}\n\nRun `python3 main.py`.\n",
        "main.py": f"from app.core import {identifier}\n\nprint({identifier}([1, 2, 3]))\n",
        "app/__init__.py": "",
        "app/core.py": f"def {identifier}(values):\n    return sum(values)\n",
        "app/config.py": "DEBUG = True\nPORT = 8000\nNAME = " + repr(name) + "\n",
        "tests/test_core.py": f"from app.core import {identifier}\n\nassert {identifier}([2]) == 2\n",
    }


class VSCodeTask(Task):
    """A task in VS Code: ``setup`` clears code-server's data, writes the project (``files``), the
    user's settings / keybindings (``initial_settings`` / ``initial_keybindings``), runs ``prepare``
    and starts VS Code on ``start_file``."""

    apps: ClassVar[Sequence[str]] = ("vscode",)
    max_steps = 10
    tags: ClassVar[Sequence[str]] = ("vscode", "code")
    oracles = ("api",)

    @staticmethod
    def project(params: Mapping[str, Any]) -> str:
        """The project folder (``~/<name>``)."""
        return f"~/{params['project']}"

    def files(self, params: Mapping[str, Any]) -> dict[str, str]:
        """The project's files: relative path -> text."""
        return project_files(params["project"], params.get("identifier", "total_price"))

    def initial_settings(self, params: Mapping[str, Any]) -> str | None:
        """settings.json's text at the start; None for no file."""
        return None

    def initial_keybindings(self, params: Mapping[str, Any]) -> str | None:
        """keybindings.json's text at the start; None for no file."""
        return None

    def start_file(self, params: Mapping[str, Any]) -> str:
        """The file VS Code opens at start (``~/...``)."""
        return f"{self.project(params)}/main.py"

    def prepare(self, ctx: TaskContext) -> None:
        """Change the desktop before VS Code starts (extensions installed, files downloaded)."""

    def setup(self, ctx: TaskContext) -> None:
        project = self.project(ctx.params)
        run(
            ctx, f"rm -rf ~/.local/share/code-server ~/.config/gym-vscode {project} ~/Downloads/*.vsix", "reset VS Code"
        )
        for relative, text in self.files(ctx.params).items():
            ctx.client.put_file(f"{project}/{relative}", text.encode())
        for path, text in (
            (SETTINGS_PATH, self.initial_settings(ctx.params)),
            (KEYBINDINGS_PATH, self.initial_keybindings(ctx.params)),
        ):
            if text is not None:
                ctx.client.put_file(path, text.encode())
        self.prepare(ctx)
        launched = ctx.client.launch_app("vscode", self.start_file(ctx.params), timeout=120.0)
        if not launched.alive:
            raise TaskSetupError("VS Code exited right after it started")

    @staticmethod
    def workbench(ctx: TaskContext) -> dict[str, Any]:
        """The live workbench's state (``VSCodeTools.get_workbench_state``)."""
        return json.loads(ctx.client.call_api("VSCodeTools", "get_workbench_state", "{}", timeout=60.0))


def install_vsix(ctx: TaskContext, path: str) -> None:
    """Install the .vsix at ``path`` (``~/...``) with code-server's own CLI, as setup."""
    if not path.startswith("~/"):
        raise TaskSetupError(f"install_vsix takes a ~/ path, got {path!r}")
    command = (
        f'code-server --user-data-dir "$HOME/{DATA_DIR}" --extensions-dir "$HOME/{EXTENSIONS_DIR}" '
        f'--install-extension "$HOME/"{shlex.quote(path[2:])}'
    )
    run(ctx, command, f"install {path}", timeout=120)
