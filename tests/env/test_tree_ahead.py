"""The tree read during the settle (``guest.tree_ahead``) is the tree read after it, under load.

Random inputs on a real Calc (arrow keys, typing, clicks on cells and on a menu, a dialog opened
and closed, undo) while every core is busy. After each input the guest settles and reads the tree
during the wait; the tree read right after the wait is the reference. A difference counts as stale
when a third read and the screen confirm the desktop was still since the settle (else the desktop
itself was still changing after the settle, and a read after it would have been as wrong). The
check fails with the draw check switched off in ``TreeAhead`` (a walk begun before the toolbars
show an edit's states is kept)."""

from __future__ import annotations

import difflib
import os
import random
import re
from collections.abc import Callable, Iterator

import numpy as np
import pytest

from desktop_gym import DesktopEnv
from desktop_gym.guest.client import GuestClient
from desktop_gym.testing import cpu_load

from ..support.shared_env import env_on_session_desktop

pytestmark = [pytest.mark.slow]

TASK = "starter.calc_fill_totals"
ROUNDS = 48
TREE = (True, 300, 15.0)  # visible_only, max_nodes, timeout: what DesktopEnv asks for


@pytest.fixture(scope="module")
def env(desktop, _session_guest) -> Iterator[DesktopEnv]:
    yield from env_on_session_desktop(desktop, _session_guest, task_id=TASK, observation=("screenshot", "a11y_tree"))


def _center(tree: str, line_start: str) -> tuple[int, int]:
    """The centre of the first node whose line starts (after its indent) with ``line_start``."""
    for line in tree.splitlines():
        if line.lstrip().startswith(line_start):
            x, y, w, h = map(int, re.search(r"@\((-?\d+),(-?\d+),(\d+),(\d+)\)", line).groups())
            return x + w // 2, y + h // 2
    raise AssertionError(f"no {line_start!r} node in the tree:\n{tree[:3000]}")


def _inputs(client: GuestClient, tree: str) -> list[tuple[str, Callable[[], None]]]:
    menu = _center(tree, 'menu "Format"')
    grid = _center(tree, "table ")
    return [
        ("Right", lambda: client.press("right")),
        ("Down", lambda: client.press("down")),
        ("Left", lambda: client.press("left")),
        ("type a word", lambda: client.type_text("word")),
        ("type a number", lambda: client.type_text("42")),
        ("Return", lambda: client.press("enter")),
        ("Escape", lambda: client.press("escape")),
        ("Escape", lambda: client.press("escape")),
        ("ctrl+z", lambda: client.hotkey(["ctrl", "z"])),
        ("ctrl+1 (Format Cells dialog)", lambda: client.hotkey(["ctrl", "1"])),
        ("click a cell", lambda: client.click(grid[0] - 150, grid[1] - 60)),
        ("click the Format menu", lambda: client.click(*menu)),
    ]


@pytest.mark.timeout(420)
def test_a_tree_read_during_the_settle_is_the_settled_tree_under_load(env: DesktopEnv) -> None:
    assert os.environ.get("DESKTOP_GYM_TREE_AHEAD", "1") != "0"
    env.reset(seed=0)
    client = env.client
    inputs = _inputs(client, client.a11y_tree(*TREE))
    rng = random.Random(31)
    ahead, stale, unsettled = 0, [], 0
    with cpu_load(seconds=360) as load:
        for index in range(ROUNDS):
            name, send = rng.choice(inputs)
            send()
            early = client.wait_settled_reading_tree(*TREE)
            settled_screen = client.screenshot()
            late = client.a11y_tree(*TREE)
            load.sample()
            if early is None:
                continue
            ahead += 1
            if early == late:
                continue
            if client.a11y_tree(*TREE) != late or np.any(client.screenshot() != settled_screen):
                unsettled += 1  # the desktop changed after the settle: a read after it was as wrong
                continue
            diff = "\n".join(list(difflib.unified_diff(late.splitlines(), early.splitlines(), lineterm=""))[:20])
            stale.append(f"round {index} ({name}):\n{diff}")
    assert not stale, f"{len(stale)} stale reads (load {load.load_average:.1f}):\n" + "\n".join(stale)
    # The walk must really run during the settle, not always fall back to a read after it.
    assert ahead >= ROUNDS // 2, f"only {ahead} of {ROUNDS} settles read the tree during the wait"
    assert unsettled <= ROUNDS // 4, f"{unsettled} of {ROUNDS} settles ended before the desktop was still"


def test_a_step_uses_the_tree_read_during_its_settle(env: DesktopEnv) -> None:
    env.reset(seed=0)
    reads = 0
    for key in ("right", "down", "left", "up"):
        observation, *_ = env.step(f'press(key="{key}")')
        reads += env.observation_seconds.get("a11y_tree", 1.0) < 0.005  # no read of its own after the settle
        unnumbered = re.sub(r"^( *)\[\d+\] ", r"\1", observation["a11y_tree"], flags=re.MULTILINE)
        assert unnumbered == env._for_agent(env.client.a11y_tree(*TREE))  # as read right after the step
    assert reads >= 3, f"only {reads} of 4 steps used the tree read during the settle"
