"""The Impress suite (``impress.*``): 16 seeded families on a real pptx deck plus one infeasible task.

Families live by theme in ``impress_slides``, ``impress_content``, ``impress_drawing`` and
``impress_output``; importing this module registers them all.
"""

from __future__ import annotations

from ..base import Task
from ..registry import register_task
from .impress_content import CONTENT_TASKS
from .impress_drawing import DRAWING_TASKS
from .impress_output import OUTPUT_TASKS
from .impress_slides import SLIDE_TASKS

IMPRESS_TASKS: tuple[type[Task], ...] = (*SLIDE_TASKS, *CONTENT_TASKS, *DRAWING_TASKS, *OUTPUT_TASKS)

for _task in IMPRESS_TASKS:
    register_task(_task)
