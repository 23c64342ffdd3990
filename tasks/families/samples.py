"""What the task families sample from: word pools and seeded draws that return plain Python values.

Plain ``str``/``int`` (not numpy scalars) keep parameters JSON-serialisable and instructions readable.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

ITEMS = (
    "Apples",
    "Pears",
    "Plums",
    "Cherries",
    "Lemons",
    "Figs",
    "Dates",
    "Kiwis",
    "Mangos",
    "Limes",
    "Grapes",
    "Melons",
    "Papayas",
    "Quinces",
    "Olives",
    "Guavas",
)
REGIONS = ("North", "South", "East", "West")
PEOPLE = (
    "Ada",
    "Boris",
    "Chen",
    "Dana",
    "Emil",
    "Farah",
    "Gus",
    "Hana",
    "Ivan",
    "Jorge",
    "Kemal",
    "Lena",
    "Mira",
    "Nils",
    "Omar",
    "Pia",
)
SHEET_WORDS = ("Budget", "Forecast", "Summary", "Ledger", "Archive", "Report", "Inventory", "Orders")


def column_letter(index: int) -> str:
    """0 -> ``"A"``."""
    from openpyxl.utils.cell import get_column_letter

    return get_column_letter(index + 1)


def draw(rng: np.random.Generator, pool: Sequence[str], size: int) -> list[str]:
    """``size`` distinct names from ``pool``, as plain ``str``."""
    return [str(name) for name in rng.choice(pool, size=size, replace=False)]


def ints(rng: np.random.Generator, low: int, high: int, size: int) -> list[int]:
    """``size`` integers in [low, high), as plain ``int``."""
    return [int(value) for value in rng.integers(low, high, size=size)]
