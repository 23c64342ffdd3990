"""What task families share: drawing parameters from a pool, and API oracles as action strings."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .base import ScriptedPolicy


def pick(rng: np.random.Generator, pool: Sequence[Any], count: int | None = None) -> Any:
    """One item of ``pool`` (or ``count`` distinct ones, as a list)."""
    if count is None:
        return pool[int(rng.integers(len(pool)))]
    return [pool[int(i)] for i in rng.choice(len(pool), size=count, replace=False)]


def tool_call(tool: str, method: str, **arguments: Any) -> str:
    """``<tool>.method(arg=...)`` as an action string, e.g. ``VlcTools.set_volume(percent=40)``."""
    return f"{tool}.{method}({', '.join(f'{k}={v!r}' for k, v in arguments.items())})"


def api_calls(*calls: str) -> ScriptedPolicy:
    """An API oracle: the calls, then declare success."""
    return ScriptedPolicy([*calls, "exit(success=True)"])
