"""Which tasks need proving: a fingerprint per task and the committed record of proven ones.

Proving all of the catalogue on a real desktop takes ~20 minutes on a 2-core machine, so CI proves
every task that is new or changed since it was last proven in full, plus a rotating sample of the
rest (``desktop-gym tasks check --changed --sample N``). A task's fingerprint is the hash of the
files that define it: for a class, the source files of the class and of its bases inside the task
package (a family base carries shared setup and verifiers); for a task file, the file itself and
its assets; for a mined task (one line of a ``.jsonl`` shard), its definition. Code outside those
files (the verifiers library, the apps' APIs) is covered by the rotating sample and by the unit tests.
``tasks check --record`` writes the fingerprints of the tasks it proved into ``proven.json`` next to
the catalogue; commit it after a full proof.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from ..errors import TaskError

RECORD_PATH = Path(__file__).resolve().parent / "proven.json"
RECORD_VARIABLE = "DESKTOP_GYM_PROOF_RECORD"  # another record file (tests, a fork's CI)
_TASK_PACKAGE = Path(__file__).resolve().parent
_FRAMEWORK_MODULES = frozenset({"desktop_gym.tasks.base", "desktop_gym.tasks.json_task", "builtins"})
_MAX_ASSET_BYTES = 64 * 1024 * 1024  # a task's assets hashed at most (a bigger set is hashed by name and size)


def task_fingerprint(task_id: str) -> str:
    """A short hash of the files that define ``task_id`` (see the module docstring)."""
    from .registry import get_task, task_class_of

    digest = hashlib.sha256(task_id.encode())
    cls = task_class_of(task_id)
    from .json_task import JsonTask

    if isinstance(cls, type) and issubclass(cls, JsonTask):
        task = get_task(task_id)
        if "#" in str(task.source):  # a mined definition (``shard#id``): its own line, not the whole shard
            digest.update(json.dumps(task.definition, sort_keys=True).encode())  # type: ignore[attr-defined]
            return digest.hexdigest()[:16]
    for path in _defining_files(task_id, cls, get_task):
        resolved = path.resolve()
        # The name inside the task package, so a clone anywhere gives the same fingerprint.
        shown = resolved.relative_to(_TASK_PACKAGE) if _TASK_PACKAGE in resolved.parents else Path(resolved.name)
        digest.update(str(shown).encode())
        digest.update(resolved.read_bytes())
    return digest.hexdigest()[:16]


def _defining_files(task_id: str, cls: object, get_task: object) -> list[Path]:
    """The source files of a task class (and its in-package bases), or a task file and its assets."""
    from .json_task import JsonTask

    if isinstance(cls, type) and issubclass(cls, JsonTask):
        task = get_task(task_id)  # type: ignore[operator]
        source = Path(task.source)
        if not source.is_absolute():  # built-in suites name their file from the repository root
            source = _TASK_PACKAGE.parent / source
        return ([source] if source.is_file() else []) + _asset_files(task)
    files: list[Path] = []
    for base in inspect.getmro(cls) if isinstance(cls, type) else (cls,):
        if base.__module__ in _FRAMEWORK_MODULES:  # the Task base itself: every task would change with it
            continue
        try:
            source = Path(inspect.getsourcefile(base) or "")  # type: ignore[arg-type]
        except TypeError:  # a builtin
            continue
        if source.is_file() and (_TASK_PACKAGE in source.resolve().parents or base is cls) and source not in files:
            files.append(source)
    return sorted(files)


def _asset_files(task: object) -> list[Path]:
    """The files of the task's ``assets`` its definition names (by any string value that is a file name)."""
    assets = getattr(task, "assets_dir", None)
    if assets is None or not Path(assets).is_dir():
        return []
    named = set(_strings(getattr(task, "definition", {})))
    chosen, total = [], 0
    for path in sorted(Path(assets).rglob("*")):
        if path.is_file() and not path.is_symlink() and str(path.relative_to(assets)) in named:
            total += path.stat().st_size
            if total > _MAX_ASSET_BYTES:
                break
            chosen.append(path)
    return chosen


def _strings(node: object) -> Iterable[str]:
    if isinstance(node, str):
        yield node
    elif isinstance(node, Mapping):
        for value in node.values():
            yield from _strings(value)
    elif isinstance(node, (list, tuple)):
        for value in node:
            yield from _strings(value)


def record_path() -> Path:
    """``$DESKTOP_GYM_PROOF_RECORD`` when set, else the committed ``tasks/proven.json``."""
    return Path(os.environ.get(RECORD_VARIABLE) or RECORD_PATH)


def read_record(path: Path | None = None) -> dict[str, str]:
    """The committed ``{task id: fingerprint}`` of proven tasks; empty when there is no record yet.

    Raises:
        TaskError: the file is not a JSON object of strings (naming the file).
    """
    path = path or record_path()
    if not path.exists():
        return {}
    try:
        record = json.loads(path.read_text())
    except (OSError, ValueError) as error:
        raise TaskError(f"{path}: not a proof record ({error})") from None
    if not isinstance(record, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in record.items()):
        raise TaskError(f"{path}: a proof record maps task ids to fingerprint strings")
    return record


def write_record(proven: Sequence[str], path: Path | None = None) -> dict[str, str]:
    """Record the current fingerprints of ``proven`` (kept entries of other still-registered tasks stay)."""
    from .registry import list_tasks

    path = path or record_path()
    known = set(list_tasks())
    record = {task: fp for task, fp in read_record(path).items() if task in known}
    record.update({task: task_fingerprint(task) for task in proven})
    path.write_text(json.dumps(dict(sorted(record.items())), indent=1) + "\n")
    return record


def changed_tasks(task_ids: Sequence[str], record: Mapping[str, str]) -> list[str]:
    """The tasks of ``task_ids`` that are new or whose defining files changed since ``record``."""
    return [task for task in task_ids if record.get(task) != task_fingerprint(task)]


__all__ = [
    "RECORD_PATH",
    "RECORD_VARIABLE",
    "record_path",
    "changed_tasks",
    "read_record",
    "task_fingerprint",
    "write_record",
]
