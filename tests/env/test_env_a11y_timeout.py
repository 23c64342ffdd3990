"""``DesktopEnv(a11y_timeout=...)``: the accessibility tree read's budget, checked and handed to the guest."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from desktop_gym import DesktopEnv
from desktop_gym.env import MAX_A11Y_TIMEOUT_S

from ..support.shared_env import env_on_session_desktop


@pytest.mark.parametrize("seconds", [0, -1.0, MAX_A11Y_TIMEOUT_S + 1])
def test_an_a11y_timeout_out_of_range_is_refused_by_name(seconds: float) -> None:
    with pytest.raises(ValueError, match="a11y_timeout"):
        DesktopEnv(a11y_timeout=seconds)


@pytest.fixture
def env(desktop, _session_guest) -> Iterator[DesktopEnv]:
    yield from env_on_session_desktop(
        desktop, _session_guest, task_id="starter.calc_fill_totals", observation=("a11y_tree",), a11y_timeout=0.01
    )


@pytest.mark.slow
def test_the_tree_read_gets_the_env_s_budget(env: DesktopEnv) -> None:
    # A Calc tree walk takes 60-100 ms on a quiet machine and seconds under load: 10 ms cuts it, and the text
    # says so. (With 0.1 s, a walk on a quiet CI machine once finished in time.)
    observation, _ = env.reset(seed=0)
    last = observation["a11y_tree"].splitlines()[-1]
    assert last.startswith("... truncated (timeout after 0.0"), observation["a11y_tree"][-200:]
