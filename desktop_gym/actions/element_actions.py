"""Actions on elements: ``click(element=17)`` and its kin, aimed at an element id of the observation.

The ids are the numbers in the observation's accessibility text (``[17] push button "Save" ...``)
and on its set-of-marks screenshot (:mod:`desktop_gym.elements`). The specs share the ComputerRL
names (``click``, ``type``, ``scroll``) and add ``double_click``, ``right_click`` and ``select``; the
keyword ``element`` picks them. :func:`resolve_element_action` turns one into the coordinate action
it stands for, at the element's box's centre, when the step runs.
"""

from __future__ import annotations

from typing import Literal

from desktop_gym.actions.computerrl import DEFAULT_SCROLL_NOTCHES, scroll_notches
from desktop_gym.actions.spec import ArgumentError, ParseContext, action
from desktop_gym.actions.types import (
    Action,
    Click,
    ClickElement,
    Scroll,
    ScrollElement,
    SelectOption,
    TypeIntoElement,
    TypeText,
)
from desktop_gym.elements.table import ElementTable
from desktop_gym.errors import ElementError

STYLE = "computerrl"
#: The largest element id an action may name (an observation numbers at most this many).
MAX_ELEMENT_ID = 100_000

Button = Literal["left", "right", "middle"]


def _element(value: int) -> int:
    if not 1 <= value <= MAX_ELEMENT_ID:
        raise ArgumentError(f"element must be an id from the observation (1 to {MAX_ELEMENT_ID}), got {value}")
    return value


def _click(element: int | None, button: str, clicks: int) -> Action:
    """A click on ``element``, or where the pointer is when None."""
    return Click(None, None, button, clicks) if element is None else ClickElement(_element(element), button, clicks)


@action("click", styles=[STYLE], schema_name="click_element")
def click_element(ctx: ParseContext, element: int, num_clicks: int = 1, button_type: Button = "left") -> Action:
    """Click an element of the observation by its id.

    Args:
        element: The element's id, as numbered in the accessibility tree and the set-of-marks screenshot.
        num_clicks: 1 for a click, 2 for a double click, 3 for a triple click.
        button_type: The mouse button.
    """
    if not 1 <= num_clicks <= 3:
        raise ArgumentError(f"num_clicks must be 1, 2 or 3, got {num_clicks}")
    return ClickElement(_element(element), button_type, num_clicks)


@action(styles=[STYLE])
def double_click(ctx: ParseContext, element: int | None = None) -> Action:
    """Double-click an element of the observation by its id.

    Args:
        element: The element's id; None double-clicks where the pointer is.
    """
    return _click(element, "left", 2)


@action(styles=[STYLE])
def right_click(ctx: ParseContext, element: int | None = None) -> Action:
    """Right-click an element of the observation by its id (opens its context menu).

    Args:
        element: The element's id; None right-clicks where the pointer is.
    """
    return _click(element, "right", 1)


@action("type", styles=[STYLE], schema_name="type_into_element")
def type_into_element(
    ctx: ParseContext, element: int | None = None, text: str = "", overwrite: bool = False, enter: bool = False
) -> Action:
    """Click an element of the observation by its id, then type into it.

    Args:
        element: The element's id (a text field, a cell, a document); None types where the focus is.
        text: The text to type (any characters, newlines included).
        overwrite: Select all (ctrl+a) before typing, replacing the current content.
        enter: Press Enter after typing.
    """
    if not text and not enter and not overwrite:
        raise ArgumentError("nothing to do: give text, enter=True or overwrite=True")
    if element is None:
        return TypeText(text, None, None, overwrite, enter)
    return TypeIntoElement(_element(element), text, overwrite, enter)


@action("scroll", styles=[STYLE], schema_name="scroll_element")
def scroll_element(
    ctx: ParseContext,
    element: int,
    direction: Literal["up", "down", "left", "right"],
    amount: int = DEFAULT_SCROLL_NOTCHES,
) -> Action:
    """Scroll over an element of the observation by its id.

    Args:
        element: The element's id (a list, a document, a page).
        direction: Which way the content moves into view.
        amount: How many wheel notches.
    """
    dx, dy = scroll_notches(direction, amount)
    return ScrollElement(_element(element), dx, dy)


@action(styles=[STYLE])
def select(ctx: ParseContext, element: int, option: str) -> Action:
    """Choose an option in a combo box or list of the observation by its id.

    Args:
        element: The combo box's or list's id.
        option: The option's text, as the element lists it.
    """
    if not option.strip():
        raise ArgumentError("option must not be empty")
    if "\n" in option:
        raise ArgumentError("option must be one line")
    return SelectOption(_element(element), option)


def resolve_element_action(action: Action, table: ElementTable | None) -> Action:
    """The coordinate action an element action stands for, at the element's box's centre.

    A ``select`` clicks the element, selects what it holds, types the option and presses Enter:
    combo boxes (editable or not) and list boxes choose the typed entry.

    Args:
        action: A typed action; actions that name no element come back unchanged.
        table: The elements of the observation the step answers (None: no observation numbered any).

    Raises:
        ElementError: the id is not in ``table``; the message names the id and the observation.
    """
    if not isinstance(action, ClickElement | TypeIntoElement | ScrollElement | SelectOption):
        return action
    found = table.get(action.element) if table is not None else None
    if found is None:
        where = table.describe() if table is not None else "no observation has numbered elements yet"
        raise ElementError(f"element {action.element} is not in the latest observation ({where})")
    x, y = found.center
    if isinstance(action, ClickElement):
        return Click(x, y, action.button, action.num_clicks)
    if isinstance(action, TypeIntoElement):
        return TypeText(action.text, x, y, action.overwrite, action.enter)
    if isinstance(action, ScrollElement):
        return Scroll(action.dx, action.dy, x, y)
    return TypeText(action.option, x, y, overwrite=True, enter=True)
