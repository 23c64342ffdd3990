"""The VLC preferences ``VlcTools`` may change (a fixed table of vlcrc keys with checked values), where
VLC writes snapshots, and closing a running VLC before its vlcrc is changed. Standard library only.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from ...polling import poll_until
from ..tools_base import ApiArgumentError, ApiCallError
from .control import VlcControlError, rc_call

#: Seconds VLC may take to quit (it writes vlcrc on the way out).
QUIT_TIMEOUT_S = 15.0
#: The most snapshot files looked at in one folder.
MAX_LISTED = 5000
_PREFIX = re.compile(r"[A-Za-z0-9_.-]{1,40}")
_LANGUAGES = re.compile(r"[a-z]{2,3}(,[a-z]{2,3}){0,7}|")


def _boolean(value: Any, key: str, home: Path) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    if value in (0, 1, "0", "1"):
        return str(int(value))
    raise ApiArgumentError(f"{key} is true or false, got {value!r}")


def _ranged(low: float, high: float, integer: bool) -> Callable[[Any, str, Path], str]:
    def check(value: Any, key: str, home: Path) -> str:
        try:
            number = float(value) if not isinstance(value, bool) else math.nan
        except (TypeError, ValueError):
            number = math.nan
        if not math.isfinite(number) or not low <= number <= high or (integer and number != int(number)):
            kind = "a whole number" if integer else "a number"
            raise ApiArgumentError(f"{key} is {kind} from {low:g} to {high:g}, got {value!r}")
        return str(int(number)) if integer else f"{number:.6f}"

    return check


def _choice(*choices: str) -> Callable[[Any, str, Path], str]:
    def check(value: Any, key: str, home: Path) -> str:
        if not isinstance(value, str) or value.strip().lower() not in choices:
            raise ApiArgumentError(f"{key} is one of {', '.join(choices)}, got {value!r}")
        return value.strip().lower()

    return check


def _pattern(pattern: re.Pattern[str], what: str) -> Callable[[Any, str, Path], str]:
    def check(value: Any, key: str, home: Path) -> str:
        if not isinstance(value, str) or not pattern.fullmatch(value.strip()):
            raise ApiArgumentError(f"{key} is {what}, got {value!r}")
        return value.strip()

    return check


def _folder(value: Any, key: str, home: Path) -> str:
    if not isinstance(value, str) or not value.strip() or len(value) > 1024 or "\n" in value:
        raise ApiArgumentError(f"{key} is a folder path, got {value!r}")
    text = value.strip()
    target = Path(text.replace("~", str(home), 1) if text.startswith("~") else text)
    target = (target if target.is_absolute() else home / target).resolve()
    if target != home.resolve() and home.resolve() not in target.parents:
        raise ApiArgumentError(f"{key}: {value} is outside the home folder")
    if not target.is_dir():
        raise ApiArgumentError(f"{key}: the folder {value} does not exist")
    return str(target)


#: vlcrc key -> check turning the agent's value into the saved text.
SETTABLE: dict[str, Callable[[Any, str, Path], str]] = {
    "snapshot-path": _folder,
    "snapshot-format": _choice("png", "jpg", "tiff"),
    "snapshot-prefix": _pattern(_PREFIX, "1 to 40 letters, digits, '_', '.' or '-'"),
    "snapshot-sequential": _boolean,
    "volume-step": _ranged(1, 256, integer=False),
    "qt-max-volume": _ranged(60, 300, integer=True),
    "volume-save": _boolean,
    "loop": _boolean,
    "repeat": _boolean,
    "random": _boolean,
    "rate": _ranged(0.25, 4, integer=False),
    "start-paused": _boolean,
    "play-and-exit": _boolean,
    "qt-continue": _ranged(0, 2, integer=True),
    "qt-recentplay": _boolean,
    "qt-minimal-view": _boolean,
    "audio-language": _pattern(_LANGUAGES, "language codes like 'en' or 'fr,en'"),
    "sub-language": _pattern(_LANGUAGES, "language codes like 'en' or 'fr,en'"),
    "sub-autodetect-file": _boolean,
}


def check_values(values: Any, home: Path) -> dict[str, str]:
    """The agent's preferences as vlcrc text, each checked against :data:`SETTABLE`.

    Raises:
        ApiArgumentError: not a non-empty object, an unknown key or a bad value (names it).
    """
    if not isinstance(values, dict) or not 0 < len(values) <= len(SETTABLE):
        raise ApiArgumentError("values is an object of 1 or more preferences")
    checked = {}
    for key, value in values.items():
        if key not in SETTABLE:
            raise ApiArgumentError(f"{key!r} is not a preference you can set; these are: {', '.join(SETTABLE)}")
        checked[key] = SETTABLE[key](value, key, Path(home))
    return checked


def snapshot_folders(home: Path, keys: Mapping[str, str]) -> list[Path]:
    """Where VLC may write a snapshot: its 'snapshot-path', else the Pictures folder or the home."""
    configured = keys.get("snapshot-path", "").strip()
    folders = [Path(configured)] if configured else []
    return [*folders, Path(home) / "Pictures", Path(home)]


def snapshot_files(folders: list[Path], prefix: str) -> set[Path]:
    """The snapshot files now in ``folders`` (by VLC's name prefix)."""
    found: set[Path] = set()
    for folder in folders:
        try:
            with os.scandir(folder) as entries:
                for count, entry in enumerate(entries):
                    if count >= MAX_LISTED:
                        break
                    if entry.name.startswith(prefix) and entry.is_file():
                        found.add(Path(entry.path))
        except OSError:
            continue
    return found


def _running(socket_path: Path) -> list[int]:
    """Pids of the VLC processes whose RC interface is ``socket_path`` (this session's VLC)."""
    flag = f"--rc-unix={socket_path}".encode()
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as cmdline:
                if flag in cmdline.read(65536).split(b"\0"):
                    pids.append(int(entry))
        except OSError:
            continue
    return pids


def quit_running_vlc(home: Path, socket_path: Path) -> bool:
    """Quit this session's VLC (if running) and wait until it has exited; returns whether one ran.

    Raises:
        ApiCallError: VLC did not exit within :data:`QUIT_TIMEOUT_S`.
    """
    if not _running(socket_path):
        return False
    try:
        rc_call(socket_path, "quit", timeout=5.0)
    except VlcControlError:
        pass  # it may close the connection as it quits
    try:
        poll_until(lambda: not _running(socket_path), QUIT_TIMEOUT_S, "VLC to quit", interval=0.1, error=TimeoutError)
    except TimeoutError as error:
        raise ApiCallError(f"VLC did not quit, so its preferences cannot be changed: {error}") from None
    return True
