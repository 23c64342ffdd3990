"""A step on a browser-drawn app shows its own effect, on a loaded machine.

Chromium hands X input to a renderer process, so a screen still for the settle's quiet window can be a
page that has not handled the key yet. The settle waits for two animation frames of the page in front
(``AppSpec.present_hook``); with ``DESKTOP_GYM_BROWSER_FRAMES=0`` (no such wait) VS Code steps under this load
showed the screen from before their key (``ctrl+N`` without its new tab)."""

from __future__ import annotations

import time
from collections.abc import Iterator

import numpy as np
import pytest

from desktop_gym import DesktopEnv
from desktop_gym.apps.chrome.profile import profile_dir
from desktop_gym.apps.devtools import connect
from desktop_gym.apps.devtools_browser import Browser, wait_two_frames
from desktop_gym.testing import cpu_load

from ..support.shared_env import env_on_session_desktop

pytestmark = [pytest.mark.slow]
ROUNDS = 8
# Where each step's effect shows on the 1280x720 screen (rows, columns): the tab strip for a new editor,
# the editor's text for a typed letter. The title bar and the scrollbars change later on timers of
# their own (a title update, a fade), so they are not looked at.
TAB_STRIP = (slice(55, 80), slice(350, 1260))
EDITOR_TEXT = (slice(95, 650), slice(350, 1260))


@pytest.fixture(scope="module")
def vscode(desktop, _session_guest) -> Iterator[DesktopEnv]:
    yield from env_on_session_desktop(desktop, _session_guest, task_id="vscode.auto_save", max_steps=60)


def _changed(before: np.ndarray, after: np.ndarray, region: tuple[slice, slice]) -> int:
    return int(np.count_nonzero(np.any(before[region] != after[region], axis=-1)))


@pytest.mark.stage_load  # it runs under cpu_load
def test_each_step_s_screenshot_shows_its_key_under_load(vscode: DesktopEnv) -> None:
    observation, _ = vscode.reset(seed=0)
    unshown = []
    with cpu_load(processes=8, seconds=300):
        for index in range(ROUNDS):
            for action, region in (("hotkey(keys=['ctrl', 'n'])", TAB_STRIP), (f"type(text='w{index}')", EDITOR_TEXT)):
                before = observation["screenshot"]
                observation, *_ = vscode.step(action)
                assert not observation["last_action_error"]
                if _changed(before, observation["screenshot"], region) == 0:
                    unshown.append(f"round {index}: {action}")
    assert not unshown, f"steps whose screenshot did not show their key: {unshown}"


@pytest.fixture(scope="module")
def chrome(desktop, _session_guest) -> Iterator[DesktopEnv]:
    yield from env_on_session_desktop(desktop, _session_guest, task_id="chrome.open_cheapest_product")


def test_a_hung_tab_in_front_holds_a_step_no_longer_than_the_frame_wait_s_cap(chrome: DesktopEnv, desktop) -> None:
    chrome.reset(seed=0)
    profile = profile_dir(desktop.workdir / "home")
    with connect(profile) as devtools:
        hung = Browser(devtools).open_tab("data:text/html,<script>while (true) {}</script>")
    try:
        began = time.monotonic()
        assert wait_two_frames(profile, 1.0) is False  # no frame ran; the visible tab did not even answer
        assert time.monotonic() - began < 3.0  # the cap, plus one DevTools connection
        observation, *_ = chrome.step("press(key='tab')")
        assert not observation["last_action_error"]
    finally:
        with connect(profile) as devtools:
            devtools.send("Target.closeTarget", {"targetId": hung})
