"""The Calc suite (``calc.*``): task families over real xlsx files in LibreOffice Calc.

Importing this module registers every family; the themes live in ``calc_*`` modules.
"""

from __future__ import annotations

from ..base import Task
from .calc_data import DATA_FAMILIES
from .calc_export import EXPORT_FAMILIES, INFEASIBLE_FAMILIES
from .calc_format import FORMAT_FAMILIES
from .calc_formulas import FORMULA_FAMILIES
from .calc_sheets import SHEET_FAMILIES
from .calc_structure import STRUCTURE_FAMILIES

CALC_FAMILIES: tuple[type[Task], ...] = (
    *FORMULA_FAMILIES,
    *DATA_FAMILIES,
    *STRUCTURE_FAMILIES,
    *SHEET_FAMILIES,
    *FORMAT_FAMILIES,
    *EXPORT_FAMILIES,
)
CALC_INFEASIBLE: tuple[type[Task], ...] = INFEASIBLE_FAMILIES
CALC_TASK_IDS: tuple[str, ...] = tuple(family.id for family in (*CALC_FAMILIES, *CALC_INFEASIBLE))
