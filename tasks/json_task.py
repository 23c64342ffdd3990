"""``JsonTask``: a task defined by a JSON file (``tasks/schema/task.schema.json``).

The definition is validated by ``tasks.loader`` before a ``JsonTask`` is built from it; this
module only runs it: sample parameters, run setup steps, evaluate the verifier tree against the
real desktop, and play the oracles.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import GuestError
from ..verifiers import TREE_LISTING_COMMAND, all_of, any_of, get_verifier_spec, not_
from ..verifiers.result import VerifierResult
from .base import ORACLE_KINDS, Policy, ScriptedPolicy, Task, TaskContext
from .json_params import fill, perturbed_value, sample_params
from .limits import home_path
from .setup_steps import run_setup

DEFAULT_ASSETS_DIR = Path(__file__).resolve().parent / "assets"
LIVE_COMMAND_TIMEOUT = 30.0
_MISSING_DIR_EXIT = 3


def shell_path(path: str) -> str:
    """A guest path as a shell word; a leading ``~/`` stays expandable (``"$HOME"/'my dir'``)."""
    if path == "~":
        return '"$HOME"'
    if path.startswith("~/"):
        return '"$HOME"/' + shlex.quote(path[2:])
    return shlex.quote(path)


class JsonTask(Task):
    """A task read from a JSON definition.

    Args:
        definition: the validated task definition (a parsed JSON object).
        source: where it came from (for messages), e.g. ``tasks/suites/files/rename.json``.
        assets_dir: the folder ``put_file`` assets are read from.
    """

    def __init__(self, definition: Mapping[str, Any], source: str = "<memory>", assets_dir: Path | None = None) -> None:
        self.definition = dict(definition)
        self.source = source
        self.assets_dir = Path(assets_dir) if assets_dir is not None else DEFAULT_ASSETS_DIR
        self.id = definition["id"]
        self.instruction_template = definition["instruction"]
        self.apps = tuple(definition.get("apps", ()))
        self.max_steps = int(definition.get("max_steps", Task.max_steps))
        self.tags = tuple(definition.get("tags", ()))
        self.needs_save = bool(definition.get("needs_save", False))
        self.infeasible = bool(definition.get("infeasible", False))
        self.oracles = tuple(kind for kind in ORACLE_KINDS if self.definition.get("oracles", {}).get(kind))

    def __repr__(self) -> str:
        return f"JsonTask({self.id!r}, source={self.source!r})"

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        return sample_params(self.definition.get("params", {}), rng)

    def instruction(self, params: Mapping[str, Any]) -> str:
        return str(fill(self.instruction_template, params))

    def setup(self, ctx: TaskContext) -> None:
        run_setup(fill(self.definition.get("setup", []), ctx.params), ctx, self.assets_dir)

    def verify(self, ctx: TaskContext) -> VerifierResult:
        if "verifier" not in self.definition:
            return VerifierResult.failed(f"task {self.id!r} has no verifier")
        return evaluate_verifier(self.definition["verifier"], ctx)

    def _scripted(self, kind: str, params: Mapping[str, Any]) -> Policy | None:
        actions = self.definition.get("oracles", {}).get(kind)
        return ScriptedPolicy(fill(actions, params)) if actions else None

    def api_oracle(self, params: Mapping[str, Any]) -> Policy | None:
        return self._scripted("api", params)

    def gui_oracle(self, params: Mapping[str, Any]) -> Policy | None:
        return self._scripted("gui", params)

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        spec = self.definition.get("perturb")
        if spec is None:
            raise NotImplementedError(f"task {self.id!r} does not define perturb ({self.source})")
        name = spec["param"]
        wrong = dict(params)
        wrong[name] = perturbed_value(spec["value"], params[name], rng, params)
        return wrong


def _artifact(node: Mapping[str, Any], ctx: TaskContext) -> Any:
    """What a verifier leaf reads: a file's bytes, a command's ``ExecResult``, a folder listing, or a live
    app's state (``chrome`` / ``vlc``: the read-only ``ChromeTools`` / ``VlcTools`` call named there)."""
    params = ctx.params
    if "vlc" in node:
        try:
            return json.loads(ctx.client.call_api("VlcTools", node["vlc"], "{}", timeout=30.0))
        except GuestError as error:  # no player running, or it did not answer: the check fails, naming why
            raise ValueError(f"the player's state ({node['vlc']}) could not be read: {error}") from None
    if "chrome" in node:
        from ..apps.chrome.verify import read_state

        try:
            return read_state(ctx.client, node["chrome"])
        except GuestError as error:  # no browser running, or it did not answer: the check fails, naming why
            raise ValueError(f"the browser's state ({node['chrome']}) could not be read: {error}") from None
    if "file" in node:
        # Confined to the home: a verifier's result lands in info, so it must not read host files.
        return ctx.read_file(home_path(fill(node["file"], params), "file"))
    if "command" in node:
        return ctx.client.exec(fill(node["command"], params), shell=True, timeout=LIVE_COMMAND_TIMEOUT)
    folder = shell_path(home_path(fill(node["dir"], params), "dir"))
    listing = TREE_LISTING_COMMAND.format(path=folder)
    result = ctx.client.exec(
        f"if [ -d {folder} ]; then {listing}; else exit {_MISSING_DIR_EXIT}; fi",
        shell=True,
        timeout=LIVE_COMMAND_TIMEOUT,
    )
    return None if result.returncode == _MISSING_DIR_EXIT else result


def _label(node: Mapping[str, Any], index: int) -> str:
    if "label" in node:
        return str(node["label"])
    if "name" in node:
        return f"{index + 1}:{node['name']}"
    return f"{index + 1}:{next(iter(node))}"


def evaluate_verifier(node: Mapping[str, Any], ctx: TaskContext) -> VerifierResult:
    """Evaluate a verifier spec (``{"name", "args"}`` + file/command/dir/chrome, or all / any / not) on the desktop."""
    if "all" in node:
        return all_of({_label(child, i): evaluate_verifier(child, ctx) for i, child in enumerate(node["all"])})
    if "any" in node:
        return any_of({_label(child, i): evaluate_verifier(child, ctx) for i, child in enumerate(node["any"])})
    if "not" in node:
        return not_(evaluate_verifier(node["not"], ctx), name=_label(node["not"], 0))
    spec = get_verifier_spec(node["name"])
    try:
        artifact = _artifact(node, ctx)
    except ValueError as error:  # a filled path that leaves the home, or a browser that cannot be read
        return VerifierResult.failed(str(error))
    return spec.fn(artifact, **fill(node.get("args", {}), ctx.params))
