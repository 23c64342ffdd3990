"""The Impress suite (``impress.*``): 16 seeded families on a real pptx deck plus one infeasible task.

Families live by theme in ``impress_slides``, ``impress_content``, ``impress_drawing`` and
``impress_output``; importing this module registers them all.
"""

from . import impress_content, impress_drawing, impress_output, impress_slides  # noqa: F401  (registers the tasks)
