"""pyautogui-compatible calls: ``pyautogui.click(100, 200)``, ``pyautogui.hotkey('ctrl', 's')`` ...

Models trained on OSWorld's pyautogui action space write short scripts of these calls. They are
read, never run: each call becomes typed actions. Timing arguments (``interval``, ``duration``)
are accepted and ignored. pyautogui conventions are kept: ``scroll(clicks)`` with positive
``clicks`` scrolls up, ``hscroll(clicks)`` with positive ``clicks`` scrolls right.
"""

from __future__ import annotations

from typing import Literal

from desktop_gym.actions import types as act
from desktop_gym.actions.keys import normalize_key, normalize_keys
from desktop_gym.actions.spec import ArgumentError, ParseContext, action
from desktop_gym.actions.types import Action

STYLE = "pyautogui"
MAX_EXPANDED_PRESSES = 1000
"""Most Press actions one ``press([...], presses=n)`` may expand into (the executor caps a step further)."""

Button = Literal["left", "right", "middle", "primary", "secondary"]


def _button(button: str) -> str:
    return {"primary": "left", "secondary": "right"}.get(button, button)


@action("pyautogui.click", styles=[STYLE])
def click(
    ctx: ParseContext,
    x: float | None = None,
    y: float | None = None,
    clicks: int = 1,
    interval: float = 0.0,
    button: Button = "left",
    duration: float = 0.0,
) -> Action:
    """Click at (x, y), or where the pointer is.

    Args:
        clicks: How many clicks (1-3).
    """
    px, py = ctx.optional_xy(x, y)
    if not 1 <= clicks <= 3:
        raise ArgumentError(f"clicks must be 1, 2 or 3, got {clicks}")
    return act.Click(px, py, _button(button), clicks, ctx.normalized)


@action("pyautogui.doubleClick", styles=[STYLE])
def double_click(
    ctx: ParseContext,
    x: float | None = None,
    y: float | None = None,
    interval: float = 0.0,
    button: Button = "left",
    duration: float = 0.0,
) -> Action:
    """Double-click at (x, y), or where the pointer is."""
    px, py = ctx.optional_xy(x, y)
    return act.Click(px, py, _button(button), 2, ctx.normalized)


@action("pyautogui.rightClick", styles=[STYLE])
def right_click(ctx: ParseContext, x: float | None = None, y: float | None = None, duration: float = 0.0) -> Action:
    """Right-click at (x, y), or where the pointer is."""
    px, py = ctx.optional_xy(x, y)
    return act.Click(px, py, "right", 1, ctx.normalized)


@action("pyautogui.moveTo", styles=[STYLE])
def move_to(ctx: ParseContext, x: float, y: float, duration: float = 0.0) -> Action:
    """Move the pointer to (x, y)."""
    return act.MoveTo(ctx.coordinate("x", x), ctx.coordinate("y", y), ctx.normalized)


@action("pyautogui.dragTo", styles=[STYLE])
def drag_to(ctx: ParseContext, x: float, y: float, duration: float = 0.0, button: Button = "left") -> Action:
    """Drag with a button held from the pointer to (x, y).

    Args:
        x: Horizontal position of the drop.
        y: Vertical position of the drop.
    """
    return act.Drag(ctx.coordinate("x", x), ctx.coordinate("y", y), None, None, _button(button), ctx.normalized)


@action("pyautogui.mouseDown", styles=[STYLE])
def mouse_down(ctx: ParseContext, x: float | None = None, y: float | None = None, button: Button = "left") -> Action:
    """Press and hold a mouse button at (x, y), or where the pointer is."""
    px, py = ctx.optional_xy(x, y)
    return act.MouseDown(px, py, _button(button), ctx.normalized)


@action("pyautogui.mouseUp", styles=[STYLE])
def mouse_up(ctx: ParseContext, x: float | None = None, y: float | None = None, button: Button = "left") -> Action:
    """Release a mouse button at (x, y), or where the pointer is."""
    px, py = ctx.optional_xy(x, y)
    return act.MouseUp(px, py, _button(button), ctx.normalized)


@action("pyautogui.scroll", styles=[STYLE])
def scroll(ctx: ParseContext, clicks: int, x: float | None = None, y: float | None = None) -> Action:
    """Scroll vertically at (x, y) or the pointer: positive clicks scroll up, negative down.

    Args:
        clicks: Wheel notches (positive = up).
    """
    px, py = ctx.optional_xy(x, y)
    return act.Scroll(0, -clicks, px, py, ctx.normalized)


@action("pyautogui.hscroll", styles=[STYLE])
def hscroll(ctx: ParseContext, clicks: int, x: float | None = None, y: float | None = None) -> Action:
    """Scroll horizontally at (x, y) or the pointer: positive clicks scroll right, negative left.

    Args:
        clicks: Wheel notches (positive = right).
    """
    px, py = ctx.optional_xy(x, y)
    return act.Scroll(clicks, 0, px, py, ctx.normalized)


def _write(message: str | list[str]) -> list[Action]:
    if isinstance(message, str):
        return [act.TypeText(message)]
    return [act.Press(key) for key in normalize_keys(message)]


@action("pyautogui.write", styles=[STYLE])
def write(ctx: ParseContext, message: str | list[str], interval: float = 0.0) -> list[Action]:
    """Type text, or press each key of a list of key names in turn.

    Args:
        message: The text, or a list of key names.
    """
    return _write(message)


@action("pyautogui.typewrite", styles=[STYLE])
def typewrite(ctx: ParseContext, message: str | list[str], interval: float = 0.0) -> list[Action]:
    """Type text, or press each key of a list of key names in turn (the same as write).

    Args:
        message: The text, or a list of key names.
    """
    return _write(message)


@action("pyautogui.press", styles=[STYLE])
def press(ctx: ParseContext, keys: str | list[str], presses: int = 1, interval: float = 0.0) -> list[Action]:
    """Press and release a key (or each key of a list) presses times.

    Args:
        keys: A key name, or a list of key names.
        presses: How many times.
    """
    if presses < 1:
        raise ArgumentError(f"presses must be at least 1, got {presses}")
    names = normalize_keys([keys] if isinstance(keys, str) else keys)
    if len(names) > 1 and len(names) * presses > MAX_EXPANDED_PRESSES:
        raise ArgumentError(
            f"{len(names)} keys x {presses} presses is more than {MAX_EXPANDED_PRESSES} key presses in one call"
        )
    if len(names) == 1:
        return [act.Press(names[0], presses)]
    return [act.Press(name) for _ in range(presses) for name in names]


@action("pyautogui.hotkey", styles=[STYLE])
def hotkey(ctx: ParseContext, *keys: str, interval: float = 0.0) -> Action:
    """Press keys together, e.g. hotkey('ctrl', 's').

    Args:
        keys: Key names pressed in order and released in reverse.
    """
    return act.Hotkey(normalize_keys(keys))


@action("pyautogui.keyDown", styles=[STYLE])
def key_down(ctx: ParseContext, key: str) -> Action:
    """Press and hold one key.

    Args:
        key: The key name.
    """
    return act.KeyDown(normalize_key(key))


@action("pyautogui.keyUp", styles=[STYLE])
def key_up(ctx: ParseContext, key: str) -> Action:
    """Release a held key.

    Args:
        key: The key name.
    """
    return act.KeyUp(normalize_key(key))


@action("time.sleep", styles=[STYLE])
def sleep(ctx: ParseContext, secs: float) -> Action:
    """Wait for the screen to settle (at most 5 seconds).

    Args:
        secs: How long to wait.
    """
    if secs < 0:
        raise ArgumentError(f"secs must not be negative, got {secs:g}")
    return act.Wait(secs)
