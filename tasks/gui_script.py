"""The one scripted GUI policy behind every suite's GUI oracles: steps, wait-for gates, bounded retries.

A :class:`GuiScript` plays its steps in order, one action per observation, then ``done()``:

- an action text (``'press(key="f2")'``) is played as is: oracles speak the text an agent speaks, so
  the env's parser checks every oracle action too;
- a :class:`Computed` step makes its action from the observation (a click on a node's box found in the
  ``a11y_tree`` through the typed parser, :mod:`desktop_gym.guest.a11y_text`); while it returns None
  or raises :class:`~desktop_gym.guest.a11y_text.A11yNodeNotFoundError` the node is not there yet;
- a :class:`WaitFor` gate holds the next step back until its condition on the observation holds.

While a computed step or a gate is not ready the script plays ``wait`` actions, at most ``tries``
of them; then it plays ``fail()`` (a broken oracle shows as a failed episode) and keeps, in
:attr:`GuiScript.gave_up`, a message naming what it waited for.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..guest.a11y_text import A11yNodeNotFoundError, find_node

Observation = Mapping[str, Any]
DONE = "exit(success=True)"
CTRL_S = 'hotkey(keys=["ctrl", "s"])'
_LOG = logging.getLogger(__name__)


@dataclass(frozen=True)
class Computed:
    """A step whose action text comes from the observation.

    Attributes:
        make: Returns the action text, or None (or raises ``A11yNodeNotFoundError``) when not ready.
        what: What the step needs, for the give-up message (``'push button "OK"'``).
        tries: ``wait`` actions it may spend before the script gives up.
        seconds: How long each ``wait`` lasts.
    """

    make: Callable[[Observation], str | None]
    what: str
    tries: int = 8
    seconds: float = 0.5


@dataclass(frozen=True)
class WaitFor:
    """A gate between steps: the script waits until ``ready(observation)`` holds.

    Keys typed before LibreOffice has given the focus to the grid, a field or a dialog go astray (most
    often right after a load on a busy machine); a gate reads the state from the accessibility tree
    instead of sleeping a fixed time. An observation without an ``a11y_tree`` opens every gate.

    Attributes:
        ready: The condition, on the observation.
        what: What is awaited, for reading and for the give-up message.
        tries: Unready observations tolerated before the script gives up.
        seconds: How long each ``wait`` lasts.
    """

    ready: Callable[[Observation], bool]
    what: str
    tries: int = 15
    seconds: float = 0.3


Step = str | Computed | WaitFor


class GuiScript:
    """Plays ``steps`` in order (see the module docstring), then ``done()`` forever.

    Args:
        steps: Action texts, :class:`Computed` steps and :class:`WaitFor` gates.
    """

    def __init__(self, steps: Sequence[Step]) -> None:
        for position, step in enumerate(steps):
            if not isinstance(step, str | Computed | WaitFor):
                raise TypeError(f"steps[{position}] must be an action text, Computed or WaitFor, got {step!r}")
        self._steps = list(steps)
        self._index = 0
        self._waited = 0
        #: Why the script played ``fail()``: what it waited for and how long; None while it has not.
        self.gave_up: str | None = None

    def __len__(self) -> int:
        """The number of steps that play an action (gates and waits not counted)."""
        return sum(not isinstance(step, WaitFor) for step in self._steps)

    def __call__(self, observation: Observation) -> str:
        while self._index < len(self._steps):
            step = self._steps[self._index]
            if isinstance(step, WaitFor):
                if "a11y_tree" in observation and not step.ready(observation):
                    return self._wait(step.what, step.tries, step.seconds)
            elif isinstance(step, Computed):
                action, detail = _compute(step, observation)
                if action is None:
                    return self._wait(step.what, step.tries, step.seconds, detail)
                self._advance()
                return action
            else:
                self._advance()
                return step
            self._advance()
        return "done()"

    def _advance(self) -> None:
        self._index, self._waited = self._index + 1, 0

    def _wait(self, what: str, tries: int, seconds: float, detail: str = "") -> str:
        self._waited += 1
        if self._waited <= tries:
            return f"wait(seconds={seconds})"
        self._index = len(self._steps)
        self.gave_up = f"gave up waiting for {what} after {tries} waits of {seconds} s" + (
            f" ({detail})" if detail else ""
        )
        _LOG.warning("GUI script: %s", self.gave_up)
        return "fail()"


def _compute(step: Computed, observation: Observation) -> tuple[str | None, str]:
    try:
        return step.make(observation), ""
    except A11yNodeNotFoundError as missing:
        return None, str(missing)


def tree_of(observation: Observation) -> str:
    """The observation's linearized accessibility tree ("" when it has none)."""
    return str(observation.get("a11y_tree", ""))


def _label(role: str | tuple[str, ...], name: str | None, within: tuple[str, str] | None) -> str:
    roles = " or ".join((role,) if isinstance(role, str) else role)
    where = f" inside {within[0]} {within[1]!r}" if within else ""
    return f"an on-screen {roles} {name!r}{where}" if name is not None else f"an on-screen {roles}{where}"


def click_node(
    role: str | tuple[str, ...],
    name: str | None,
    within: tuple[str, str] | None = None,
    *,
    clicks: int = 1,
    enabled_only: bool = True,
) -> Computed:
    """A step clicking the centre of the first node ``role`` ``name`` (any name when None) in the tree.

    Args:
        role: Role name(s).
        name: Exact accessible name, or None for any.
        within: ``(role, name)`` of an ancestor the node must be under.
        clicks: 2 double-clicks.
        enabled_only: Skip ``[disabled]`` nodes.
    """

    def make(observation: Observation) -> str | None:
        node = find_node(tree_of(observation), role, name, within, enabled_only=enabled_only)
        if node is None:
            return None
        x, y = node.center
        repeat = "" if clicks == 1 else f", num_clicks={clicks}"
        return f"click(coordinates=[{x}, {y}]{repeat})"

    return Computed(make, _label(role, name, within))


def when_present(role: str, name: str | None, action: str) -> Computed:
    """A step playing ``action`` once a node ``role`` ``name`` shows in the tree (disabled or not)."""

    def make(observation: Observation) -> str | None:
        return action if find_node(tree_of(observation), role, name) else None

    return Computed(make, _label(role, name, None))


def when_absent(role: str, name: str | None, action: str) -> Computed:
    """A step playing ``action`` once no node ``role`` ``name`` shows (e.g. a dialog has closed)."""

    def make(observation: Observation) -> str | None:
        return None if find_node(tree_of(observation), role, name) else action

    return Computed(make, f"no {_label(role, name, None).removeprefix('an ')}")


def saved_by_gui(*steps: Step) -> GuiScript:
    """The GUI oracle playing ``steps``, then saving with Ctrl+S and declaring success."""
    return GuiScript([*steps, CTRL_S, DONE])
