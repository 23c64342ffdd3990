"""Key names: one spelling per key, checked when the action is parsed.

Agents write keys the way pyautogui, xdotool or a keyboard label spells them ("Control",
"Return", "page_down", "ArrowUp"). :func:`normalize_key` maps them to the pyautogui-style
names the guest understands, so a typo fails at parse time with a suggestion instead of
reaching the desktop.
"""

from __future__ import annotations

import difflib
import string

from desktop_gym.actions.spec import ArgumentError

_NAMED_KEYS = frozenset(
    {
        "ctrl",
        "ctrlright",
        "alt",
        "altright",
        "shift",
        "shiftright",
        "win",
        "winright",
        "fn",
        "enter",
        "tab",
        "esc",
        "backspace",
        "delete",
        "insert",
        "home",
        "end",
        "pageup",
        "pagedown",
        "up",
        "down",
        "left",
        "right",
        "space",
        "capslock",
        "numlock",
        "scrolllock",
        "printscreen",
        "pause",
        "apps",
        "menu",
        "clear",
        "help",
        "select",
        "execute",
        "sleep",
        "stop",
        "volumeup",
        "volumedown",
        "volumemute",
        "playpause",
        "nexttrack",
        "prevtrack",
        "browserback",
        "browserforward",
        "browserrefresh",
        "browserhome",
        "browsersearch",
        "browserstop",
        "browserfavorites",
        "launchmail",
        "launchmediaselect",
        "launchapp1",
        "launchapp2",
        "add",
        "subtract",
        "multiply",
        "divide",
        "decimal",
        "separator",
        "accept",
        "convert",
        "nonconvert",
        "modechange",
        "final",
        "kana",
        "kanji",
        "hangul",
        "hanguel",
        "hanja",
        "junja",
        "yen",
    }
    | {f"f{i}" for i in range(1, 25)}
    | {f"num{i}" for i in range(10)}
)

_ALIASES = {
    "control": "ctrl",
    "ctl": "ctrl",
    "ctrlleft": "ctrl",
    "lctrl": "ctrl",
    "controlleft": "ctrl",
    "controlright": "ctrlright",
    "rctrl": "ctrlright",
    "altleft": "alt",
    "option": "alt",
    "optionleft": "alt",
    "optionright": "altright",
    "menukey": "menu",
    "shiftleft": "shift",
    "lshift": "shift",
    "rshift": "shiftright",
    "super": "win",
    "meta": "win",
    "cmd": "win",
    "command": "win",
    "windows": "win",
    "winleft": "win",
    "superleft": "win",
    "superright": "winright",
    "return": "enter",
    "ret": "enter",
    "newline": "enter",
    "escape": "esc",
    "del": "delete",
    "ins": "insert",
    "bksp": "backspace",
    "back": "backspace",
    "pgup": "pageup",
    "pgdn": "pagedown",
    "prior": "pageup",
    "next": "pagedown",
    "arrowup": "up",
    "arrowdown": "down",
    "arrowleft": "left",
    "arrowright": "right",
    "uparrow": "up",
    "downarrow": "down",
    "leftarrow": "left",
    "rightarrow": "right",
    "spacebar": "space",
    "prtsc": "printscreen",
    "prtscr": "printscreen",
    "prntscrn": "printscreen",
    "print": "printscreen",
}

_CHAR_ALIASES = {" ": "space", "\n": "enter", "\r": "enter", "\t": "tab"}

_SINGLE_CHARS = frozenset(string.printable) - frozenset(string.whitespace)


def normalize_key(key: str) -> str:
    """Return the canonical name of one key.

    Args:
        key: A key name in any common spelling, or a single character.

    Returns:
        The lower-case pyautogui-style name (``"ctrl"``, ``"enter"``, ``"pagedown"``) or the
        character itself (case kept, so ``"A"`` stays ``"A"``).

    Raises:
        ArgumentError: The key is not known; the message suggests the closest names.
    """
    if not isinstance(key, str) or not key:
        raise ArgumentError(f"a key must be a non-empty string, got {key!r}")
    if key in _CHAR_ALIASES:
        return _CHAR_ALIASES[key]
    if len(key) == 1:
        if key in _SINGLE_CHARS or not key.isascii():
            return key
        raise ArgumentError(f"unknown key {key!r}")
    folded = key.strip().lower().replace("_", "").replace("-", "").replace(" ", "")
    if folded in _NAMED_KEYS:
        return folded
    if folded in _ALIASES:
        return _ALIASES[folded]
    if "+" in key:
        parts = [part.strip() for part in key.split("+") if part.strip()]
        raise ArgumentError(f"unknown key {key!r} (write each key separately, e.g. {parts!r})")
    close = difflib.get_close_matches(folded, sorted(_NAMED_KEYS | set(_ALIASES)), n=3, cutoff=0.6)
    suggestions = list(dict.fromkeys(_ALIASES.get(c, c) for c in close))[:2]
    hint = f" (did you mean {' or '.join(repr(c) for c in suggestions)}?)" if suggestions else ""
    raise ArgumentError(f"unknown key {key!r}{hint}")


def normalize_keys(keys: list[str] | tuple[str, ...]) -> tuple[str, ...]:
    """Normalize every key of a combination; an empty combination is an error.

    Args:
        keys: Key names, e.g. ``["Control", "s"]``.

    Returns:
        The canonical names, in order.

    Raises:
        ArgumentError: No keys were given, or one of them is unknown.
    """
    if not keys:
        raise ArgumentError("at least one key is required")
    return tuple(normalize_key(key) for key in keys)
