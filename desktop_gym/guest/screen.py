"""Screen capture with mss (X shared memory); encoding happens only when asked for.

A frame the guest already wrote is kept when the X DAMAGE extension says nothing was drawn
since: a step whose action changed nothing costs one X round trip instead of a grab and a
channel swap (~4 ms at 1280x720).
"""

from __future__ import annotations

import io
import os
import select
import threading
import time
from collections.abc import Callable

import mss
import numpy as np
from PIL import Image
from Xlib import display as xdisplay
from Xlib.ext import damage as xdamage

from ..settle import wait_until_stable

FORMATS = ("raw", "png", "jpeg")
LOOK_INTERVAL_S = 0.01  # with an ``on_look`` hook, ``wait_quiet`` looks at least this often
FRESH_FRAME_MAX_AGE = 1.0  # seconds a kept frame may be reused on damage alone, a hedge against a missed event
KEEP_FRAMES_VARIABLE = "DESKTOP_GYM_KEEP_FRAMES"  # "0": grab every frame (the baseline bench_local.py compares)


class DamageWatch:
    """Tells whether anything was drawn on the screen since the last look (X DAMAGE on the root).

    Args:
        display_name: X display such as ``":5"``; ``None`` uses ``$DISPLAY``.
        window_id: Watch this window only (what its app draws into it) instead of the root.

    Raises:
        RuntimeError: the X server lacks the DAMAGE extension.
    """

    def __init__(self, display_name: str | None = None, window_id: int | None = None) -> None:
        self._display = xdisplay.Display(display_name)
        if not self._display.has_extension("DAMAGE"):
            self._display.close()
            raise RuntimeError(f"the X server of display {display_name!r} has no DAMAGE extension")
        self._display.damage_query_version()
        self._event_type = self._display.extension_event.DamageNotify
        drawable = self._display.screen().root
        if window_id is not None:
            drawable = self._display.create_resource_object("window", window_id)
        self._damage = drawable.damage_create(xdamage.DamageReportNonEmpty)
        self._display.sync()
        self._lock = threading.Lock()
        self._drawn_unseen = True  # damage a wait_quiet consumed, still owed to drawn_since_last_look
        self._draws = 0  # looks that found something drawn, whoever looked

    def draws(self) -> int:
        """Look now; the number of looks so far that found something drawn (it grows with every draw seen)."""
        with self._lock:
            if self._take_damage():
                self._drawn_unseen = True
            return self._draws

    def drawn_since_last_look(self) -> bool:
        """Whether the screen was drawn on since the previous call (True on the first).

        Clearing the damage and reading the events share one round trip: whatever the server drew
        before the clear has queued its event before the reply, and anything drawn after it sends a
        new event, seen by the next call.
        """
        with self._lock:
            drawn, self._drawn_unseen = self._take_damage() or self._drawn_unseen, False
            return drawn

    def mark(self) -> None:
        """Start a fresh span: later damage is what ``wait_quiet`` sees first (call before input)."""
        with self._lock:
            if self._take_damage():
                self._drawn_unseen = True

    def wait_quiet(
        self, quiet: float, timeout: float, paint_due: float = 0.0, on_look: Callable[[bool, float], None] | None = None
    ) -> bool:
        """Return True once nothing was drawn for ``quiet`` seconds (from now on), False at ``timeout``.

        Until the ``time.monotonic()`` instant ``paint_due`` (input was just sent), a quiet span
        counts only once something was drawn: an app may take 25-140 ms to repaint after input.
        Sleeps on the X connection between looks, so a draw wakes it at once. ``on_look(drawn,
        quiet_for)`` hears every look (at least every ``LOOK_INTERVAL_S``): whether it found a draw,
        and for how long nothing has been drawn.
        """
        started = last_draw = time.monotonic()
        deadline, drawn = started + timeout, False
        while True:
            with self._lock:
                drawn_now = self._take_damage()
                if drawn_now:
                    self._drawn_unseen = drawn = True
                    last_draw = time.monotonic()
            now = time.monotonic()
            if on_look is not None:
                on_look(drawn_now, now - last_draw)
            ready_at = last_draw + quiet if drawn else max(last_draw + quiet, paint_due)
            if now >= ready_at:
                return True
            if now >= deadline:
                return False
            # Wait for the next event (a draw), the moment the screen counts as settled, or the next look.
            wake = min(ready_at, deadline, now + LOOK_INTERVAL_S if on_look is not None else deadline)
            select.select([self._display.fileno()], [], [], max(0.0, wake - now))

    def wait_drawn(self, timeout: float) -> bool:
        """Return True once something is drawn after the latest ``mark`` (or look), False at ``timeout``."""
        deadline = time.monotonic() + timeout
        while True:
            with self._lock:
                if self._take_damage():
                    self._drawn_unseen = True
                    return True
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            select.select([self._display.fileno()], [], [], remaining)

    def _take_damage(self) -> bool:
        """Clear the damage and say whether any was reported (caller holds the lock)."""
        self._display.damage_subtract(self._damage)
        self._display.sync()
        drawn = False
        for _ in range(self._display.pending_events()):
            if self._display.next_event().type == self._event_type:
                drawn = True
        self._draws += drawn
        return drawn

    def close(self) -> None:
        """Release the damage object and the X connection."""
        with self._lock:
            try:
                self._display.damage_destroy(self._damage)
            finally:
                self._display.close()


class ScreenCapture:
    """Grabs the whole X screen.

    Args:
        display_name: X display such as ``":5"``; ``None`` uses ``$DISPLAY``.
    """

    def __init__(self, display_name: str | None = None) -> None:
        kwargs = {"display": display_name} if display_name else {}
        self._mss = mss.MSS(**kwargs)
        self._monitor = self._mss.monitors[0]
        self._lock = threading.Lock()
        self._damage: DamageWatch | None = None  # None: every frame is grabbed afresh
        if os.environ.get(KEEP_FRAMES_VARIABLE, "1") != "0":
            try:
                self._damage = DamageWatch(display_name)
            except RuntimeError:
                pass
        self._fresh_frames: dict[str, float] = {}  # key of a kept frame -> when it was grabbed
        self._fresh_lock = threading.Lock()

    @property
    def size(self) -> tuple[int, int]:
        """``(width, height)`` of the screen."""
        return self._monitor["width"], self._monitor["height"]

    def grab(self, out: np.ndarray | None = None) -> np.ndarray:
        """Return the screen as an ``HxWx3`` uint8 RGB array (written into ``out`` when given).

        Three channel assignments into a preallocated array beat a strided ``[..., 2::-1]`` copy
        and PIL's BGRX unpacker on mss's freshly allocated buffer (~1 ms vs 2.7-5 ms at 1280x720).
        """
        with self._lock:
            shot = self._mss.grab(self._monitor)
        bgra = np.frombuffer(shot.raw, dtype=np.uint8).reshape(shot.height, shot.width, 4)
        rgb = np.empty((shot.height, shot.width, 3), dtype=np.uint8) if out is None else out
        if rgb.shape != (shot.height, shot.width, 3):
            raise ValueError(f"frame buffer is {rgb.shape[1]}x{rgb.shape[0]}, the screen {shot.width}x{shot.height}")
        rgb[..., 0] = bgra[..., 2]
        rgb[..., 1] = bgra[..., 1]
        rgb[..., 2] = bgra[..., 0]
        return rgb

    def refresh(self, out: np.ndarray, key: str) -> bool:
        """Bring ``out``, the frame named ``key``, up to date; True when it was grabbed anew.

        The grab is skipped when ``out`` holds this capture's latest grab for ``key``, nothing was
        drawn since (DAMAGE), and that grab is under ``FRESH_FRAME_MAX_AGE`` old. Only this capture
        may write ``out``.
        """
        with self._fresh_lock:
            if self._damage is None or self._damage.drawn_since_last_look():
                self._fresh_frames.clear()
            now = time.monotonic()
            grabbed = self._fresh_frames.get(key)
            if grabbed is not None and now - grabbed < FRESH_FRAME_MAX_AGE:
                return False
            self.grab(out=out)
            self._fresh_frames[key] = now
            return True

    def mark_input(self) -> None:
        """Note that input follows: a settle then waits for what it draws (see ``DamageWatch.mark``)."""
        if self._damage is not None:
            self._damage.mark()

    def wait_quiet(
        self, quiet: float, timeout: float, paint_due: float = 0.0, on_look: Callable[[bool, float], None] | None = None
    ) -> bool:
        """Return True once the screen stayed unchanged for ``quiet`` seconds, False at ``timeout``.

        On X DAMAGE where the server has it (see ``DamageWatch.wait_quiet`` for ``paint_due`` and
        ``on_look``); otherwise by comparing grabs, as the host once did (``on_look`` is not called).
        """
        if self._damage is not None:
            return self._damage.wait_quiet(quiet, timeout, paint_due, on_look)
        return wait_until_stable(self.grab, timeout=timeout, quiet=quiet)

    @property
    def draws(self) -> Callable[[], int] | None:
        """``DamageWatch.draws`` of the screen (None without X DAMAGE: draws cannot be counted)."""
        return self._damage.draws if self._damage is not None else None

    def encode(self, fmt: str = "raw", quality: int = 80) -> tuple[bytes, int, int]:
        """Grab the screen and return ``(data, width, height)``.

        Args:
            fmt: ``"raw"`` (packed RGB bytes), ``"png"`` (compress level 1) or ``"jpeg"``.
            quality: JPEG quality (1-95).

        Raises:
            ValueError: for an unknown format.
        """
        fmt = (fmt or "raw").lower()
        if fmt == "jpg":
            fmt = "jpeg"
        if fmt not in FORMATS:
            raise ValueError(f"unknown screenshot format {fmt!r} (use one of {', '.join(FORMATS)})")
        pixels = self.grab()
        height, width = pixels.shape[:2]
        if fmt == "raw":
            return pixels.tobytes(), width, height
        image = Image.fromarray(pixels)
        buffer = io.BytesIO()
        if fmt == "png":
            image.save(buffer, format="PNG", compress_level=1)
        else:
            image.save(buffer, format="JPEG", quality=max(1, min(95, quality)))
        return buffer.getvalue(), width, height

    def close(self) -> None:
        """Release the X connection and shared memory."""
        with self._lock:
            self._mss.close()
            if self._damage is not None:
                self._damage.close()
