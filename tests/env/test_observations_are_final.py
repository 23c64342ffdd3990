"""An office's observation is its final screen: nothing it draws a moment later is missing (issue 32).

LibreOffice sends its toolbar, status bar, ruler and sidebar states on a timer (300 ms after a
change, later under load), so a screen that is quiet right after a reset or an action can still
change: Writer's ruler moved to the page ~0.4 s after a reset, Impress's zoom went from 87% to 69%
and its sidebar filled in, and after typing into Calc, Undo lit up and the document-modified icon
turned red ~0.3 s after the step returned. ``guest.apps.office_state_watch`` waits for those
updates. Each case compares the observation with the screen once it has been still for a second.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from desktop_gym import DesktopEnv
from desktop_gym.settle import wait_until_stable
from desktop_gym.testing import screen_difference

from ..support.shared_env import env_on_session_desktop

pytestmark = pytest.mark.slow

FINAL_QUIET_S = 1.0  # the screen counts as final once unchanged this long
#: task -> actions whose step screenshots are compared (each after its own reset)
CASES = {
    # ctrl+w closes the document under the watched frame: the watch must stop, not stall the settle
    "starter.calc_fill_totals": ("type(text='4711\\n')", "press(key='right')", "hotkey(keys=['ctrl', 'w'])"),
    "starter.writer_append_paragraph": ("type(text='Hello world ')", "hotkey(keys=['ctrl', 'b'])"),
    "impress.add_slide": ("type(text='Hello world ')", "press(key='left')"),
}


def stale_part(env: DesktopEnv, screenshot) -> str | None:
    """How the observed ``screenshot`` differs from the final screen (None when it does not)."""
    assert wait_until_stable(env.client.screenshot, timeout=20.0, quiet=FINAL_QUIET_S)
    difference = screen_difference(screenshot, env.client.screenshot())
    return None if difference.within_caret_mask else str(difference)


@pytest.fixture
def env(request: pytest.FixtureRequest, desktop, _session_guest) -> Iterator[DesktopEnv]:
    yield from env_on_session_desktop(
        desktop, _session_guest, task_id=request.param, observation=("screenshot", "a11y_tree", "app_info")
    )


@pytest.mark.timeout(300)
@pytest.mark.parametrize("env", list(CASES), indirect=True)
def test_reset_and_step_observations_show_the_final_screen(env: DesktopEnv) -> None:
    stale = []
    for index, action in enumerate(CASES[env.task_id]):
        observation, _ = env.reset(seed=index)
        if (found := stale_part(env, observation["screenshot"])) is not None:
            stale.append(f"reset {index}: {found}")
        observation, *_ = env.step(action)
        if (found := stale_part(env, observation["screenshot"])) is not None:
            stale.append(f"{action}: {found}")
    assert not stale, f"observations that the screen changed after: {stale}"
