"""Spaces for free-form agent text and for the desktop observation.

``gymnasium.spaces.Text`` only admits a fixed alphabet (alphanumerics by default), but agents
write Python calls, JSON and any language. ``Unicode`` admits every string up to a length.
"""

from __future__ import annotations

import string
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
from gymnasium import spaces

OBSERVATION_KEYS = (
    "instruction",
    "screenshot",
    "a11y_tree",
    "focused_app",
    "focused_window_class",
    "app_info",
    "api",
    "last_action_result",
    "last_action_error",
    "som_screenshot",
    "elements",
)

# Sampling draws from printable ASCII plus a few non-ASCII characters so that code paths that
# handle text see something other than plain letters; containment admits any str.
_SAMPLE_ALPHABET = string.printable + "äéßøç€→✓中文"


class Unicode(spaces.Space[str]):
    """Any Unicode string of at most ``max_length`` characters."""

    def __init__(self, max_length: int = 1 << 20, seed: int | np.random.Generator | None = None) -> None:
        if max_length < 0:
            raise ValueError(f"max_length must be >= 0, got {max_length}")
        self.max_length = max_length
        super().__init__(shape=None, dtype=str, seed=seed)

    @property
    def is_np_flattenable(self) -> bool:
        return False

    def contains(self, x: Any) -> bool:
        return isinstance(x, str) and len(x) <= self.max_length

    def sample(self, mask: Any = None, probability: Any = None) -> str:
        length = int(self.np_random.integers(0, min(self.max_length, 64) + 1))
        picks = self.np_random.integers(0, len(_SAMPLE_ALPHABET), size=length)
        return "".join(_SAMPLE_ALPHABET[i] for i in picks)

    def to_jsonable(self, sample_n: Sequence[str]) -> list[str]:
        return list(sample_n)

    def from_jsonable(self, sample_n: Iterable[str]) -> list[str]:
        return list(sample_n)

    def __repr__(self) -> str:
        return f"Unicode(max_length={self.max_length})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Unicode) and other.max_length == self.max_length


def observation_space(
    width: int,
    height: int,
    include: Iterable[str] = OBSERVATION_KEYS,
    text_limit: int = 1 << 20,
) -> spaces.Dict:
    """The ``Dict`` observation space of a ``DesktopEnv`` with the parts named in ``include``.

    Raises:
        ValueError: if ``include`` names an unknown part.
    """
    parts: dict[str, spaces.Space[Any]] = {}
    for key in include:
        if key not in OBSERVATION_KEYS:
            raise ValueError(f"unknown observation part {key!r}; known: {', '.join(OBSERVATION_KEYS)}")
        if key in ("screenshot", "som_screenshot"):
            parts[key] = spaces.Box(0, 255, shape=(height, width, 3), dtype=np.uint8)
        else:
            parts[key] = Unicode(max_length=text_limit)
    return spaces.Dict(parts)
