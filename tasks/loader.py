"""Loading JSON task files: validate against the published schema, then check what a schema cannot.

Errors are ``TaskFileError`` naming the file and the JSON path of the field at fault::

    tasks/suites/calc/x.json: setup[2].app: 'calcc' is not one of ['calc', 'writer', ...]

Beyond the schema: verifier names exist and their arguments fit the verifier's signature, a file
verifier reads a ``file``, a live one a ``command``/``dir`` and a browser one its ``chrome`` call,
templates only name defined parameters (a ``template`` parameter only earlier ones), assets exist,
opened apps are declared, an ``open_tab`` follows the browser's launch, and the perturbed parameter
is one an oracle uses.
"""

from __future__ import annotations

import difflib
import functools
import inspect
import json
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from ..apps.spec import launchable_apps
from ..errors import TaskFileError  # noqa: F401 - re-exported from its old home
from ..verifiers import BROWSER_READS, MEDIA_PLAYER_READS, UnknownVerifierError, get_verifier_spec, list_verifiers
from .json_params import TemplateError, check_sampler, iter_strings, template_fields
from .json_task import DEFAULT_ASSETS_DIR, JsonTask
from .limits import (
    MAX_JSON_DEPTH,
    MAX_VERIFIER_DEPTH,
    PATH_FIELDS,
    expansion_problem,
    home_path,
    mode_problem,
    read_task_json,
    sampler_problem,
    too_deep,
    verifier_too_deep,
)
from .registry import list_tasks, register_task
from .setup_steps import asset_path

SCHEMA_PATH = Path(__file__).resolve().parent / "schema" / "task.schema.json"
SUITES_DIR = Path(__file__).resolve().parent / "suites"


def task_schema() -> dict[str, Any]:
    """The JSON Schema of task files: the published file, its ``app`` enum read from the app table.

    The file's enum lists the built-in apps (a test checks it); an app added with ``register_app``
    joins the enum here, so adding an app needs no schema edit.
    """
    schema = json.loads(_published_schema_text())
    schema["$defs"]["app"]["enum"] = list(launchable_apps())
    return schema


@functools.cache
def _published_schema_text() -> str:
    return SCHEMA_PATH.read_text()


def _validator() -> Any:
    return _validator_for(launchable_apps())


@functools.cache
def _validator_for(apps: tuple[str, ...]) -> Any:  # one validator per app table (apps: the cache key)
    import jsonschema

    return jsonschema.Draft202012Validator(task_schema())


def json_path(parts: Any) -> str:
    """``['setup', 2, 'app']`` -> ``setup[2].app``."""
    text = ""
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def _most_useful(error: Any) -> tuple[list[Any], str]:
    """The path and message of the error a task author needs, looking inside anyOf / oneOf."""
    custom = error.schema.get("x-error") if isinstance(error.schema, Mapping) else None
    if error.validator in ("anyOf", "oneOf", "not") and custom:
        # Errors at the same depth only say "this branch does not apply"; deeper ones say what is wrong inside.
        depth = len(error.absolute_path)
        branch_only = ("type", "required", "additionalProperties", "minProperties", "maxProperties")
        inner = [e for e in error.context if len(e.absolute_path) > depth or e.validator not in branch_only]
        if inner and error.validator != "not":
            return _most_useful(max(inner, key=lambda e: len(e.absolute_path)))
        return list(error.absolute_path), custom
    return list(error.absolute_path), error.message


def _schema_error(data: Any, source: str) -> TaskFileError | None:
    errors = sorted(_validator().iter_errors(data), key=lambda e: (len(e.absolute_path), json_path(e.absolute_path)))
    if not errors:
        return None
    path, message = _most_useful(errors[0])
    return TaskFileError(source, json_path(path) or "top level", message)


def _verifier_leaves(node: Mapping[str, Any], path: str) -> Iterator[tuple[Mapping[str, Any], str]]:
    for key in ("all", "any"):
        for index, child in enumerate(node.get(key, [])):
            yield from _verifier_leaves(child, f"{path}.{key}[{index}]")
    if "not" in node:
        yield from _verifier_leaves(node["not"], f"{path}.not")
    if "name" in node:
        yield node, path


#: Leaf keys of verifiers that read a live app through one read-only tool call: key -> verifier -> call.
APP_READS = {
    "chrome": BROWSER_READS,
    # list_tracks takes the track kind, which a leaf cannot give: vlc_track is for task classes only.
    "vlc": {name: call for name, call in MEDIA_PLAYER_READS.items() if call != "list_tracks"},
}
APP_READ_NAMES = {"chrome": "browser", "vlc": "player"}


def _check_verifier_leaf(leaf: Mapping[str, Any], path: str) -> str | None:
    try:
        spec = get_verifier_spec(leaf["name"])
    except UnknownVerifierError:
        close = difflib.get_close_matches(leaf["name"], list_verifiers(), n=1)
        hint = f"did you mean {close[0]!r}?" if close else f"registered: {', '.join(list_verifiers())}"
        return f"{path}.name: no verifier named {leaf['name']!r}; {hint}"
    for app, reads in APP_READS.items():
        what = APP_READ_NAMES[app]
        if spec.name in reads and leaf.get(app) != reads[spec.name]:
            return f"{path}: verifier {spec.name!r} reads the {what}: give '{app}': {reads[spec.name]!r}"
        if spec.name not in reads and app in leaf:
            return f"{path}.{app}: only the {what} verifiers ({', '.join(reads)}) read the {what}"
    reads_app = any(app in leaf for app in APP_READS)
    if not reads_app and spec.reads == "file" and "file" not in leaf:
        return f"{path}: verifier {spec.name!r} reads a saved file: give 'file', not 'command'/'dir'"
    if not reads_app and spec.reads == "live" and "file" in leaf:
        return f"{path}: verifier {spec.name!r} reads live output: give 'command' (or 'dir'), not 'file'"
    parameters = list(inspect.signature(spec.fn).parameters.values())[1:]  # the first is the artifact
    known = {p.name for p in parameters}
    args = leaf.get("args", {})
    for name in args:
        if name not in known:
            accepted = ", ".join(sorted(known))
            return f"{path}.args.{name}: verifier {spec.name!r} has no argument {name!r} (arguments: {accepted})"
    missing = [p.name for p in parameters if p.default is inspect.Parameter.empty and p.name not in args]
    if missing:
        return f"{path}.args: verifier {spec.name!r} needs argument(s) {', '.join(missing)}"
    return None


def _semantic_problem(data: Mapping[str, Any], assets_dir: Path) -> str | None:
    """The first problem the schema cannot see, as ``<json path>: <message>``, or None."""
    params = data.get("params", {})
    defined: list[str] = []
    bounds: dict[str, int] = {}  # how long each parameter can get, to bound template expansion
    for name, spec in params.items():
        problem = check_sampler(spec) or sampler_problem(spec, bounds, name)
        if problem:
            return f"params.{name}: {problem}"
        if isinstance(spec, Mapping) and "template" in spec:
            try:
                fields = template_fields(spec["template"])
            except TemplateError as error:
                return f"params.{name}.template: {error}"
            unknown = [field for field in fields if field not in defined]
            if unknown:
                return f"params.{name}.template: unknown parameter {unknown[0]!r} (only parameters above it: {defined})"
        defined.append(name)
    perturb_value = data.get("perturb", {}).get("value")
    templated = {
        "instruction": data["instruction"],
        "setup": data.get("setup", []),
        "verifier": data.get("verifier", {}),
        "oracles": data.get("oracles", {}),
        "perturb.value": perturb_value if isinstance(perturb_value, str) else "",
    }
    for root, value in templated.items():
        for path, text in iter_strings(value, root if not isinstance(value, str) else ""):
            location = path or root
            if root.startswith("verifier") and (path.endswith(".name") or path.endswith(".label")):
                continue
            try:
                fields = template_fields(text)
            except TemplateError as error:
                return f"{location}: {error}"
            unknown = [f for f in fields if f not in params]
            if unknown:
                return f"{location}: unknown parameter {unknown[0]!r} (defined: {', '.join(params) or 'none'})"
            problem = expansion_problem(text, bounds)
            if problem:
                return f"{location}: {problem}"
    for index, step in enumerate(data.get("setup", [])):
        problem = _step_path_problem(step, f"setup[{index}]")
        if problem:
            return problem
        if "asset" in step:
            try:
                asset_path(assets_dir, step["asset"])
            except (FileNotFoundError, ValueError) as error:
                return f"setup[{index}].asset: {error}"
        if step["type"] in ("open", "launch") and step["app"] not in data["apps"]:
            return f"setup[{index}].app: {step['app']!r} is started here but not listed in apps {data['apps']}"
        if step["type"] == "open_tab" and not _browser_started(data["setup"][:index]):
            return f"setup[{index}]: open_tab needs the browser: an earlier step must launch (or open) app 'chrome'"
        if step["type"] == "wait_window" and not template_fields(step["title"]):
            try:
                re.compile(step["title"])
            except re.error as error:
                return f"setup[{index}].title: not a regular expression: {error}"
    for leaf, path in _verifier_leaves(data.get("verifier", {}), "verifier"):
        problem = _check_verifier_leaf(leaf, path) or _static_home_path(leaf, ("file", "dir"), path)
        if problem:
            return problem
    if "perturb" in data:
        name = data["perturb"]["param"]
        if name not in params:
            return f"perturb.param: unknown parameter {name!r} (defined: {', '.join(params) or 'none'})"
        used = {f for _, text in iter_strings(data.get("oracles", {})) for f in template_fields(text)}
        if name not in used:
            return f"perturb.param: no oracle uses {name!r}, so perturbing it cannot change what the oracle does"
    return None


def _browser_started(steps: list[Mapping[str, Any]]) -> bool:
    """Whether one of ``steps`` launches (or opens a file in) the browser, app ``chrome``."""
    return any(step["type"] in ("open", "launch") and step.get("app") == "chrome" for step in steps)


def _static_home_path(node: Mapping[str, Any], fields: tuple[str, ...], where: str) -> str | None:
    """A path field that is not a template must already be inside the home (templated ones are checked when filled)."""
    for field in fields:
        value = node.get(field)
        if isinstance(value, str) and not template_fields(value):
            try:
                home_path(value, field)
            except ValueError as error:
                return f"{where}.{error}"
    return None


def _step_path_problem(step: Mapping[str, Any], where: str) -> str | None:
    problem = _static_home_path(step, PATH_FIELDS.get(step["type"], ()), where)
    if problem:
        return problem
    if step["type"] == "put_file":
        problem = mode_problem(step.get("mode"))
        if problem:
            return f"{where}.mode: {problem}"
    return None


def validate_definition(data: Any, source: str, assets_dir: Path | None = None) -> dict[str, Any]:
    """Check a parsed task definition; return it unchanged.

    Raises:
        TaskFileError: the first problem found, naming ``source`` and the JSON path.
    """
    # Depth first: the schema validator and the checks below recurse through the tree.
    if isinstance(data, Mapping):
        deep = verifier_too_deep(data.get("verifier"))
        if deep is not None:
            raise TaskFileError(source, deep, f"all/any/not nest more than {MAX_VERIFIER_DEPTH} levels deep")
    deep = too_deep(data, MAX_JSON_DEPTH)
    if deep is not None:
        raise TaskFileError(source, deep, f"the JSON is nested more than {MAX_JSON_DEPTH} levels deep")
    error = _schema_error(data, source)
    if error is not None:
        raise error
    problem = _semantic_problem(data, assets_dir or DEFAULT_ASSETS_DIR)
    if problem:
        location, _, message = problem.partition(": ")
        raise TaskFileError(source, location, message)
    return data


def _display(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def load_task_file(path: str | Path, assets_dir: str | Path | None = None) -> JsonTask:
    """Read, validate and build one JSON task (not registered).

    Raises:
        TaskFileError: unreadable JSON or an invalid task, naming the file and field.
    """
    path = Path(path)
    source = _display(path)
    data = read_task_json(path, source)
    assets = Path(assets_dir) if assets_dir is not None else DEFAULT_ASSETS_DIR
    return JsonTask(validate_definition(data, source, assets), source=source, assets_dir=assets)


def load_suite_dir(path: str | Path, assets_dir: str | Path | None = None, register: bool = True) -> list[JsonTask]:
    """Load every ``**/*.json`` task under ``path`` (sorted) and register each one.

    Args:
        path: the suite folder.
        assets_dir: where ``put_file`` assets live; ``<path>/assets`` when that exists, else the
            built-in ``tasks/assets``.
        register: register the tasks (``register_task``) so ``gymnasium.make`` finds them.

    Raises:
        TaskFileError: the first invalid file, or two files defining the same id.
    """
    root = Path(path)
    if assets_dir is None:
        assets_dir = root / "assets" if (root / "assets").is_dir() else DEFAULT_ASSETS_DIR
    files = sorted(p for p in root.rglob("*.json") if Path(assets_dir).resolve() not in p.resolve().parents)
    tasks: list[JsonTask] = []
    seen: dict[str, str] = {}
    for file in files:
        task = load_task_file(file, assets_dir)
        if task.id in seen:
            raise TaskFileError(task.source, "id", f"task id {task.id!r} is also defined in {seen[task.id]}")
        seen[task.id] = task.source
        tasks.append(task)
    if register:
        taken = set(list_tasks())
        for task in tasks:
            if task.id in taken:  # a task file must not replace a built-in (or an earlier suite's) task
                raise TaskFileError(task.source, "id", f"task id {task.id!r} is already registered")
        for task in tasks:
            try:
                register_task(
                    task.id,
                    JsonTask,
                    {"definition": task.definition, "source": task.source, "assets_dir": task.assets_dir},
                )
            except ValueError as error:  # the id is taken (by a built-in task or an earlier suite)
                raise TaskFileError(task.source, "id", str(error)) from None
    return tasks
