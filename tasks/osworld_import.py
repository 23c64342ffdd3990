"""Import OSWorld-format task files as desktop-gym JSON tasks, with a report of what did not map.

Config steps map to setup steps (download -> put_file from a local cache, open, launch,
execute/command -> run, activate_window -> wait_window; fixed sleeps are dropped because every
setup step waits on readiness; the browser's launch and tabs -> ``osworld_chrome``). Evaluator
metrics map through ``osworld_evaluators.METRICS``; a task that needs a live website is
unsupported (``osworld_chrome.internet_need``).
Nothing is dropped silently: a check or step without an equivalent is listed in the report and in
the task's ``source.unsupported``, and a task with an unmapped check is only written with
``allow_partial``.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import osworld_media, osworld_metrics_office, osworld_tables  # noqa: F401 - they add their metrics to METRICS
from .osworld_chrome import browser_config, internet_need, offline_hosts  # it adds the browser metrics to METRICS
from .osworld_evaluators import METRICS, MissingAsset, Unsupported, find_cached, guest_path
from .osworld_postconfig import GUI_DRIVERS, postconfig_nodes

APP_BY_EXTENSION = {
    **dict.fromkeys(("xlsx", "xls", "ods", "csv"), "calc"),
    **dict.fromkeys(("docx", "doc", "odt", "rtf"), "writer"),
    **dict.fromkeys(("pptx", "ppt", "odp"), "impress"),
    **dict.fromkeys(("txt", "md", "py", "json", "log", "sh"), "editor"),
    **dict.fromkeys(("png", "jpg", "jpeg", "xcf", "bmp", "gif", "tif", "tiff"), "gimp"),
    **dict.fromkeys(("mp4", "mkv", "webm", "avi", "mov", "mp3", "wav", "ogg", "m3u"), "vlc"),
}
APP_BY_PROGRAM = {
    "gnome-terminal": "terminal",
    "xterm": "terminal",
    "gedit": "editor",
    "mousepad": "editor",
    "gimp": "gimp",
    "vlc": "vlc",
}
#: Apps a launch opens a file in (its first argument that is not a flag).
OPENS_FILE = ("editor", "gimp", "vlc")
LIBREOFFICE_FLAGS = {"--calc": "calc", "--writer": "writer", "--impress": "impress"}
DEFAULT_MAX_STEPS = 30


@dataclass
class ImportReport:
    """What happened to one OSWorld task.

    Attributes:
        status: ``ok`` (everything mapped), ``partial`` (some checks or steps did not map),
            ``unsupported`` (no check mapped, or setup cannot run) or ``error``.
    """

    source: str
    osworld_id: str = ""
    task_id: str | None = None
    status: str = "ok"
    mapped: list[str] = field(default_factory=list)
    unsupported: list[str] = field(default_factory=list)
    missing_assets: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    task: dict[str, Any] | None = None
    assets: dict[str, Path] = field(default_factory=dict)
    written: Path | None = None

    def add_unsupported(self, where: str, error: Exception) -> None:
        """Record that ``where`` did not map because of ``error`` (an ``Unsupported`` or a missing key)."""
        item = f"{where}: {error if isinstance(error, Unsupported) else f'missing parameter {error}'}"
        self.unsupported.append(item)
        if isinstance(error, MissingAsset):
            self.missing_assets.append(item)

    def describe(self) -> str:
        """A few lines for people: status, what mapped, what did not."""
        lines = [
            f"{self.source}: {self.status.upper()} -> {self.task_id or '-'}"
            + (f" ({self.written})" if self.written else "")
        ]
        lines += [f"  mapped: {item}" for item in self.mapped]
        lines += [f"  UNSUPPORTED: {item}" for item in self.unsupported]
        lines += [f"  note: {item}" for item in self.notes]
        return "\n".join(lines)


def _command_text(command: Any) -> str:
    text = command if isinstance(command, str) else shlex.join(str(part) for part in command or [])
    return text.replace("/home/user/", "$HOME/")


def _app_for_file(path: str) -> str:
    extension = path.rsplit(".", 1)[-1].lower() if "." in path.rsplit("/", 1)[-1] else ""
    if extension not in APP_BY_EXTENSION:
        raise Unsupported(f"no app opens .{extension or '(no extension)'} files here")
    return APP_BY_EXTENSION[extension]


def _launch_step(command: Any) -> dict[str, Any]:
    argv = shlex.split(command) if isinstance(command, str) else [str(part) for part in command or []]
    if not argv:
        raise Unsupported("launch with an empty command")
    program = argv[0].rsplit("/", 1)[-1]
    files = [arg for arg in argv[1:] if not arg.startswith("-")]
    if program in ("libreoffice", "soffice"):
        app = next((LIBREOFFICE_FLAGS[a] for a in argv[1:] if a in LIBREOFFICE_FLAGS), None)
        if files:
            return {"type": "open", "app": app or _app_for_file(files[0]), "path": guest_path(files[0])}
        if app is None:
            raise Unsupported(f"launch {shlex.join(argv)}: which LibreOffice module is not said")
        return {"type": "launch", "app": app}
    if program in APP_BY_PROGRAM:
        app = APP_BY_PROGRAM[program]
        if files and app in OPENS_FILE:
            return {"type": "open", "app": app, "path": guest_path(files[0])}
        return {"type": "launch", "app": app}
    known = "calc, writer, impress, " + ", ".join(dict.fromkeys(APP_BY_PROGRAM.values()))
    raise Unsupported(f"launch {program!r}: no equivalent app (apps: {known})")


_PYAUTOGUI_CALL = re.compile(r"pyautogui\.(\w+)\(([^()]*)\)")
FOCUS_CLICK = re.compile(r"960\s*,\s*540")  # the centre of OSWorld's screen; any other click is an action
_TERMINAL_HOTKEY = re.compile(r"""^['"]ctrl['"]\s*,\s*['"]alt['"]\s*,\s*['"]t['"]$""")


def _gui_setup_step(text: str) -> dict[str, Any] | None:
    """What a setup command that drives the GUI with pyautogui amounts to here.

    Only two shapes are understood: clicks at the centre of OSWorld's 1920x1080 screen (to focus
    the app it just opened, which our setup does by activating the window) -> None, and the terminal hotkey
    (Ctrl+Alt+T, after optional clicks) -> a terminal launch. Typing, scrolling or pressing keys
    in the app would change the task's starting state, so those stay unsupported.

    Raises:
        Unsupported: anything else.
    """
    calls = _PYAUTOGUI_CALL.findall(text)
    kinds = ["focus" if name == "click" and FOCUS_CLICK.fullmatch(args.strip()) else name for name, args in calls]
    if calls and set(kinds) <= {"focus"}:
        return None
    if (
        kinds
        and kinds[-1] == "hotkey"
        and _TERMINAL_HOTKEY.match(calls[-1][1].strip())
        and set(kinds[:-1]) <= {"focus"}
    ):
        return {"type": "launch", "app": "terminal"}
    raise Unsupported(f"the command drives the GUI ({text[:80]!r}); setup may only click to focus or open a terminal")


def _is_terminal_window(params: Mapping[str, Any], steps: Sequence[Mapping[str, Any]]) -> bool:
    """An ``activate_window`` for GNOME Terminal (title "Terminal") after our setup launched a terminal,
    whose window has another title (xterm shows the shell's)."""
    name = str(params.get("window_name", "")).strip().lower()
    launched = any(step.get("type") == "launch" and step.get("app") == "terminal" for step in steps)
    return name in ("terminal", "gnome-terminal") and launched


def _config_steps(
    config: Sequence[Mapping[str, Any]], cache_dir: Path, prefix: str, report: ImportReport
) -> list[dict[str, Any]]:
    steps: list[dict[str, Any]] = []
    for index, item in enumerate(config):
        kind, params = item.get("type"), item.get("parameters", {})
        where = f"config[{index}] ({kind})"
        try:
            browser = browser_config(kind, params, steps)
            if browser is not None:
                steps += browser[0]
                report.notes += [f"{where}: {browser[1]}"] if browser[1] else []
            elif kind == "download":
                for file in params.get("files", []):
                    cached = find_cached(cache_dir, str(file.get("path", "")), str(file.get("url", "")))
                    name = f"{prefix}/{cached.name}"
                    report.assets[name] = cached
                    steps.append({"type": "put_file", "path": guest_path(file["path"]), "asset": name})
            elif kind == "open":
                path = guest_path(params["path"])
                steps.append({"type": "open", "app": _app_for_file(path), "path": path})
            elif kind == "launch":
                steps.append(_launch_step(params.get("command")))
            elif kind in ("execute", "command"):
                text = _command_text(params.get("command"))
                if any(driver in text for driver in GUI_DRIVERS):
                    command = params.get("command")
                    source = command if isinstance(command, str) else " ".join(str(part) for part in command or [])
                    step = _gui_setup_step(source)  # the Python source as run, not shell-quoted
                    if step is None:
                        report.notes.append(f"{where}: a click to focus the window dropped; setup focuses the app")
                        report.mapped.append(where)
                        continue
                    steps.append(step)
                else:
                    steps.append({"type": "run", "command": text, "timeout": 60})
            elif kind == "sleep":
                report.notes.append(
                    f"{where}: fixed sleep of {params.get('seconds')}s dropped; setup steps wait on readiness"
                )
                continue
            elif kind == "activate_window" and _is_terminal_window(params, steps):
                report.notes.append(f"{where}: GNOME Terminal's window title dropped; launch waits for our terminal")
            elif kind == "activate_window":
                if params.get("by_class"):
                    raise Unsupported("activate_window by window class; only titles are matched here")
                name = re.escape(str(params["window_name"]))
                steps.append(
                    {"type": "wait_window", "title": f"^{name}$" if params.get("strict") else name, "activate": True}
                )
            else:
                raise Unsupported(f"config step type {kind!r} has no equivalent")
            report.mapped.append(where)
        except (Unsupported, KeyError) as error:
            report.add_unsupported(where, error)
    return steps


def escape_braces(value: Any) -> Any:
    """OSWorld text as our templates' literal text: ``{`` -> ``{{`` in every string (keys too)."""
    if isinstance(value, str):
        return value.replace("{", "{{").replace("}", "}}")
    if isinstance(value, Mapping):
        return {escape_braces(key): escape_braces(item) for key, item in value.items()}
    if isinstance(value, list):
        return [escape_braces(item) for item in value]
    return value


def _as_list(value: Any, count: int) -> list[Any]:
    return list(value) if isinstance(value, list) else [value] * count


def _verifier(evaluator: Mapping[str, Any], cache_dir: Path, report: ImportReport) -> dict[str, Any] | None:
    funcs = evaluator.get("func")
    funcs = funcs if isinstance(funcs, list) else [funcs]
    results = _as_list(evaluator.get("result", {}), len(funcs))
    expecteds = _as_list(evaluator.get("expected", {}), len(funcs))
    options = _as_list(evaluator.get("options", {}), len(funcs))
    nodes = []
    for index, func in enumerate(funcs):
        where = f"evaluator.func[{index}] ({func})" if len(funcs) > 1 else f"evaluator.func ({func})"
        try:
            if func not in METRICS:
                raise Unsupported(f"metric {func!r} has no equivalent (supported: {', '.join(sorted(METRICS))})")
            nodes.append(METRICS[func](results[index] or {}, expecteds[index] or {}, options[index] or {}, cache_dir))
            report.mapped.append(where)
        except Unsupported as error:
            report.add_unsupported(where, error)
    before = postconfig_nodes(evaluator.get("postconfig", []) or [], cache_dir, report)
    if not nodes:
        return None
    if len(nodes) == 1:
        checks = nodes[0]
    else:
        checks = {"all": nodes} if evaluator.get("conj", "and") == "and" else {"any": nodes}
    return {"all": [*before, checks]} if before else checks


def convert_osworld(
    data: Mapping[str, Any], cache_dir: Path, suite: str = "osworld", source: str = "<memory>"
) -> ImportReport:
    """Map one OSWorld task (parsed JSON) to a desktop-gym task definition (``report.task``)."""
    osworld_id = str(data.get("id", ""))
    report = ImportReport(source=source, osworld_id=osworld_id)
    if not osworld_id or "instruction" not in data or not isinstance(data.get("evaluator"), Mapping):
        report.status = "error"
        report.unsupported.append("not an OSWorld task: id, instruction and evaluator are required")
        return report
    snapshot = re.sub(r"[^A-Za-z0-9_]", "_", str(data.get("snapshot", "task")))
    short = re.sub(r"[^A-Za-z0-9]", "", osworld_id)[:8] or "task"
    report.task_id = f"{suite}.{snapshot}_{short}".lower()
    setup = _config_steps(data.get("config", []), Path(cache_dir), short, report)
    evaluator = data["evaluator"]
    infeasible = evaluator.get("func") == "infeasible"
    verifier = None if infeasible else _verifier(evaluator, Path(cache_dir), report)
    need = internet_need(data)
    if need is not None:  # first, so that it is the reason a report gives
        report.unsupported.insert(0, f"internet: {need}")
    elif offline_hosts(data):
        report.notes.append(
            f"setup: the pages it opens on {', '.join(offline_hosts(data))} show the desktop's offline page; "
            "the check reads no page's content"
        )
    apps = sorted({step["app"] for step in setup if step["type"] in ("open", "launch")})
    reads_file = '"file"' in json.dumps(verifier or {})
    task: dict[str, Any] = {
        "id": report.task_id,
        "instruction": escape_braces(str(data["instruction"])),
        "apps": apps,
        "max_steps": DEFAULT_MAX_STEPS,
        "setup": escape_braces(setup),
        "tags": ["osworld", snapshot],
        "needs_save": bool(reads_file and apps and set(apps) & {"calc", "writer", "impress", "editor"}),
        "source": {"osworld_id": osworld_id, "file": source, "unsupported": report.unsupported, "notes": report.notes},
    }
    if infeasible:
        task["infeasible"] = True
        report.mapped.append("evaluator.func (infeasible)")
    elif verifier is not None:
        task["verifier"] = escape_braces(verifier)
    report.task = task
    cannot_run = any(item.startswith(("config[", "internet:")) for item in report.unsupported)
    if (verifier is None and not infeasible) or cannot_run:
        report.status = "unsupported"
    elif report.unsupported:
        report.status = "partial"
    return report


def import_osworld_file(
    path: Path, cache_dir: Path, out_dir: Path | None = None, suite: str = "osworld", allow_partial: bool = False
) -> ImportReport:
    """Convert one OSWorld file; with ``out_dir``, write ``<out_dir>/<name>.json`` and its assets.

    The task is validated by our loader before it is written; ``partial`` tasks are written only
    with ``allow_partial``, ``unsupported`` ones never.
    """
    from .loader import TaskFileError, validate_definition

    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as error:
        return ImportReport(source=str(path), status="error", unsupported=[f"cannot read the file: {error}"])
    report = convert_osworld(data, Path(cache_dir), suite, str(path))
    if out_dir is None or report.task is None or report.status in ("unsupported", "error"):
        return report
    if report.status == "partial" and not allow_partial:
        report.notes.append("not written: some checks did not map (use --allow-partial to write it anyway)")
        return report
    assets_dir = Path(out_dir) / "assets"
    for name, cached in report.assets.items():
        target = assets_dir / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(cached.read_bytes())
    Path(out_dir).mkdir(parents=True, exist_ok=True)
    target = Path(out_dir) / f"{report.task_id.split('.', 1)[1]}.json"
    try:
        validate_definition(report.task, str(target), assets_dir)
    except TaskFileError as error:
        report.status = "error"
        report.unsupported.append(f"the converted task is invalid: {error}")
        return report
    target.write_text(json.dumps(report.task, indent=2) + "\n")
    report.written = target
    return report


def import_osworld_files(
    paths: Sequence[Path],
    cache_dir: Path,
    out_dir: Path | None = None,
    suite: str = "osworld",
    allow_partial: bool = False,
) -> list[ImportReport]:
    """``import_osworld_file`` for each path, in order."""
    return [import_osworld_file(p, cache_dir, out_dir, suite, allow_partial) for p in paths]
