"""``desktop_gym.make``: ``gymnasium.make`` once the built-in task ids are registered."""

from __future__ import annotations

import functools
from typing import Any

import gymnasium

from . import tasks  # noqa: F401 - registers the built-in task ids


@functools.wraps(gymnasium.make)
def make(*args: Any, **kwargs: Any) -> gymnasium.Env:
    return gymnasium.make(*args, **kwargs)
