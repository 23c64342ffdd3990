"""Waiting for the desktop to settle after an action, instead of a fixed pause.

OSWorld pauses 2 s after every action. We return as soon as nothing was drawn for ``quiet``
seconds; then we make sure no app is still busy with queued work (an app saving a file does not
repaint, so a still screen alone proves nothing), and if one was, we let the screen settle once
more. The guest does all of it in one call on X DAMAGE, and on a loaded machine a quiet screen
can be an office that got no CPU yet: so it also has each office work off its pending events and
show a paint it asks for (``guest.apps.readiness.wait_office_presented``; issue 32), after
sending its toolbars and status bar any state they were not sent yet (``office_state_watch``).
``DESKTOP_GYM_SETTLE=poll`` instead polls screenshots from the host (the baseline the benchmarks
compare).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from .guest.client import GuestClient

SETTLE_VARIABLE = "DESKTOP_GYM_SETTLE"  # "poll": host-side screenshot polling (the old path, a baseline)
TREE_AHEAD_VARIABLE = "DESKTOP_GYM_TREE_AHEAD"  # "0": read the tree after the settle, never during it
TreeAsk = tuple[bool, int | None, float]  # visible_only, max_nodes, timeout of an a11y_tree read


def wait_until_screen_settles(
    client: GuestClient, timeout: float = 1.0, quiet: float = 0.06, poll: float = 0.015
) -> bool:
    """Return True once the guest's screen was unchanged for ``quiet`` seconds, False at ``timeout``."""
    return wait_until_stable(client.screenshot, timeout=timeout, quiet=quiet, poll=poll)


def wait_until_stable(
    grab: Callable[[], np.ndarray], timeout: float = 1.0, quiet: float = 0.06, poll: float = 0.015
) -> bool:
    """Return True once ``grab()`` returned the same picture for ``quiet`` seconds, False at ``timeout``.

    Args:
        grab: takes a screenshot (the guest client's, or the screen capture inside the guest).
        timeout: the longest wait; apps that animate forever (a blinking cursor is one line of
            pixels, but a video is not) end here.
        quiet: how long the screen must stay unchanged.
        poll: the interval between screenshots.
    """
    deadline = time.monotonic() + timeout
    previous = grab()
    stable_since = time.monotonic()
    while time.monotonic() < deadline:
        time.sleep(poll)  # polling interval of a condition wait, not a fixed pause
        current = grab()
        now = time.monotonic()
        if _differs(previous, current):
            previous, stable_since = current, now
        elif now - stable_since >= quiet:
            return True
    return False


def wait_until_desktop_settles(
    client: GuestClient, timeout: float = 1.0, busy_timeout: float = 10.0, tree: TreeAsk | None = None
) -> str | None:
    """Screen quiet, then every app idle, then (if an app was busy) screen quiet again.

    With ``tree`` (``visible_only, max_nodes, timeout`` of ``a11y_tree``), the guest also reads the
    accessibility tree during the wait (``guest.tree_ahead``; ``DESKTOP_GYM_TREE_AHEAD=0`` turns it off).

    Returns:
        The tree read during the wait, or None (not asked, or to be read after the wait).

    Raises:
        GuestError: the guest failed, or an app stayed busy for ``busy_timeout`` (hung).
    """
    if os.environ.get(SETTLE_VARIABLE, "") != "poll":
        if tree is not None and os.environ.get(TREE_AHEAD_VARIABLE, "1") != "0":
            visible_only, max_nodes, tree_timeout = tree
            return client.wait_settled_reading_tree(
                visible_only, max_nodes, tree_timeout, timeout=timeout, busy_timeout=busy_timeout
            )
        client.wait_settled(timeout=timeout, busy_timeout=busy_timeout)
        return None
    wait_until_screen_settles(client, timeout=timeout)
    if client.wait_apps_idle(timeout=busy_timeout) > 0.02:
        wait_until_screen_settles(client, timeout=timeout)
    return None


def _differs(a: np.ndarray, b: np.ndarray) -> bool:
    # Ignore a text cursor blinking: count changed pixels, not any change at all.
    if a.shape != b.shape:
        return True
    changed = np.count_nonzero(np.any(a != b, axis=-1))
    return changed > 256
