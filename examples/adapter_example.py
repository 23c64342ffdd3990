"""What the trainer-adapter examples share: their command line and the env source they default to."""

from __future__ import annotations

import argparse
import os

from desktop_gym.train.adapters.episode import SOURCE_VARIABLE, EnvSource


def episode_args(description: str) -> argparse.Namespace:
    """Parse ``--task`` and ``--episodes``; unless ``DESKTOP_GYM_SOURCE`` is set, episodes run on local desktops.

    Args:
        description: the example's one-line description, for ``--help``.
    """
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--task", default="calc.enter_value")
    parser.add_argument("--episodes", type=int, default=2)
    args = parser.parse_args()
    os.environ.setdefault(SOURCE_VARIABLE, EnvSource(options={"action_mode": "api", "max_steps": 3}).to_json())
    return args
