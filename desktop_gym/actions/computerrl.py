"""ComputerRL's GUI actions: ``click(coordinates=[x, y])``, ``type(...)``, ``exit(success)`` ...

Signatures follow the ComputerRL release (Lai et al., 2025) so a model trained on its
trajectories needs no new prompt; ``scroll(amount=)`` and ``wait(seconds=)`` are optional
extras with ComputerRL's behaviour as their defaults.
"""

from __future__ import annotations

from typing import Literal

from desktop_gym.actions.keys import normalize_keys
from desktop_gym.actions.spec import ArgumentError, ParseContext, Point, action
from desktop_gym.actions.types import (
    Action,
    Click,
    Done,
    Drag,
    Fail,
    Hotkey,
    OpenApp,
    Quote,
    Scroll,
    SwitchWindow,
    TypeText,
    Wait,
)

STYLE = "computerrl"
DEFAULT_SCROLL_NOTCHES = 5

Button = Literal["left", "right", "middle"]


@action(styles=[STYLE])
def click(ctx: ParseContext, coordinates: Point, num_clicks: int = 1, button_type: Button = "left") -> Action:
    """Click a point on the screen.

    Args:
        coordinates: The [x, y] point to click.
        num_clicks: 1 for a click, 2 for a double click, 3 for a triple click.
        button_type: The mouse button.
    """
    x, y = ctx.point("coordinates", coordinates)
    if not 1 <= num_clicks <= 3:
        raise ArgumentError(f"num_clicks must be 1, 2 or 3, got {num_clicks}")
    return Click(x, y, button_type, num_clicks, ctx.normalized)


@action("type", styles=[STYLE])
def type_(
    ctx: ParseContext,
    coordinates: Point | None = None,
    text: str = "",
    overwrite: bool = False,
    enter: bool = False,
) -> Action:
    """Type text, optionally clicking a field first, replacing its content, and pressing Enter.

    Args:
        coordinates: The [x, y] point to click before typing; None types where the focus is.
        text: The text to type (any characters, newlines included).
        overwrite: Select all (ctrl+a) before typing, replacing the current content.
        enter: Press Enter after typing.
    """
    x, y = ctx.point("coordinates", coordinates) if coordinates is not None else (None, None)
    if not text and not enter and not overwrite:
        raise ArgumentError("nothing to do: give text, enter=True or overwrite=True")
    return TypeText(text, x, y, overwrite, enter, ctx.normalized)


@action(styles=[STYLE])
def drag_and_drop(ctx: ParseContext, drag_from_coordinates: Point, drop_on_coordinates: Point) -> Action:
    """Drag with the left button held from one point and drop on another.

    Args:
        drag_from_coordinates: The [x, y] point where the drag starts.
        drop_on_coordinates: The [x, y] point where the drag ends.
    """
    x1, y1 = ctx.point("drag_from_coordinates", drag_from_coordinates)
    x2, y2 = ctx.point("drop_on_coordinates", drop_on_coordinates)
    return Drag(x2, y2, x1, y1, "left", ctx.normalized)


@action(styles=[STYLE])
def scroll(
    ctx: ParseContext,
    coordinates: Point,
    direction: Literal["up", "down", "left", "right"],
    amount: int = DEFAULT_SCROLL_NOTCHES,
) -> Action:
    """Scroll at a point.

    Args:
        coordinates: The [x, y] point to scroll at.
        direction: Which way the content moves into view.
        amount: How many wheel notches.
    """
    x, y = ctx.point("coordinates", coordinates)
    dx, dy = scroll_notches(direction, amount)
    return Scroll(dx, dy, x, y, ctx.normalized)


def scroll_notches(direction: str, amount: int) -> tuple[int, int]:
    """``(dx, dy)`` wheel notches for ComputerRL's ``direction`` and ``amount``.

    Raises:
        ArgumentError: ``amount`` is not a positive number of notches.
    """
    if amount < 1:
        raise ArgumentError(f"amount must be a positive number of notches, got {amount}")
    return {"up": (0, -amount), "down": (0, amount), "left": (-amount, 0), "right": (amount, 0)}[direction]


@action(styles=[STYLE])
def open_app(ctx: ParseContext, app_name: str) -> Action:
    """Open an application, e.g. "calc", "writer", "impress", "terminal", "text editor".

    Args:
        app_name: The application's name.
    """
    if not app_name.strip():
        raise ArgumentError("app_name must not be empty")
    return OpenApp(app_name.strip())


@action(styles=[STYLE])
def switch_window(ctx: ParseContext, window_id: int | str) -> Action:
    """Bring a window to the front and focus it.

    Args:
        window_id: The window's id as listed in the observation (an integer, or hex such as "0x3a00007").
    """
    if isinstance(window_id, str):
        text = window_id.strip().lower()
        try:
            window_id = int(text, 16) if text.startswith("0x") else int(text)
        except ValueError:
            raise ArgumentError(f"window_id must be an integer or a hex string, got {window_id!r}") from None
    if window_id <= 0:
        raise ArgumentError(f"window_id must be positive, got {window_id}")
    return SwitchWindow(window_id)


@action(styles=[STYLE])
def hotkey(ctx: ParseContext, keys: list[str]) -> Action:
    """Press a key combination, e.g. ["ctrl", "s"].

    Args:
        keys: Key names pressed together in order and released in reverse.
    """
    return Hotkey(normalize_keys(keys))


@action(styles=[STYLE])
def quote(ctx: ParseContext, content: str) -> Action:
    """Write a note to your scratch memory; it comes back as the action result.

    Args:
        content: The text to remember.
    """
    return Quote(content)


@action(styles=[STYLE])
def wait(ctx: ParseContext, seconds: float = 2.0) -> Action:
    """Wait for the screen to settle (at most 5 seconds).

    Args:
        seconds: How long to wait.
    """
    if seconds < 0:
        raise ArgumentError(f"seconds must not be negative, got {seconds:g}")
    return Wait(seconds)


@action("exit", styles=[STYLE])
def exit_(ctx: ParseContext, success: bool) -> Action:
    """End the task: success=True when it is done, False when it cannot be done.

    Args:
        success: Whether the task was completed.
    """
    return Done() if success else Fail()
