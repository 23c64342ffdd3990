"""Deduplication and registration: accepted methods -> a tool-class module, its tests, its AppSpec entry.

Accepted functions that duplicate a registered method (same name and parameters in another class)
or an earlier accepted one are dropped. The rest become ``<out>/<module>.py`` and
``<out>/<module>_cases.py`` (the generated tests). With ``install``, the module becomes the app
folder's ``desktop_gym/apps/<app>/tools.py``, the cases go next to the tests that run them, and the
app's ``SPEC`` names the tool class (``tools="desktop_gym.apps.<app>.tools:Class"``), so
``env.step("EditorTools.fn(...)")`` works and the prompt text and schemas include the new methods.
"""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from desktop_gym.apps.spec import tools_entry_point
from desktop_gym.errors import RegistrationError

from ..models import FunctionResult
from ..module_source import cases_module, tool_module
from ..targets import AppTarget
from .analyse import existing_method

CASES_DIR = Path(__file__).resolve().parents[2] / "tests" / "api_generators" / "generated"


@dataclass(frozen=True)
class Registration:
    """What the registration stage wrote."""

    module: Path
    cases: Path
    methods: tuple[str, ...]
    installed: bool
    install_refused: str = ""  # why ``install`` left the installed module as it was


def deduplicate(target: AppTarget, results: list[FunctionResult]) -> list[FunctionResult]:
    """The accepted results that are new; the others are marked ``duplicate`` with the reason."""
    kept, seen = [], set()
    for result in results:
        if result.status != "accepted":
            continue
        duplicate = existing_method(target, result.spec)
        if duplicate or result.spec.name in seen:
            result.status = "duplicate"
            result.reason = f"dropped: {duplicate or 'an earlier accepted function'} already does this"
            continue
        seen.add(result.spec.name)
        kept.append(result)
    return kept


FORMAT_TIMEOUT_S = 30.0


# The house style, given outright: ruff would otherwise take the settings of any ruff.toml or
# pyproject.toml above the output folder or the cwd, and the same run would write other bytes.
HOUSE_FORMAT = ("--isolated", "--line-length", "120", "--target-version", "py310")


def format_source(path: Path) -> bool:
    """Format ``path`` with ruff in the house style when it is installed; whether it ran.

    The venv's own ruff is preferred, and no config file is read: the bytes depend only on the source.
    """
    venv_ruff = Path(sys.executable).with_name("ruff")
    ruff = str(venv_ruff) if venv_ruff.exists() else shutil.which("ruff")
    if ruff is None:
        return False
    try:
        source = path.read_bytes()
        formatted = subprocess.run(
            [ruff, "format", *HOUSE_FORMAT, "--quiet", "-"],
            input=source,
            timeout=FORMAT_TIMEOUT_S,
            check=True,
            capture_output=True,
            cwd=path.parent,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return False
    path.write_bytes(formatted)
    return True


def add_registry_entry(target: AppTarget, spec_path: Path | None = None) -> bool:
    """Name ``target``'s tool class in its app's spec; False if already there.

    The spec is ``AppSpec(key="<app>", ...)`` (the field written is ``tools="module:Class"``) or a
    spec builder's call with the key first, ``command_app("<app>", ...)`` or
    ``libreoffice_app("<app>", ...)`` (the field written is ``tools="Class"``, the class in the
    app's ``tools`` module).

    Raises:
        RegistrationError: the app table has no spec of ``target.app`` to add it to, or that spec
            already names another tool class.
    """
    spec_path = target.spec_path if spec_path is None else spec_path
    text = spec_path.read_text(encoding="utf-8")
    app = re.escape(target.app)
    key = re.search(rf'^( +)key="{app}",\n', text, re.MULTILINE)
    built = key is None and (key := re.search(rf'_app\(\n( +)"{app}",\n', text)) is not None
    if key is None:
        raise RegistrationError(f'{spec_path}: no AppSpec(key="{target.app}", ...) entry; add the app\'s AppSpec first')
    indent = key.group(1)
    close = re.compile(rf"^{indent[:-4]}\),?\n", re.MULTILINE).search(text, key.end())
    if close is None:
        raise RegistrationError(f"{spec_path}: the AppSpec of {target.app!r} does not end with a ')' line")
    entry = target.tools_entry_point
    block = text[key.end() : close.start()]
    named = re.search(rf'^{indent}tools="([^"]*)",\n', block, re.MULTILINE)
    if named is not None and tools_entry_point(target.app, named.group(1)) == entry:
        return False
    if named is not None or re.search(rf"^{indent}tools=", block, re.MULTILINE):
        raise RegistrationError(f"{spec_path}: the AppSpec of {target.app!r} already names another tool class")
    short = tools_entry_point(target.app, target.tool_class) == entry  # the class is in the app's tools module
    field = f'tools="{target.tool_class}"' if built and short else f'tools="{entry}"'
    text = text[: close.start()] + f"{indent}{field},\n" + text[close.start() :]
    spec_path.write_text(text, encoding="utf-8")
    return True


def public_methods(path: Path, tool_class: str) -> int | None:
    """How many public methods ``tool_class`` defines in the module at ``path`` (None: no such class/file)."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError):
        return None
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == tool_class:
            functions = (ast.FunctionDef, ast.AsyncFunctionDef)
            return sum(isinstance(item, functions) and not item.name.startswith("_") for item in node.body)
    return None


def _shrinking_install(target: AppTarget, module: Path) -> str:
    """Why installing ``module`` would lose methods of the installed one, or ""."""
    installed = public_methods(target.module_path, target.tool_class)
    new = public_methods(module, target.tool_class) or 0
    if installed is None or new >= installed:
        return ""
    return (
        f"the installed {target.tool_class} ({target.module_path}) has {installed} methods and this run's has {new}: "
        f"kept the installed one (the new module is in {module}; merge it by hand)"
    )


def register(
    target: AppTarget, accepted: list[FunctionResult], out_dir: Path, doc: str, install: bool = False
) -> Registration:
    """Write the module and its test cases to ``out_dir`` (and install them with ``install``)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    module = out_dir / f"{target.module_name}.py"
    cases = out_dir / f"{target.module_name}_cases.py"
    module.write_text(tool_module(target, [r.code for r in accepted], doc), encoding="utf-8")
    cases.write_text(
        f'"""Tests of {target.tool_class}, generated with it (test_generated_{target.module_name}.py runs them)."""\n\n'
        + cases_module([r.tests for r in accepted]),
        encoding="utf-8",
    )
    for path in (module, cases):
        format_source(path)
    refused = _shrinking_install(target, module) if install else ""
    if refused:
        return Registration(module, cases, tuple(r.spec.name for r in accepted), False, refused)
    if install:
        shutil.copyfile(module, target.module_path)
        CASES_DIR.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(cases, CASES_DIR / cases.name)
        add_registry_entry(target)
    return Registration(module, cases, tuple(r.spec.name for r in accepted), install)
