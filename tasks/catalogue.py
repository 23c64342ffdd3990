"""The built-in tasks as data: task id -> entry point, so ids register without importing any family.

``catalogue.json`` is generated from the code (``python -m desktop_gym.tasks.catalogue --write``);
a test fails when it is stale. ``import desktop_gym.tasks`` reads it (a few ms) and registers each
id by entry point; a family module or task file is imported on first ``get_task``/``make``.
"""

from __future__ import annotations

import argparse
import functools
import importlib
import json
import sys
from pathlib import Path

from .registry import JSON_ENTRY_PREFIX, TASKS_DIR, register_entry_point

CATALOGUE_PATH = TASKS_DIR / "catalogue.json"
SUITES_DIR = TASKS_DIR / "suites"
#: Modules whose import registers the built-in Python tasks.
PYTHON_TASK_MODULES = ("desktop_gym.tasks.starter", "desktop_gym.tasks.families")


@functools.cache
def read_catalogue() -> dict[str, str]:
    """The committed catalogue: ``{task id: entry point}``."""
    return json.loads(CATALOGUE_PATH.read_text())


def register_builtin() -> None:
    """Register every built-in task id by entry point (idempotent)."""
    for task_id, entry_point in read_catalogue().items():
        try:
            register_entry_point(task_id, entry_point)
        except ValueError:
            pass  # imported (and registered for real) already


def json_entries(suites_dir: Path = SUITES_DIR) -> dict[str, str]:
    """``{id: "json:<file>"}`` for every task file of the built-in suites (ids read, not validated)."""
    entries: dict[str, str] = {}
    for path in sorted(suites_dir.rglob("*.json")):
        if "assets" in path.relative_to(suites_dir).parts:
            continue
        task_id = json.loads(path.read_text()).get("id")
        if isinstance(task_id, str):
            entries[task_id] = JSON_ENTRY_PREFIX + str(path.relative_to(TASKS_DIR))
    return entries


def build_catalogue() -> dict[str, str]:
    """Import every built-in task module and list where each task lives (sorted by id)."""
    from . import registry
    from .json_task import JsonTask

    for module in PYTHON_TASK_MODULES:
        importlib.import_module(module)
    entries = json_entries()
    for task_id, factory in registry._TASKS.items():
        task_class = getattr(factory, "task_class", None)
        if task_id in entries or task_class is None or task_class is JsonTask:
            continue
        if task_class.__module__.split(".")[:2] == ["desktop_gym", "tasks"]:
            entries[task_id] = f"{task_class.__module__}:{task_class.__qualname__}"
    return dict(sorted(entries.items()))


def main(argv: list[str] | None = None) -> int:
    """``--write`` regenerates catalogue.json; ``--check`` exits 1 when it is stale."""
    parser = argparse.ArgumentParser(prog="python -m desktop_gym.tasks.catalogue", description=main.__doc__)
    parser.add_argument("--write", action="store_true", help="write tasks/catalogue.json")
    args = parser.parse_args(argv)
    built = build_catalogue()
    if args.write:
        CATALOGUE_PATH.write_text(json.dumps(built, indent=1) + "\n")
        print(f"wrote {len(built)} tasks to {CATALOGUE_PATH}")
        return 0
    stale = built != read_catalogue()
    print(f"{CATALOGUE_PATH}: {'stale, run with --write' if stale else 'up to date'} ({len(built)} tasks)")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
