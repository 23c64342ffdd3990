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


def distinct_ints(rng: np.random.Generator, low: int, high: int, size: int) -> list[int]:
    """``size`` distinct integers in [low, high), as plain ``int``."""
    return [int(value) for value in rng.choice(np.arange(low, high), size=size, replace=False)]


def quarter_prices(rng: np.random.Generator, count: int, low: int = 8, high: int = 400) -> list[float]:
    """``count`` distinct prices in quarters (exact in binary floating point, so sums compare exactly)."""
    return [value / 4 for value in distinct_ints(rng, low, high, count)]


SUBJECTS = (
    "The review board",
    "Our field team",
    "The pilot group",
    "The finance office",
    "The night shift",
    "The design studio",
    "The support desk",
    "The audit panel",
)
VERBS = ("approved", "examined", "postponed", "summarised", "questioned", "praised", "funded", "simplified")
OBJECTS = (
    "the travel policy",
    "the spring budget",
    "the hiring plan",
    "the vendor list",
    "the safety checklist",
    "the backlog",
    "the launch schedule",
    "the training course",
)
CLOSERS = ("last week", "on Monday", "after lunch", "in March", "before the deadline", "without delay")
TITLES = (
    "Quarterly Summary",
    "Project Charter",
    "Meeting Notes",
    "Release Plan",
    "Budget Outlook",
    "Risk Register",
    "Travel Report",
    "Team Handbook",
)
KEYWORDS = ("aurora", "basalt", "cinder", "dynamo", "falcon", "granite", "horizon", "lantern", "meadow", "nebula")


def sentences(rng: np.random.Generator, count: int) -> list[str]:
    """``count`` distinct sentences, each naming a distinct subject (so any one can be found by text)."""
    subjects = rng.choice(len(SUBJECTS), size=count, replace=False)
    return [f"{SUBJECTS[int(s)]} {rng.choice(VERBS)} {rng.choice(OBJECTS)} {rng.choice(CLOSERS)}." for s in subjects]


def title(rng: np.random.Generator) -> str:
    """A document title such as ``"Release Plan 7"``."""
    return f"{rng.choice(TITLES)} {int(rng.integers(2, 99))}"
