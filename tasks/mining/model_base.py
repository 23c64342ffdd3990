"""What every app's document model shares: fresh words, a deep copy, and the no-formulas default."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..json_params import BUILTIN_WORDS


@dataclass
class DocumentModel:
    """The base of ``SheetModel``, ``DocModel`` and ``DeckModel``.

    Attributes:
        words_used: the words the document holds or a draw has taken, so a new one is always new.
        formulas: a formula was written (structural calls after it would move it; Calc only).
    """

    words_used: set[str] = field(default_factory=set, kw_only=True)
    formulas: bool = field(default=False, kw_only=True)

    def copy(self) -> Any:
        return copy.deepcopy(self)

    def fresh_word(self, rng: np.random.Generator) -> str:
        """A capitalised word not used anywhere in the document yet."""
        free = [w.capitalize() for w in BUILTIN_WORDS if w.capitalize() not in self.words_used]
        word = free[int(rng.integers(len(free)))]
        self.words_used.add(word)
        return word
