"""A step's chained actions on a loaded machine: each one's input is handled before the next goes out.

The guest's ``Input`` returns once each office has worked off its pending events. With
``DESKTOP_GYM_INPUT_WAIT=mutex`` (only a free main thread) 2-10 of 20 such steps left a wrong cell
under this load (``bench/bench_chained_input.py``)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from desktop_gym import DesktopEnv
from desktop_gym.testing import cpu_load

from ..support.shared_env import env_on_session_desktop

pytestmark = [pytest.mark.slow, pytest.mark.stage_load]  # it runs under cpu_load
PARTS = ("last_action_result", "last_action_error")
CHAINS = 12


@pytest.fixture(scope="module")
def calc(desktop, _session_guest) -> Iterator[DesktopEnv]:
    yield from env_on_session_desktop(
        desktop, _session_guest, task_id="starter.calc_fill_totals", observation=PARTS, max_steps=60
    )


def _jump_and_type(cell: str, value: int) -> str:
    """One step: focus the Name Box, jump to ``cell``, type ``value`` there."""
    return f"hotkey(keys=['ctrl', 'shift', 't'])\ntype(text='{cell}', enter=True)\ntype(text='{value}', enter=True)"


def test_chained_focus_changes_and_typing_land_under_load(calc: DesktopEnv) -> None:
    # A wrong cell is a key typed into the grid before the Name Box had the focus, or into the Name Box
    # before the grid had it back.
    calc.reset(seed=0)
    with cpu_load(processes=8, seconds=300):
        for row in range(CHAINS):
            observation, _, terminated, truncated, _ = calc.step(_jump_and_type(f"F{row + 2}", row + 7))
            assert not (terminated or truncated) and not observation["last_action_error"]
    wrong = {}
    for row in range(CHAINS):
        observation, *_ = calc.step(f"CalcTools.get_cell_value(cell='F{row + 2}')")
        if str(observation["last_action_result"]).removesuffix(".0") != str(row + 7):
            wrong[f"F{row + 2}"] = observation["last_action_result"]
    assert not wrong, f"cells that did not get their value: {wrong}"
