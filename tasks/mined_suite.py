"""The mined suite (``tasks/suites/mined/``): thousands of task definitions, registered by id, loaded on use.

``tasks synth`` appends proven definitions to one ``<app>.jsonl`` shard per app and lists every id
in ``ids.txt`` (``<id> <shard>`` a line). ``import desktop_gym.tasks`` reads only that list and
registers each id by entry point (``jsonl:<shard>``); the shard is parsed, and the one definition
validated, the first time one of its tasks is asked for (``get_task``, ``gymnasium.make``).
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

from ..errors import TaskError

MINED_SUITE = "mined"  # the ids' suite part: mined.<app>_<hash>
MINED_DIR = Path(__file__).resolve().parent / "suites" / "mined"
INDEX_NAME = "ids.txt"
JSONL_ENTRY_PREFIX = "jsonl:"
MAX_SHARD_BYTES = 256 * 1024 * 1024  # a shard read at most (a bigger one is refused, naming it)


def read_index(folder: Path = MINED_DIR) -> dict[str, str]:
    """``{task id: shard file name}`` from the folder's ``ids.txt`` (empty when there is none)."""
    path = Path(folder) / INDEX_NAME
    if not path.is_file():
        return {}
    entries: dict[str, str] = {}
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip():
            continue
        task_id, _, shard = line.strip().partition(" ")
        if not shard:
            raise TaskError(f"{path}:{number}: expected '<task id> <shard>', got {line[:80]!r}")
        entries[task_id] = shard
    return entries


def write_index(folder: Path = MINED_DIR) -> dict[str, str]:
    """Rewrite ``ids.txt`` from the folder's shards (sorted by shard, then id); returns the entries."""
    entries: dict[str, str] = {}
    for shard in sorted(Path(folder).glob("*.jsonl")):
        if shard.name.endswith(".proofs.jsonl"):
            continue
        for definition in _parse(shard).values():
            entries[definition["id"]] = shard.name
    lines = [f"{task_id} {shard}" for task_id, shard in sorted(entries.items(), key=lambda e: (e[1], e[0]))]
    (Path(folder) / INDEX_NAME).write_text("".join(line + "\n" for line in lines))
    return entries


def register_mined(folder: Path = MINED_DIR) -> int:
    """Register every id of the mined suite by entry point (idempotent); returns how many it lists."""
    from .registry import register_entry_point

    entries = read_index(folder)
    for task_id, shard in entries.items():
        try:
            register_entry_point(task_id, f"{JSONL_ENTRY_PREFIX}{Path(folder) / shard}")
        except ValueError:
            pass  # registered already (a second call, or the task was loaded)
    return len(entries)


@functools.lru_cache(maxsize=8)
def _parse(shard: Path) -> dict[str, dict[str, Any]]:
    size = shard.stat().st_size
    if size > MAX_SHARD_BYTES:
        raise TaskError(f"{shard}: {size} bytes, more than the {MAX_SHARD_BYTES} a shard may hold")
    definitions: dict[str, dict[str, Any]] = {}
    for number, line in enumerate(shard.read_text().splitlines(), 1):
        if not line.strip():
            continue
        try:
            definition = json.loads(line)
        except json.JSONDecodeError as error:
            raise TaskError(f"{shard}:{number}: not JSON ({error})") from None
        if not isinstance(definition, dict) or not isinstance(definition.get("id"), str):
            raise TaskError(f"{shard}:{number}: a task definition with an 'id' was expected")
        definitions[definition["id"]] = definition
    return definitions


def load_mined(task_id: str, shard: str | Path) -> Any:
    """The ``JsonTask`` ``task_id`` of ``shard``, validated (``TaskFileError`` names shard, line id and field)."""
    from .json_task import JsonTask
    from .loader import validate_definition

    path = Path(shard)
    definition = _parse(path).get(task_id)
    if definition is None:
        raise TaskError(f"{path} has no task {task_id!r}: the mined index is stale (tasks synth rewrites it)")
    source = f"{path}#{task_id}"
    return JsonTask(validate_definition(definition, source), source=source)
