"""The built-in task families as data: one TOML table per suite, one row per task.

``tasks/metadata/<suite>.toml`` holds a row ``[<name>]`` for the task ``<suite>.<name>``: the class
that implements it (``class = "families.calc_data:FixWrongValues"``, a module of ``desktop_gym.tasks``)
and the fields a family class would otherwise write as class attributes (its goal or whole
instruction, oracle kinds, tags, apps, step budget, input file name, ...). ``Task`` fills the id and
the fields in when that class is created and registers it, so a family's Python class carries only its behaviour
(sampling, setup, check, oracles, perturbation) and a suite's metadata reads as one table. A class
without a row (a third-party family, say) sets ``id`` and its metadata as class attributes.
"""

from __future__ import annotations

import functools
import sys
from pathlib import Path
from typing import Any

from ..errors import TaskError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - the same parser, from PyPI
    import tomli as tomllib

METADATA_DIR = Path(__file__).resolve().parent / "metadata"
#: The package that a row's ``class`` (``"<module>:<class>"``) is relative to.
CLASS_PACKAGE = "desktop_gym.tasks"

#: The fields a row may set, with the type each must have in the TOML file.
ROW_FIELDS: dict[str, type] = {
    **dict.fromkeys(("class", "instruction_template", "goal", "file_name"), str),
    **dict.fromkeys(("apps", "tags", "oracles"), list),
    **dict.fromkeys(("needs_save", "infeasible"), bool),
    "max_steps": int,
}


def _checked_row(path: Path, name: str, row: object) -> dict[str, Any]:
    where = f"{path.name}: [{name}]"
    if not isinstance(row, dict):
        raise TaskError(f"{where} must be a table of fields, not {row!r}")
    fields: dict[str, Any] = {}
    for key, value in row.items():
        kind = ROW_FIELDS.get(key)
        if kind is None:
            raise TaskError(f"{where}: unknown field {key!r} (one of {', '.join(ROW_FIELDS)})")
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise TaskError(f"{where}: field {key!r} must be a {kind.__name__}, not {value!r}")
        if kind is list and not all(isinstance(item, str) for item in value):
            raise TaskError(f"{where}: field {key!r} must list strings, not {value!r}")
        fields[key] = tuple(value) if kind is list else value
    module, colon, qualname = fields.get("class", "").partition(":")
    if not (module and colon and qualname):
        raise TaskError(f"{where}: field 'class' must be '<module>:<class>', not {fields.get('class')!r}")
    return fields


def read_table(path: Path) -> dict[str, dict[str, Any]]:
    """One suite's rows: ``{task id: {field: value}}`` (lists become tuples).

    Raises:
        TaskError: naming the file, the row and the field at fault.
    """
    try:
        with path.open("rb") as stream:
            table = tomllib.load(stream)
    except tomllib.TOMLDecodeError as error:
        raise TaskError(f"{path.name}: {error}") from None
    return {f"{path.stem}.{name}": _checked_row(path, name, row) for name, row in table.items()}


@functools.cache
def family_rows(metadata_dir: Path = METADATA_DIR) -> dict[str, tuple[str, dict[str, Any]]]:
    """Every row of the built-in tables, by the class it names: ``{"module:Class": (task id, fields)}``.

    Raises:
        TaskError: two rows name the same class.
    """
    rows: dict[str, tuple[str, dict[str, Any]]] = {}
    for path in sorted(metadata_dir.glob("*.toml")):
        for task_id, fields in read_table(path).items():
            where = f"{CLASS_PACKAGE}.{fields.pop('class')}"
            if where in rows:
                raise TaskError(f"{path.name}: [{task_id.partition('.')[2]}] names {where}, as {rows[where][0]} does")
            rows[where] = (task_id, fields)
    return rows


def apply_family_row(cls: type) -> bool:
    """Set ``id`` and the fields of the row naming ``cls`` on it; False when no row names it.

    Raises:
        TypeError: the class also sets its id or one of its row's fields itself (one source each).
    """
    if not cls.__module__.startswith(f"{CLASS_PACKAGE}."):
        return False  # only built-in classes have rows: a third party's never loads the tables
    found = family_rows().get(f"{cls.__module__}:{cls.__qualname__}")
    if found is None:
        return False
    task_id, fields = found
    for key, value in {"id": task_id, **fields}.items():
        if key in cls.__dict__:
            raise TypeError(
                f"task class {cls.__qualname__} ({task_id}): field {key!r} is set both in the class and in "
                f"its row of {METADATA_DIR.name}/{task_id.partition('.')[0]}.toml"
            )
        setattr(cls, key, value)
    return True
