"""The Calc suite (``calc.*``): task families over real xlsx files in LibreOffice Calc.

Importing this module registers every family (each class is its own record); the themes live in
``calc_*`` modules.
"""

from . import calc_data, calc_export, calc_format, calc_formulas, calc_sheets, calc_structure  # noqa: F401
