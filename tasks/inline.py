"""Inline tasks: a JSON task definition passed to ``reset(options={"task": {...}})`` instead of an id.

Benchmark authors iterate on a task without registering it, and the miner runs candidates on an env
server whose process never saw them. The definition is validated exactly as a task file is (the
``TaskFileError`` names ``<reset options>`` and the field), and its ``put_file`` assets come from
the built-in assets folder.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..errors import TaskFileError
from .json_task import JsonTask
from .loader import validate_definition

INLINE_SOURCE = "<reset options>"


def inline_task(definition: Any) -> JsonTask:
    """The ``JsonTask`` of an inline definition.

    Raises:
        TaskFileError: not an object, or an invalid definition (named field).
    """
    if not isinstance(definition, Mapping):
        raise TaskFileError(
            INLINE_SOURCE, "task", f"expected a task definition object, got {type(definition).__name__}"
        )
    return JsonTask(validate_definition(dict(definition), INLINE_SOURCE), source=INLINE_SOURCE)
