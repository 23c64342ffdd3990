"""Typed actions: the canonical form every action format is parsed into.

One frozen dataclass per thing the executor can do. Coordinates stay as the agent wrote them,
with ``normalized`` saying whether they are screen pixels or the 0-1000 scale; the executor
resolves them against the screen size. ``x``/``y`` of ``None`` mean "where the pointer is".
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..errors import ActionParseError  # noqa: F401 - re-exported: its home before desktop_gym.errors


@dataclass(frozen=True)
class MoveTo:
    """Move the pointer to (x, y)."""

    x: float
    y: float
    normalized: bool = False


@dataclass(frozen=True)
class Click:
    """Click ``num_clicks`` times with ``button`` at (x, y), or where the pointer is."""

    x: float | None = None
    y: float | None = None
    button: str = "left"
    num_clicks: int = 1
    normalized: bool = False


@dataclass(frozen=True)
class MouseDown:
    """Press and hold a mouse button at (x, y), or where the pointer is."""

    x: float | None = None
    y: float | None = None
    button: str = "left"
    normalized: bool = False


@dataclass(frozen=True)
class MouseUp:
    """Release a mouse button at (x, y), or where the pointer is."""

    x: float | None = None
    y: float | None = None
    button: str = "left"
    normalized: bool = False


@dataclass(frozen=True)
class Drag:
    """Drag with ``button`` held from (from_x, from_y) (or the pointer) to (x, y)."""

    x: float
    y: float
    from_x: float | None = None
    from_y: float | None = None
    button: str = "left"
    normalized: bool = False


@dataclass(frozen=True)
class Scroll:
    """Scroll by notches at (x, y) or the pointer: ``dy > 0`` scrolls down, ``dx > 0`` right."""

    dx: int = 0
    dy: int = 0
    x: float | None = None
    y: float | None = None
    normalized: bool = False


@dataclass(frozen=True)
class TypeText:
    """Type Unicode text; optionally click (x, y) first, select all first, press Enter after."""

    text: str
    x: float | None = None
    y: float | None = None
    overwrite: bool = False
    enter: bool = False
    normalized: bool = False


@dataclass(frozen=True)
class KeyDown:
    """Press and hold a key."""

    key: str


@dataclass(frozen=True)
class KeyUp:
    """Release a held key."""

    key: str


@dataclass(frozen=True)
class Press:
    """Press and release a key ``presses`` times."""

    key: str
    presses: int = 1


@dataclass(frozen=True)
class Hotkey:
    """Press keys together, in order, and release them in reverse (e.g. ctrl+s)."""

    keys: tuple[str, ...]


@dataclass(frozen=True)
class OpenApp:
    """Launch an application by name (aliases such as "spreadsheet" are resolved at execution)."""

    app_name: str


@dataclass(frozen=True)
class SwitchWindow:
    """Raise and focus the window with this X window id."""

    window_id: int


@dataclass(frozen=True)
class Quote:
    """Keep text in the agent's scratch memory; it comes back as the action result."""

    content: str


@dataclass(frozen=True)
class Wait:
    """Let the desktop settle for a few seconds (capped at execution)."""

    seconds: float = 2.0


@dataclass(frozen=True)
class Done:
    """The agent declares the task finished successfully."""


@dataclass(frozen=True)
class Fail:
    """The agent declares the task infeasible or failed."""


@dataclass(frozen=True)
class Exit:
    """ComputerRL's ``exit(success)``: the same as :class:`Done` or :class:`Fail`."""

    success: bool


@dataclass(frozen=True)
class ApiCall:
    """Call ``app_class.method(**kwargs)`` of an application API running in the guest."""

    app_class: str
    method: str
    kwargs: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ClickElement:
    """Click element ``element`` of the latest observation (its box's centre)."""

    element: int
    button: str = "left"
    num_clicks: int = 1


@dataclass(frozen=True)
class TypeIntoElement:
    """Click element ``element`` of the latest observation, then type as :class:`TypeText` does."""

    element: int
    text: str = ""
    overwrite: bool = False
    enter: bool = False


@dataclass(frozen=True)
class ScrollElement:
    """Scroll by notches over element ``element`` of the latest observation."""

    element: int
    dx: int = 0
    dy: int = 0


@dataclass(frozen=True)
class SelectOption:
    """Choose ``option`` in element ``element`` (a combo box or list): click it, type the option, Enter."""

    element: int
    option: str


#: Actions that name an element of the latest observation; the executor resolves them to the
#: element's box with the observation's :class:`~desktop_gym.elements.ElementTable`.
ElementAction = ClickElement | TypeIntoElement | ScrollElement | SelectOption
ELEMENT_ACTION_TYPES: tuple[type, ...] = ElementAction.__args__


Action = (
    MoveTo
    | Click
    | MouseDown
    | MouseUp
    | Drag
    | Scroll
    | TypeText
    | KeyDown
    | KeyUp
    | Press
    | Hotkey
    | OpenApp
    | SwitchWindow
    | Quote
    | Wait
    | Done
    | Fail
    | Exit
    | ApiCall
    | ClickElement
    | TypeIntoElement
    | ScrollElement
    | SelectOption
)

ACTION_TYPES: tuple[type, ...] = Action.__args__


@dataclass(frozen=True)
class ActionOutcome:
    """What executing one action did.

    Attributes:
        result: Text the action returns to the agent (a quote, an API's answer), if any.
        error: What went wrong, prefixed by the action name; ``None`` on success.
        terminal: Whether the agent ended the episode (done / fail / exit).
        success: For terminal actions, whether the agent claimed success; ``None`` otherwise.
    """

    result: str | None = None
    error: str | None = None
    terminal: bool = False
    success: bool | None = None
