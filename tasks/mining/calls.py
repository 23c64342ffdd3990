"""A kind of API call the miner composes programs from (shared by every app's call table)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

Args = dict[str, Any]


@dataclass(frozen=True)
class CallKind:
    """One kind of API call.

    Attributes:
        name: the kind's name (a tag of the mined task).
        method: the method of ``tools``.
        sample: draws arguments from the model, or None when the call does not apply now.
        apply: applies the call to the model (in place).
        describe: the instruction sentence for these arguments and the model before the call.
        var: the argument a perturbation changes.
        others: other values ``var`` could take here (the siblings' and the perturbation's).
        structural: moves cells (insert, delete, sort), so it may not follow a formula.
        gui_steps: steps a GUI oracle would take (Name Box, typing, menus), for the difficulty tags.
        tools: the app's API class (``CalcTools``, ``WriterTools``, ...).
    """

    name: str
    method: str
    sample: Callable[[Any, np.random.Generator], Args | None]
    apply: Callable[[Any, Args], None]
    describe: Callable[[Args, Any], str]
    var: str
    others: Callable[[Any, Args, np.random.Generator], list[Any]]
    structural: bool = False
    gui_steps: int = 2
    tools: str = "CalcTools"

    def text(self, args: Args, var_template: str | None = None) -> str:
        """The call as agent text; ``var_template`` (``"{v!r}"``) stands in for the ``var`` argument."""
        rendered = [
            f"{key}={var_template if key == self.var and var_template else repr(value)}" for key, value in args.items()
        ]
        return f"{self.tools}.{self.method}({', '.join(rendered)})"
