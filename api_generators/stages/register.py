"""Deduplication and registration: accepted methods -> a tool-class module, its tests, a registry entry.

Accepted functions that duplicate a registered method (same name and parameters in another class)
or an earlier accepted one are dropped. The rest become ``<out>/<module>.py`` and
``<out>/<module>_cases.py`` (the generated tests). With ``install``, the module is copied into
``desktop_gym/guest/apps/``, the cases next to the tests that run them, and the registry gains
the app's entry, so ``env.step("EditorTools.fn(...)")`` works and the prompt text and schemas
include the new methods.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from ..models import FunctionResult
from ..module_source import cases_module, tool_module
from ..targets import APPS_DIR, AppTarget
from .analyse import existing_method

REGISTRY_PATH = APPS_DIR / "registry.py"
CASES_DIR = Path(__file__).resolve().parents[2] / "tests" / "api_generators" / "generated"


class RegistrationError(RuntimeError):
    """The registry file does not have the shape the registration stage edits."""


@dataclass(frozen=True)
class Registration:
    """What the registration stage wrote."""

    module: Path
    cases: Path
    methods: tuple[str, ...]
    installed: bool


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


def format_source(path: Path) -> bool:
    """Format ``path`` with ruff (the house formatter) when it is installed; whether it ran."""
    ruff = shutil.which("ruff") or str(Path(sys.executable).with_name("ruff"))
    if not Path(ruff).exists():
        return False
    try:
        subprocess.run(
            [ruff, "format", "--quiet", str(path)], timeout=FORMAT_TIMEOUT_S, check=True, capture_output=True
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return True


def add_registry_entry(target: AppTarget, registry_path: Path = REGISTRY_PATH) -> bool:
    """Add ``target``'s import and ``TOOL_CLASSES`` entry to the registry; False if already there.

    The import goes where isort puts it; the entry goes last in the table.

    Raises:
        RegistrationError: the registry has no ``TOOL_CLASSES = {...}`` table to add to.
    """
    text = registry_path.read_text(encoding="utf-8")
    entry = f'    "{target.app}": {target.tool_class},\n'
    if entry in text:
        return False
    table = re.search(r"^TOOL_CLASSES: dict\[str, type\] = \{\n(?:    .*\n)*?\}", text, re.MULTILINE)
    if table is None:
        raise RegistrationError(f"{registry_path}: no 'TOOL_CLASSES: dict[str, type] = {{...}}' table to register in")
    text = text[: table.end() - 1] + entry + text[table.end() - 1 :]
    import_line = f"from .{target.module_name} import {target.tool_class}\n"
    if import_line not in text:
        imports = list(re.finditer(r"^from \.(\w+) import .*\n", text, re.MULTILINE))
        if not imports:
            raise RegistrationError(f"{registry_path}: no 'from .module import ...' lines to add the import to")
        after = next((m for m in imports if m.group(1) > target.module_name), None)
        at = after.start() if after is not None else imports[-1].end()
        text = text[:at] + import_line + text[at:]
    registry_path.write_text(text, encoding="utf-8")
    return True


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
    if install:
        shutil.copyfile(module, target.module_path)
        CASES_DIR.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(cases, CASES_DIR / cases.name)
        add_registry_entry(target)
    return Registration(module, cases, tuple(r.spec.name for r in accepted), install)
