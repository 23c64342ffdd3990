"""Setup steps of JSON tasks: write files, copy them, open them in apps, run commands, wait for windows,
open browser tabs.

Each step is a dict as in ``tasks/schema/task.schema.json`` (already validated, templates already
filled). Every wait polls a condition under a deadline; nothing sleeps a fixed time.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ..errors import WaitTimeoutError
from ..guest.types import WindowInfo
from ..polling import poll_until
from .artifacts import docx_bytes, pptx_bytes, xlsx_bytes
from .base import TaskContext, TaskSetupError
from .limits import home_path, mode_problem

StepRunner = Callable[[Mapping[str, Any], TaskContext, Path], None]

DEFAULT_COMMAND_TIMEOUT = 30.0
DEFAULT_WINDOW_TIMEOUT = 15.0
DEFAULT_APP_TIMEOUT = 30.0


def asset_path(assets_dir: Path, name: str) -> Path:
    """The file ``name`` inside ``assets_dir``; refuses anything that resolves out of the folder.

    The folder is taken inside the real suite folder (its parent, resolved): an ``assets`` that
    is itself a link (``ln -s /etc assets``) or an asset that links out would let a task file copy
    any host file the trainer can read into the agent's home.

    Raises:
        FileNotFoundError: the asset does not exist.
        ValueError: the asset resolves out of the assets folder of the real suite folder.
    """
    root = assets_dir.parent.resolve() / assets_dir.name
    path = (root / name).resolve()
    if not path.is_relative_to(root) or path == root:
        raise ValueError(
            f"asset {name!r} resolves to {path}, outside the suite folder's assets folder {root} "
            "(links out of the suite folder are not followed)"
        )
    if not path.is_file():
        raise FileNotFoundError(f"asset {name!r} not found in {root}")
    return path


def file_bytes(step: Mapping[str, Any], assets_dir: Path) -> bytes:
    """The bytes a ``put_file`` step writes, from its one source (text, asset, rows, paragraphs or slides)."""
    if "text" in step:
        return str(step["text"]).encode("utf-8")
    if "asset" in step:
        return asset_path(assets_dir, step["asset"]).read_bytes()
    if "rows" in step:
        return xlsx_bytes(step["rows"], sheet_title=step.get("sheet", "Sheet1"))
    if "slides" in step:
        return pptx_bytes(step["slides"])
    return docx_bytes([str(p) for p in step["paragraphs"]], heading=step.get("heading"))


def _put_file(step: Mapping[str, Any], ctx: TaskContext, assets_dir: Path) -> None:
    # Paths are checked again once filled: a template can make ~/{x} leave the home.
    path = home_path(step["path"], "path")
    mode = int(step.get("mode", 0o644))
    problem = mode_problem(mode)
    if problem:
        raise ValueError(problem)
    ctx.client.put_file(path, file_bytes(step, assets_dir), mode=mode)


def _copy_file(step: Mapping[str, Any], ctx: TaskContext, assets_dir: Path) -> None:
    source, target = home_path(step["src"], "src"), home_path(step["dst"], "dst")
    data = ctx.read_file(source)
    if data is None:
        raise TaskSetupError(f"the file to copy, {source}, does not exist in the desktop")
    ctx.client.put_file(target, data)


def _open(step: Mapping[str, Any], ctx: TaskContext, assets_dir: Path) -> None:
    path = home_path(step["path"], "path")
    ctx.client.launch_app(step["app"], path, timeout=float(step.get("timeout", DEFAULT_APP_TIMEOUT)))


def _launch(step: Mapping[str, Any], ctx: TaskContext, assets_dir: Path) -> None:
    ctx.client.launch_app(step["app"], timeout=float(step.get("timeout", DEFAULT_APP_TIMEOUT)))


def _run(step: Mapping[str, Any], ctx: TaskContext, assets_dir: Path) -> None:
    timeout = float(step.get("timeout", DEFAULT_COMMAND_TIMEOUT))
    result = ctx.client.exec(step["command"], shell=True, timeout=timeout)
    if result.timed_out:
        raise TaskSetupError(f"the command timed out after {timeout:g}s")
    if step.get("check", True) and result.returncode != 0:
        raise TaskSetupError(
            f"the command exited {result.returncode}: {(result.stderr or result.stdout)[-300:].strip()}"
        )


def _wait_window(step: Mapping[str, Any], ctx: TaskContext, assets_dir: Path) -> None:
    pattern = re.compile(step["title"])
    timeout = float(step.get("timeout", DEFAULT_WINDOW_TIMEOUT))
    seen: list[str] = []

    def matching_window() -> WindowInfo | None:
        windows = ctx.client.windows()
        seen[:] = [w.title for w in windows]
        return next((w for w in windows if pattern.search(w.title or "")), None)

    try:
        match = poll_until(matching_window, timeout, f"a window title matching /{step['title']}/", interval=0.05)
    except WaitTimeoutError:
        raise TaskSetupError(
            f"no window title matched /{step['title']}/ within {timeout:g}s (windows: {seen})"
        ) from None
    if step.get("activate", False):
        ctx.client.activate_window(match.window_id)


def _open_tab(step: Mapping[str, Any], ctx: TaskContext, assets_dir: Path) -> None:
    # ChromeTools.open_tab opens the tab in front and returns once the page has loaded.
    arguments = json.dumps({"url": step["url"]})
    ctx.client.call_api("ChromeTools", "open_tab", arguments, timeout=float(step.get("timeout", DEFAULT_APP_TIMEOUT)))


STEP_RUNNERS: dict[str, StepRunner] = {
    "put_file": _put_file,
    "copy_file": _copy_file,
    "open": _open,
    "launch": _launch,
    "run": _run,
    "wait_window": _wait_window,
    "open_tab": _open_tab,
}


def describe_step(step: Mapping[str, Any]) -> str:
    """A short human description, e.g. ``open calc ~/Documents/a.xlsx``."""
    kind = step.get("type", "?")
    detail = {
        "put_file": step.get("path"),
        "copy_file": f"{step.get('src')} -> {step.get('dst')}",
        "open": f"{step.get('app')} {step.get('path')}",
        "launch": step.get("app"),
        "run": str(step.get("command", ""))[:60],
        "wait_window": f"/{step.get('title')}/",
        "open_tab": str(step.get("url", ""))[:80],
    }.get(kind, "")
    return f"{kind} {detail}".strip()


def run_setup(steps: Sequence[Mapping[str, Any]], ctx: TaskContext, assets_dir: Path) -> None:
    """Run setup steps in order (templates already filled).

    Raises:
        TaskSetupError: naming the step (``setup[2] (open calc ~/a.xlsx)``) and what went wrong.
    """
    from ..guest.client import GuestError

    for index, step in enumerate(steps):
        try:
            STEP_RUNNERS[step["type"]](step, ctx, assets_dir)
        except (TaskSetupError, GuestError, OSError, ValueError, re.error) as error:
            raise TaskSetupError(f"setup[{index}] ({describe_step(step)}): {error}") from error
