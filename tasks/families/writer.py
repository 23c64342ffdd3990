"""The Writer suite (``writer.*``): 15 seeded families on real LibreOffice Writer documents + 1 infeasible task.

Importing this module registers them all; the families live in modules by theme.
"""

from . import writer_edit, writer_layout, writer_saving, writer_styling  # noqa: F401  (registers the tasks)
