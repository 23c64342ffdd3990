"""OSWorld's ``evaluator.postconfig``: what runs on the desktop after the agent, before the checks.

Saving for the agent (Ctrl+S through pyautogui), fixed sleeps and window activation are not run:
saving is the agent's job here (``needs_save``); nor is a restart of Chrome (OSWorld restarts it so
it writes its profile files; the browser checks here read the live browser). Shell commands
(``execute``) and downloaded checker scripts (``download``, embedded from the cache at import time
so the agent never sees them) become leading ``command_output`` leaves of an ``all`` node, so they
run in order before the checks that read their output. Anything else stays unsupported, with its
reason.
"""

from __future__ import annotations

import base64
import re
import shlex
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .osworld_chrome import is_browser_restart
from .osworld_evaluators import Unsupported, find_cached, guest_path

if TYPE_CHECKING:
    from .osworld_import import ImportReport

Node = dict[str, Any]
#: a downloaded checker script larger than this is not embedded in a task file
MAX_EMBEDDED_BYTES = 64 * 1024  # base64 of it stays under Linux's 128 KiB limit on one argument
SAVE_HOTKEY = re.compile(r"""hotkey\(\s*['"]ctrl['"]\s*,\s*['"]s['"]\s*\)""")
GUI_DRIVERS = ("pyautogui", "xdotool")
POSTCONFIG_TIMEOUT_NOTE = "runs before the checks, exit status ignored (as OSWorld does)"


def _text(command: Any) -> str:
    text = command if isinstance(command, str) else shlex.join(str(part) for part in command or [])
    return text.replace("/home/user/", "$HOME/")


def _run_leaf(command: str, label: str) -> Node:
    return {"name": "command_output", "command": command, "args": {"returncode": None}, "label": label}


def _download_leaves(params: Mapping[str, Any], cache_dir: Path, where: str) -> list[Node]:
    leaves = []
    for file in params.get("files", []):
        cached = find_cached(cache_dir, str(file.get("path", "")), str(file.get("url", "")))
        data = cached.read_bytes()
        if len(data) > MAX_EMBEDDED_BYTES:
            raise Unsupported(
                f"downloaded file {cached.name} is {len(data)} bytes (embeds at most {MAX_EMBEDDED_BYTES})"
            )
        target = guest_path(str(file["path"]))
        quoted = '"$HOME"/' + shlex.quote(target[2:]) if target.startswith("~/") else shlex.quote(target)
        encoded = base64.b64encode(data).decode("ascii")
        command = f'mkdir -p "$(dirname {quoted})" && echo {encoded} | base64 -d > {quoted}'
        leaves.append(_run_leaf(command, f"{where}: put {target}"))
    return leaves


def postconfig_nodes(steps: Sequence[Mapping[str, Any]], cache_dir: Path, report: ImportReport) -> list[Node]:
    """The leaves that run ``steps`` before the checks; notes and unsupported items go to ``report``."""
    leaves: list[Node] = []
    for index, step in enumerate(steps):
        kind, params = step.get("type"), step.get("parameters", {}) or {}
        where = f"evaluator.postconfig[{index}] ({kind})"
        command = params.get("command", "")
        source = command if isinstance(command, str) else " ".join(str(part) for part in command or [])
        try:
            if kind in ("launch", "execute", "command") and is_browser_restart(command):
                report.notes.append(
                    f"{where} not run: the checks read the live browser, not the files a restart writes"
                )
            elif kind in ("sleep", "activate_window") or SAVE_HOTKEY.search(source):
                report.notes.append(f"{where} not run: the agent must save itself (needs_save)")
            elif kind in ("open", "launch"):
                report.notes.append(f"{where} not run: it only shows a file; the checks read files, not windows")
            elif kind in ("execute", "command"):
                if any(driver in source for driver in GUI_DRIVERS):
                    raise Unsupported("the command drives the GUI; only shell commands run before the checks")
                leaves.append(_run_leaf(_text(command), f"{where}: {POSTCONFIG_TIMEOUT_NOTE}"))
                report.mapped.append(where)
            elif kind == "download":
                leaves += _download_leaves(params, cache_dir, where)
                report.mapped.append(where)
            else:
                raise Unsupported("steps of this type before evaluation are not supported")
        except (Unsupported, KeyError) as error:
            report.add_unsupported(where, error)
    return leaves
