"""Executing typed actions through the guest client.

:func:`execute` maps one canonical action onto :class:`~desktop_gym.guest.client.GuestClient`
calls and reports an :class:`ActionOutcome`. Errors the agent caused (a coordinate off the
screen, an unknown key the guest refuses, an app that fails to start) come back as
``ActionOutcome.error`` so the agent can read them; they are never raised. (A desktop that
stopped answering also shows up here; the env detects the crash itself.)

One action can cost no more than :class:`ActionLimits` allows: key presses, scroll notches,
clicks, typed characters and waiting are capped per action or per step (a policy that tries
millions of actions finds ``press('a', presses=2**31)`` quickly), and a step holds at most
``max_actions_per_step`` actions. Over a cap, the action is refused with an error naming the cap.
"""

from __future__ import annotations

import json
import math
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING

from desktop_gym.actions import types as act
from desktop_gym.actions.element_actions import resolve_element_action
from desktop_gym.actions.spec import NORMALIZED_MAX
from desktop_gym.actions.types import ACTION_TYPES, Action, ActionOutcome
from desktop_gym.apps.spec import app_aliases
from desktop_gym.elements.table import ElementTable
from desktop_gym.errors import CoordinateError, ElementError, LimitError
from desktop_gym.guest.types import GuestError

if TYPE_CHECKING:
    from desktop_gym.actions.target import ActionTarget

MAX_WAIT_SECONDS = 5.0
_INT64 = 2**63


@dataclass(frozen=True)
class ActionLimits:
    """What one action, or one step, may cost the desktop (``DesktopEnv(action_limits=...)``).

    Attributes:
        max_presses: Key presses in one ``press``.
        max_scroll: Scroll notches per axis in one ``scroll``.
        max_clicks: Clicks in one ``click`` (3 = a triple click).
        max_type_chars: Characters typed in one step, over all its ``type`` actions.
        max_actions_per_step: Actions one step may hold (a pyautogui script or a list of calls).
        max_wait_seconds: Seconds one step may wait, over all its ``wait`` actions (longer waits are cut).
    """

    max_presses: int = 100
    max_scroll: int = 50
    max_clicks: int = 3
    max_type_chars: int = 10_000
    max_actions_per_step: int = 50
    max_wait_seconds: float = MAX_WAIT_SECONDS

    def __post_init__(self) -> None:
        for item in fields(self):
            value = getattr(self, item.name)
            if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value < math.inf:
                raise ValueError(f"ActionLimits.{item.name} must be a positive finite number, got {value!r}")


class StepAllowance:
    """What is left of one step's limits while its actions run.

    Args:
        limits: The caps of the env.
    """

    def __init__(self, limits: ActionLimits | None = None) -> None:
        self.limits = limits or ActionLimits()
        self.wait_left = self.limits.max_wait_seconds
        self.chars_left = self.limits.max_type_chars

    def check_count(self, count: int) -> None:
        """Refuse a step of more than ``max_actions_per_step`` actions."""
        if count > self.limits.max_actions_per_step:
            raise LimitError(
                f"one step may hold at most {self.limits.max_actions_per_step} actions, got {count}; "
                "none of them was performed"
            )

    def check(self, action: Action) -> None:
        """Refuse ``action`` if it exceeds a cap, and charge it to the step (characters typed).

        Raises:
            LimitError: the message names the cap.
        """
        limits = self.limits
        if isinstance(action, act.Press) and not 1 <= action.presses <= limits.max_presses:
            raise LimitError(f"presses must be 1 to {limits.max_presses}, got {action.presses}")
        if isinstance(action, act.Click) and not 1 <= action.num_clicks <= limits.max_clicks:
            raise LimitError(f"num_clicks must be 1 to {limits.max_clicks}, got {action.num_clicks}")
        if isinstance(action, act.Scroll) and max(abs(action.dx), abs(action.dy)) > limits.max_scroll:
            raise LimitError(f"scroll at most {limits.max_scroll} notches per axis, got dx={action.dx} dy={action.dy}")
        if isinstance(action, act.Wait) and not math.isfinite(action.seconds):
            raise LimitError(f"seconds must be a finite number, got {action.seconds!r}")
        if isinstance(action, act.SwitchWindow) and not 0 <= action.window_id < _INT64:
            raise LimitError(f"window_id {action.window_id} is not a window id")
        if isinstance(action, act.TypeText):
            if len(action.text) > self.chars_left:
                raise LimitError(
                    f"one step may type at most {limits.max_type_chars} characters "
                    f"({len(action.text)} asked, {self.chars_left} left)"
                )
            self.chars_left -= len(action.text)

    def take_wait(self, seconds: float) -> float:
        """How long a wait of ``seconds`` may last, charged to the step."""
        granted = min(max(seconds, 0.0), self.wait_left)
        self.wait_left -= granted
        return granted


APP_ALIASES = app_aliases()
"""What agents call an app -> the guest's app name (a snapshot of ``AppSpec.aliases``; see ``launch_app``)."""


def resolve_app_name(app_name: str) -> str:
    """Map an agent's app name to the guest's (``"LibreOffice Calc"`` -> ``"calc"``).

    Unknown names pass through lower-cased, so the guest's error names the app it does not know.
    """
    folded = re.sub(r"\s+", " ", app_name.strip().lower())
    return app_aliases().get(folded, folded)


def to_pixel(value: float, normalized: bool, size: int, axis: str, screen_size: tuple[int, int]) -> int:
    """Resolve one coordinate to a pixel on an axis of ``size`` pixels.

    Normalized values are scaled from 0-1000. Results are rounded and clamped to the last pixel,
    so ``1000`` (normalized) or ``width`` (pixels) land on the edge; anything further is an error.

    Raises:
        CoordinateError: The value is off the screen; the message names it and the screen size.
    """
    width, height = screen_size
    limit = NORMALIZED_MAX if normalized else size
    if not 0 <= value <= limit:
        scale = f"the normalized 0-{NORMALIZED_MAX} range" if normalized else "the screen"
        raise CoordinateError(f"{axis}={value:g} is outside {scale} ({width}x{height} pixels)")
    pixel = round(value * size / NORMALIZED_MAX) if normalized else round(value)
    return min(max(pixel, 0), size - 1)


def resolve_point(
    x: float | None, y: float | None, normalized: bool, screen_size: tuple[int, int]
) -> tuple[int | None, int | None]:
    """Resolve an (x, y) pair to pixels; ``(None, None)`` (the pointer's position) stays as is.

    Raises:
        CoordinateError: A coordinate is off the screen.
    """
    if x is None or y is None:
        return None, None
    width, height = screen_size
    return (
        to_pixel(x, normalized, width, "x", screen_size),
        to_pixel(y, normalized, height, "y", screen_size),
    )


def action_name(action: Action) -> str:
    """The name errors are prefixed with: ``click``, ``type_text``, ``CalcTools.set_cell_value``."""
    if isinstance(action, act.ApiCall):
        return f"{action.app_class}.{action.method}"
    return re.sub(r"(?<!^)(?=[A-Z])", "_", type(action).__name__).lower()


def execute(
    action: Action,
    client: ActionTarget,
    screen_size: tuple[int, int],
    *,
    sleep: Callable[[float], None] = time.sleep,
    allowance: StepAllowance | None = None,
    elements: ElementTable | None = None,
) -> ActionOutcome:
    """Perform one typed action on the desktop.

    Args:
        action: The action (as parsed by :class:`~desktop_gym.actions.ActionSet`).
        client: The guest client of the desktop.
        screen_size: ``(width, height)`` in pixels, to resolve and check coordinates.
        sleep: How ``Wait`` pauses (injectable for tests).
        allowance: The step's remaining limits, shared by the actions of one step; a fresh
            default :class:`StepAllowance` when None.
        elements: The element ids of the observation the step answers, for actions that name an
            element (``click(element=17)``); an id not in it is an error naming the id.

    Returns:
        The outcome; ``error`` is set (prefixed by the action name) when the action failed.
    """
    if not isinstance(action, ACTION_TYPES):
        raise TypeError(f"cannot execute {action!r}: not a typed action (parse it with ActionSet first)")
    name = action_name(action)
    allowance = allowance or StepAllowance()
    try:
        action = resolve_element_action(action, elements)
        allowance.check(action)
        return _perform(action, client, screen_size, sleep, allowance)
    except (GuestError, CoordinateError, LimitError, ElementError) as exc:
        return ActionOutcome(error=f"{name}: {exc}")
    except (ValueError, TypeError, OverflowError) as exc:
        # A typed action built by hand with values the guest protocol cannot carry (protobuf
        # refuses out-of-range ints and lone surrogates, JSON refuses bytes): the agent's error.
        return ActionOutcome(error=f"{name}: the action cannot be sent to the desktop: {str(exc)[:200]}")


def _perform(
    action: Action,
    client: ActionTarget,
    screen: tuple[int, int],
    sleep: Callable[[float], None],
    allowance: StepAllowance,
) -> ActionOutcome:
    if isinstance(action, act.MoveTo):
        x, y = resolve_point(action.x, action.y, action.normalized, screen)
        client.move(x, y)
    elif isinstance(action, act.Click):
        x, y = resolve_point(action.x, action.y, action.normalized, screen)
        client.click(x, y, button=action.button, count=action.num_clicks)
    elif isinstance(action, act.MouseDown):
        x, y = resolve_point(action.x, action.y, action.normalized, screen)
        client.mouse_down(x, y, button=action.button)
    elif isinstance(action, act.MouseUp):
        x, y = resolve_point(action.x, action.y, action.normalized, screen)
        client.mouse_up(x, y, button=action.button)
    elif isinstance(action, act.Drag):
        _drag(action, client, screen)
    elif isinstance(action, act.Scroll):
        x, y = resolve_point(action.x, action.y, action.normalized, screen)
        client.scroll(x, y, dx=action.dx, dy=action.dy)
    elif isinstance(action, act.TypeText):
        _type_text(action, client, screen)
    elif isinstance(action, act.KeyDown):
        client.key_down(action.key)
    elif isinstance(action, act.KeyUp):
        client.key_up(action.key)
    elif isinstance(action, act.Press):
        client.press(action.key, presses=action.presses)
    elif isinstance(action, act.Hotkey):
        client.hotkey(list(action.keys))
    elif isinstance(action, act.OpenApp):
        info = client.launch_app(resolve_app_name(action.app_name))
        window = f" (window {info.window_id})" if info.window_id is not None else ""
        return ActionOutcome(result=f"opened {info.app}{window}")
    elif isinstance(action, act.SwitchWindow):
        client.activate_window(action.window_id)
    elif isinstance(action, act.Quote):
        return ActionOutcome(result=action.content)
    elif isinstance(action, act.Wait):
        # A pacing delay the agent asked for (the desktop is not polled for anything).
        sleep(allowance.take_wait(action.seconds))
    elif isinstance(action, act.Done | act.Fail | act.Exit):
        success = isinstance(action, act.Done) or (isinstance(action, act.Exit) and action.success)
        return ActionOutcome(terminal=True, success=success)
    elif isinstance(action, act.ApiCall):
        return _api_call(action, client)
    else:
        raise TypeError(f"cannot execute {action!r}: not a typed action (parse it with ActionSet first)")
    return ActionOutcome()


def _drag(action: act.Drag, client: ActionTarget, screen: tuple[int, int]) -> None:
    x2, y2 = resolve_point(action.x, action.y, action.normalized, screen)
    assert x2 is not None and y2 is not None
    if action.from_x is None or action.from_y is None:
        client.mouse_down(None, None, button=action.button)
        client.move(x2, y2)
        client.mouse_up(x2, y2, button=action.button)
        return
    x1, y1 = resolve_point(action.from_x, action.from_y, action.normalized, screen)
    assert x1 is not None and y1 is not None
    client.drag(x1, y1, x2, y2, button=action.button)


def _type_text(action: act.TypeText, client: ActionTarget, screen: tuple[int, int]) -> None:
    if action.x is not None and action.y is not None:
        x, y = resolve_point(action.x, action.y, action.normalized, screen)
        client.click(x, y)
    if action.overwrite:
        client.hotkey(["ctrl", "a"])
    if action.text:
        client.type_text(action.text)
    if action.enter:
        client.press("enter")


def _api_call(action: act.ApiCall, client: ActionTarget) -> ActionOutcome:
    # The guest checks the arguments and runs the method on the live app (GuestError -> error).
    result_json = client.call_api(action.app_class, action.method, json.dumps(action.kwargs))
    result = json.loads(result_json) if result_json else None
    if result is None:
        return ActionOutcome(result="None")
    return ActionOutcome(result=result if isinstance(result, str) else json.dumps(result, ensure_ascii=False))
