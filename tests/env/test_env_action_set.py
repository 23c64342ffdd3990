"""``DesktopEnv(action_set=...)`` keeps the caller's instance; no desktop is started to build an env."""

from __future__ import annotations

import pytest

from desktop_gym.actions import ActionSet, Hotkey
from desktop_gym.env import DesktopEnv


def save_now() -> Hotkey:
    """Save the focused document."""
    return Hotkey(["ctrl", "s"])


def test_the_env_keeps_the_callers_action_set_and_its_custom_actions() -> None:
    actions = ActionSet(style="computerrl", coordinates="normalized", custom_actions=[save_now])
    env = DesktopEnv(action_set=actions)
    try:
        assert env.action_set is actions
        assert env.exposure.gui_actions is actions
        assert env.exposure.parser.parse("save_now()") == [Hotkey(["ctrl", "s"])]
        assert "save_now()" in env.describe()
    finally:
        env.close()


def test_coordinates_that_disagree_with_the_action_set_are_refused() -> None:
    with pytest.raises(ValueError, match="coordinates='normalized' disagrees with action_set.coordinates='pixel'"):
        DesktopEnv(action_set=ActionSet(), coordinates="normalized")
