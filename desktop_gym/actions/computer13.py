"""OSWorld's computer_13 actions: ``CLICK``, ``MOVE_TO``, ``TYPING``, ``DONE`` ...

Upper-case names as OSWorld writes them (also in its ``{"action_type": ..., "parameters": ...}``
dicts), with lower-case aliases (``move_to(x=.., y=..)``). ``SCROLL`` follows OSWorld, which
passes ``dy`` to ``pyautogui.scroll``: positive ``dy`` scrolls up.
``WAIT``/``DONE``/``FAIL`` are also the special codes of OSWorld's pyautogui action space.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from desktop_gym.actions import types as act
from desktop_gym.actions.keys import normalize_key, normalize_keys
from desktop_gym.actions.spec import ArgumentError, ParseContext, action
from desktop_gym.actions.types import Action

STYLE = "computer_13"
PYAUTOGUI_STYLE = "pyautogui"

Button = Literal["left", "right", "middle"]


@action("MOVE_TO", styles=[STYLE], aliases=["move_to"])
def move_to(ctx: ParseContext, x: float, y: float) -> Action:
    """Move the pointer to (x, y)."""
    return act.MoveTo(ctx.coordinate("x", x), ctx.coordinate("y", y), ctx.normalized)


@action("CLICK", styles=[STYLE], aliases=["click"])
def click(
    ctx: ParseContext,
    x: float | None = None,
    y: float | None = None,
    button: Button = "left",
    num_clicks: int = 1,
) -> Action:
    """Click at (x, y), or where the pointer is when x and y are omitted.

    Args:
        num_clicks: 1, 2 or 3.
    """
    px, py = ctx.optional_xy(x, y)
    if not 1 <= num_clicks <= 3:
        raise ArgumentError(f"num_clicks must be 1, 2 or 3, got {num_clicks}")
    return act.Click(px, py, button, num_clicks, ctx.normalized)


@action("MOUSE_DOWN", styles=[STYLE], aliases=["mouse_down"])
def mouse_down(ctx: ParseContext, button: Button = "left") -> Action:
    """Press and hold a mouse button where the pointer is."""
    return act.MouseDown(None, None, button, ctx.normalized)


@action("MOUSE_UP", styles=[STYLE], aliases=["mouse_up"])
def mouse_up(ctx: ParseContext, button: Button = "left") -> Action:
    """Release a mouse button where the pointer is."""
    return act.MouseUp(None, None, button, ctx.normalized)


@action("RIGHT_CLICK", styles=[STYLE], aliases=["right_click"])
def right_click(ctx: ParseContext, x: float | None = None, y: float | None = None) -> Action:
    """Right-click at (x, y), or where the pointer is."""
    px, py = ctx.optional_xy(x, y)
    return act.Click(px, py, "right", 1, ctx.normalized)


@action("DOUBLE_CLICK", styles=[STYLE], aliases=["double_click"])
def double_click(ctx: ParseContext, x: float | None = None, y: float | None = None) -> Action:
    """Double-click at (x, y), or where the pointer is."""
    px, py = ctx.optional_xy(x, y)
    return act.Click(px, py, "left", 2, ctx.normalized)


@action("DRAG_TO", styles=[STYLE], aliases=["drag_to"])
def drag_to(ctx: ParseContext, x: float, y: float) -> Action:
    """Drag with the left button held from the pointer to (x, y).

    Args:
        x: Horizontal position of the drop.
        y: Vertical position of the drop.
    """
    return act.Drag(ctx.coordinate("x", x), ctx.coordinate("y", y), None, None, "left", ctx.normalized)


@action("SCROLL", styles=[STYLE], aliases=["scroll"])
def scroll(ctx: ParseContext, dx: int = 0, dy: int = 0) -> Action:
    """Scroll where the pointer is: dy > 0 scrolls up, dy < 0 down, dx > 0 right, dx < 0 left.

    Args:
        dx: Horizontal wheel notches (positive = right).
        dy: Vertical wheel notches (positive = up, as in OSWorld and pyautogui).
    """
    return act.Scroll(dx, -dy)


@action("TYPING", styles=[STYLE], aliases=["typing"])
def typing(ctx: ParseContext, text: str) -> Action:
    """Type text where the focus is.

    Args:
        text: The text to type (any characters, newlines included).
    """
    return act.TypeText(text)


def _key_action(name: str, summary: str, make: Callable[[str], Action]) -> Callable[..., Action]:
    """Register the one-key action ``name`` (alias: its lowercase), which parses to ``make(key)``."""

    def parse(ctx: ParseContext, key: str) -> Action:
        return make(normalize_key(key))

    parse.__doc__ = f"{summary}\n\nArgs:\n    key: The key name.\n"
    parse.__name__ = parse.__qualname__ = name.lower()
    return action(name, styles=[STYLE], aliases=[name.lower()])(parse)


press = _key_action("PRESS", 'Press and release one key, e.g. "enter".', act.Press)
key_down = _key_action("KEY_DOWN", "Press and hold one key.", act.KeyDown)
key_up = _key_action("KEY_UP", "Release a held key.", act.KeyUp)


@action("HOTKEY", styles=[STYLE], aliases=["hotkey"])
def hotkey(ctx: ParseContext, keys: list[str]) -> Action:
    """Press a key combination, e.g. ["ctrl", "c"].

    Args:
        keys: Key names pressed together in order and released in reverse.
    """
    return act.Hotkey(normalize_keys(keys))


@action("WAIT", styles=[STYLE, PYAUTOGUI_STYLE], aliases=["wait"])
def wait(ctx: ParseContext) -> Action:
    """Wait until the next step."""
    return act.Wait()


@action("DONE", styles=[STYLE, PYAUTOGUI_STYLE], aliases=["done"])
def done(ctx: ParseContext) -> Action:
    """Declare the task finished."""
    return act.Done()


@action("FAIL", styles=[STYLE, PYAUTOGUI_STYLE], aliases=["fail"])
def fail(ctx: ParseContext) -> Action:
    """Declare the task impossible to finish."""
    return act.Fail()
