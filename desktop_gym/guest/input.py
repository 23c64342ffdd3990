"""Mouse and keyboard input through the XTEST extension, in-process (python-xlib).

One X connection is kept open; every action ends with ``display.sync()`` so its events have
reached the server (and are queued for the target app) when the call returns. Long actions
(many presses, long text) flush every :data:`FLUSH_EVERY` events, so python-xlib's request
buffer stays small, and check for :meth:`InputController.cancel` between events, so a reset
(``KillApps``) stops input in flight instead of waiting behind it. Repeats and text are capped
(:data:`MAX_REPEATS`, :data:`MAX_TEXT_CHARS`) whatever the caller asks.

Characters that have no keycode in the current keymap are typed by mapping a spare keycode to
their keysym. Those mappings are kept as a small cache (least recently used is reused first) and
restored at ``close()``: restoring right after the key press would race with the app, which reads
the keymap only when it handles the event.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from Xlib import XK, X
from Xlib import display as xdisplay
from Xlib.ext import xtest

from desktop_gym.errors import InputCancelledError

FLUSH_EVERY = 64
"""Input events queued before the X connection is flushed (one event = a press or a release)."""
MAX_REPEATS = 10_000
"""Most clicks, presses or scroll notches one input call may make."""
MAX_TEXT_CHARS = 100_000
"""Longest text one ``type_text`` call may type."""


BUTTONS = {"left": 1, "middle": 2, "right": 3}
SCROLL_BUTTONS = {"up": 4, "down": 5, "left": 6, "right": 7}

# pyautogui-style key names (lowercased) -> X keysym names.
KEY_ALIASES = {
    "ctrl": "Control_L",
    "control": "Control_L",
    "ctrlleft": "Control_L",
    "ctrlright": "Control_R",
    "alt": "Alt_L",
    "altleft": "Alt_L",
    "altright": "Alt_R",
    "option": "Alt_L",
    "shift": "Shift_L",
    "shiftleft": "Shift_L",
    "shiftright": "Shift_R",
    "win": "Super_L",
    "super": "Super_L",
    "winleft": "Super_L",
    "winright": "Super_R",
    "cmd": "Super_L",
    "command": "Super_L",
    "meta": "Meta_L",
    "enter": "Return",
    "return": "Return",
    "tab": "Tab",
    "esc": "Escape",
    "escape": "Escape",
    "backspace": "BackSpace",
    "delete": "Delete",
    "del": "Delete",
    "insert": "Insert",
    "home": "Home",
    "end": "End",
    "pageup": "Prior",
    "pgup": "Prior",
    "pagedown": "Next",
    "pgdn": "Next",
    "up": "Up",
    "down": "Down",
    "left": "Left",
    "right": "Right",
    "space": "space",
    "capslock": "Caps_Lock",
    "numlock": "Num_Lock",
    "scrolllock": "Scroll_Lock",
    "printscreen": "Print",
    "prtsc": "Print",
    "print": "Print",
    "pause": "Pause",
    "menu": "Menu",
    "apps": "Menu",
}
KEY_ALIASES.update({f"f{n}": f"F{n}" for n in range(1, 25)})

TEXT_KEYSYMS = {"\n": XK.XK_Return, "\r": XK.XK_Return, "\t": XK.XK_Tab}


def char_to_keysym(char: str) -> int:
    """Return the X keysym that types ``char`` (Latin-1 keysyms equal their code point)."""
    if char in TEXT_KEYSYMS:
        return TEXT_KEYSYMS[char]
    code = ord(char)
    if 0x20 <= code <= 0x7E or 0xA0 <= code <= 0xFF:
        return code
    return 0x01000000 | code


def key_to_keysym(key: str) -> int:
    """Resolve a key name (``"ctrl"``, ``"F5"``, ``"a"``, ``"+"``) to a keysym.

    Raises:
        ValueError: ``unknown key 'xyz'``.
    """
    if len(key) == 1:
        return char_to_keysym(key)
    name = KEY_ALIASES.get(key.lower())
    keysym = XK.string_to_keysym(name or key)
    if keysym == X.NoSymbol:
        raise ValueError(f"unknown key {key!r}")
    return keysym


class InputController:
    """XTEST input on one X display.

    Args:
        display_name: X display such as ``":5"``; ``None`` uses ``$DISPLAY``.
    """

    def __init__(self, display_name: str | None = None) -> None:
        self._display = xdisplay.Display(display_name)
        if not self._display.has_extension("XTEST"):
            raise RuntimeError(f"X display {self._display.get_display_name()} has no XTEST extension")
        self._root = self._display.screen().root
        self._width = self._display.screen().width_in_pixels
        self._height = self._display.screen().height_in_pixels
        self._lock = threading.Lock()
        self._generation = 0  # bumped by cancel(); loops stop when it changes under them
        self._shift = self._display.keysym_to_keycode(XK.XK_Shift_L)
        self._keymap: dict[int, tuple[int, int]] = {}
        self._spare: list[int] = []
        self._remapped: OrderedDict[int, int] = OrderedDict()  # keysym -> spare keycode, LRU order
        self._load_keymap()

    def _load_keymap(self) -> None:
        info = self._display.display.info
        first, count = info.min_keycode, info.max_keycode - info.min_keycode + 1
        for offset, row in enumerate(self._display.get_keyboard_mapping(first, count)):
            keycode = first + offset
            if not any(row):
                self._spare.append(keycode)
                continue
            for level in (0, 1):  # plain and shifted; other groups need AltGr, remap instead
                if level < len(row) and row[level] and row[level] not in self._keymap:
                    self._keymap[row[level]] = (keycode, level)
            if len(row) > 1 and row[0] and not row[1] and row[0] not in self._keymap:
                self._keymap[row[0]] = (keycode, 0)

    def close(self) -> None:
        """Restore remapped keycodes and close the X connection."""
        with self._lock:
            for keycode in self._remapped.values():
                self._display.change_keyboard_mapping(keycode, [(X.NoSymbol,) * 2])
            self._remapped.clear()
            self._display.sync()
            self._display.close()

    # -- cancelling and batching -----------------------------------------------------------------

    def cancel(self) -> None:
        """Stop every input call in flight at its next event (they raise ``InputCancelledError``).

        Needs no lock, so it works while a long ``type_text`` holds the input lock.
        """
        self._generation += 1

    def _repeat(self, count: int, what: str) -> range:
        if not 0 <= count <= MAX_REPEATS:
            raise ValueError(f"{what} must be 0 to {MAX_REPEATS}, got {count}")
        return range(count)

    def _tick(self, done: int, generation: int) -> None:
        """After ``done`` events of one call: stop if cancelled, flush every ``FLUSH_EVERY``."""
        if self._generation != generation:
            self._display.flush()
            raise InputCancelledError("input stopped: the session was reset while it was being delivered")
        if done % FLUSH_EVERY == 0:
            self._display.flush()

    # -- pointer -------------------------------------------------------------------------------

    def _check_point(self, x: int, y: int) -> None:
        if not (0 <= x < self._width and 0 <= y < self._height):
            raise ValueError(f"point ({x}, {y}) is outside the {self._width}x{self._height} screen")

    def _move(self, x: int | None, y: int | None) -> None:
        if x is None and y is None:
            return
        if x is None or y is None:
            pointer = self._root.query_pointer()
            x = pointer.root_x if x is None else x
            y = pointer.root_y if y is None else y
        self._check_point(x, y)
        xtest.fake_input(self._display, X.MotionNotify, x=x, y=y)

    @staticmethod
    def _button(button: str) -> int:
        try:
            return BUTTONS[button.lower()]
        except KeyError:
            raise ValueError(f"unknown mouse button {button!r} (use left, middle or right)") from None

    def pointer_position(self) -> tuple[int, int]:
        """Return the pointer's root coordinates."""
        with self._lock:
            pointer = self._root.query_pointer()
            return pointer.root_x, pointer.root_y

    def move(self, x: int, y: int) -> None:
        """Move the pointer to ``(x, y)``."""
        with self._lock:
            self._move(x, y)
            self._display.sync()

    def click(self, x: int | None = None, y: int | None = None, button: str = "left", count: int = 1) -> None:
        """Click ``count`` times at ``(x, y)`` (``None`` = where the pointer is)."""
        number = self._button(button)
        if count < 1:
            raise ValueError(f"click count must be >= 1, got {count}")
        repeats = self._repeat(count, "click count")
        with self._lock:
            generation = self._generation
            self._move(x, y)
            for done in repeats:
                xtest.fake_input(self._display, X.ButtonPress, number)
                xtest.fake_input(self._display, X.ButtonRelease, number)
                self._tick(done + 1, generation)
            self._display.sync()

    def mouse_down(self, x: int | None = None, y: int | None = None, button: str = "left") -> None:
        """Press a mouse button (at ``(x, y)`` if given)."""
        self._button_event(X.ButtonPress, x, y, button)

    def mouse_up(self, x: int | None = None, y: int | None = None, button: str = "left") -> None:
        """Release a mouse button (at ``(x, y)`` if given)."""
        self._button_event(X.ButtonRelease, x, y, button)

    def _button_event(self, event: int, x: int | None, y: int | None, button: str) -> None:
        number = self._button(button)
        with self._lock:
            self._move(x, y)
            xtest.fake_input(self._display, event, number)
            self._display.sync()

    def drag(self, x1: int, y1: int, x2: int, y2: int, button: str = "left", steps: int = 8) -> None:
        """Press at ``(x1, y1)``, move in ``steps`` motions to ``(x2, y2)`` and release there.

        Intermediate motions let toolkits pass their drag threshold.
        """
        number = self._button(button)
        self._check_point(x1, y1)
        self._check_point(x2, y2)
        with self._lock:
            self._move(x1, y1)
            xtest.fake_input(self._display, X.ButtonPress, number)
            self._display.sync()
            for step in range(1, steps + 1):
                self._move(x1 + (x2 - x1) * step // steps, y1 + (y2 - y1) * step // steps)
                self._display.sync()
            xtest.fake_input(self._display, X.ButtonRelease, number)
            self._display.sync()

    def scroll(self, x: int | None = None, y: int | None = None, dx: int = 0, dy: int = 0) -> None:
        """Scroll by notches: ``dy > 0`` down, ``dy < 0`` up, ``dx > 0`` right, ``dx < 0`` left."""
        notches = [
            (self._repeat(abs(dy), "scroll dy"), dy, "up", "down"),
            (self._repeat(abs(dx), "scroll dx"), dx, "left", "right"),
        ]
        with self._lock:
            generation = self._generation
            self._move(x, y)
            for repeats, amount, negative, positive in notches:
                number = SCROLL_BUTTONS[positive if amount > 0 else negative]
                for done in repeats:
                    xtest.fake_input(self._display, X.ButtonPress, number)
                    xtest.fake_input(self._display, X.ButtonRelease, number)
                    self._tick(done + 1, generation)
            self._display.sync()

    # -- keyboard ------------------------------------------------------------------------------

    def _keycode_for(self, keysym: int) -> tuple[int, bool]:
        """Return ``(keycode, needs_shift)``, mapping a spare keycode when the keysym has none."""
        if keysym in self._keymap:
            keycode, level = self._keymap[keysym]
            return keycode, level == 1
        if keysym in self._remapped:
            self._remapped.move_to_end(keysym)
            return self._remapped[keysym], False
        if self._spare:
            keycode = self._spare.pop()
        elif self._remapped:
            _, keycode = self._remapped.popitem(last=False)
        else:
            raise RuntimeError(f"no spare keycode to map keysym {keysym:#x}")
        self._display.change_keyboard_mapping(keycode, [(keysym, keysym)])
        self._display.sync()
        self._remapped[keysym] = keycode
        return keycode, False

    def _tap(self, keysym: int) -> None:
        keycode, shift = self._keycode_for(keysym)
        if shift:
            xtest.fake_input(self._display, X.KeyPress, self._shift)
        xtest.fake_input(self._display, X.KeyPress, keycode)
        xtest.fake_input(self._display, X.KeyRelease, keycode)
        if shift:
            xtest.fake_input(self._display, X.KeyRelease, self._shift)

    def key_down(self, key: str) -> None:
        """Hold a key down (``key`` is a key name such as ``"ctrl"`` or ``"a"``)."""
        self._key_event(X.KeyPress, key)

    def key_up(self, key: str) -> None:
        """Release a key."""
        self._key_event(X.KeyRelease, key)

    def _key_event(self, event: int, key: str) -> None:
        keysym = key_to_keysym(key)
        with self._lock:
            keycode, _ = self._keycode_for(keysym)
            xtest.fake_input(self._display, event, keycode)
            self._display.sync()

    def press(self, key: str, presses: int = 1) -> None:
        """Tap a key ``presses`` times (shift is added when a character needs it)."""
        keysym = key_to_keysym(key)
        repeats = self._repeat(presses, "presses")
        with self._lock:
            generation = self._generation
            for done in repeats:
                self._tap(keysym)
                self._tick(done + 1, generation)
            self._display.sync()

    def hotkey(self, keys: list[str]) -> None:
        """Press ``keys`` in order and release them in reverse order (e.g. ``["ctrl", "s"]``)."""
        if not keys:
            raise ValueError("hotkey needs at least one key")
        keysyms = [key_to_keysym(key) for key in keys]
        with self._lock:
            keycodes = [self._keycode_for(keysym)[0] for keysym in keysyms]
            for keycode in keycodes:
                xtest.fake_input(self._display, X.KeyPress, keycode)
            for keycode in reversed(keycodes):
                xtest.fake_input(self._display, X.KeyRelease, keycode)
            self._display.sync()

    def type_text(self, text: str) -> None:
        """Type any Unicode text; ``"\\n"`` is Return and ``"\\t"`` is Tab."""
        if len(text) > MAX_TEXT_CHARS:
            raise ValueError(f"type_text types at most {MAX_TEXT_CHARS} characters, got {len(text)}")
        with self._lock:
            generation = self._generation
            for done, char in enumerate(text, start=1):
                self._tap(char_to_keysym(char))
                self._tick(done, generation)
            self._display.sync()
