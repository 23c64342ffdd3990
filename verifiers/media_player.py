"""Verifiers of the media player (VLC): its saved preferences (vlcrc), the live playlist and playback
state, the selected tracks, and snapshot images.

The live ones judge what one read-only ``VlcTools`` call returns (``MEDIA_PLAYER_READS``); the file
ones get the file's bytes. Strict: a float preference compares by value, a playlist compares item by
item in order, a snapshot must have the video's size and its pixels the expected color.
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import unquote, urlsplit

from ._load import guarded_read
from .registry import register_verifier
from .result import VerifierResult

#: Each live media-player verifier -> the read-only ``VlcTools`` call whose result it judges.
MEDIA_PLAYER_READS = {
    "vlc_status": "get_status",
    "vlc_playlist": "list_playlist",
    "vlc_track": "list_tracks",
}
#: VLC 3's defaults of the preferences tasks check: vlcrc comments out a value equal to its default.
VLC_DEFAULTS = {
    "loop": "0",
    "random": "0",
    "repeat": "0",
    "qt-continue": "1",
    "volume-step": "12.800000",
    "qt-max-volume": "125",
    "snapshot-format": "png",
    "snapshot-prefix": "vlcsnap-",
    "snapshot-path": "",
    "snapshot-sequential": "0",
    "start-paused": "0",
    "play-and-exit": "0",
}
#: The biggest vlcrc read.
MAX_VLCRC_BYTES = 1024 * 1024


def vlcrc_values(data: bytes) -> dict[str, str]:
    """The keys set in vlcrc bytes (VLC ignores sections; a later line wins)."""
    from ..apps.vlc.vlcrc import parse_vlcrc

    if len(data) > MAX_VLCRC_BYTES:
        raise ValueError(f"vlcrc is over {MAX_VLCRC_BYTES} bytes")
    return parse_vlcrc(data.decode("utf-8", errors="replace"))


def _same(found: str | None, expected: Any) -> bool:
    if found is None:
        return False
    if isinstance(expected, bool):
        return found.strip() == ("1" if expected else "0")
    if isinstance(expected, int | float):
        try:
            return abs(float(found) - float(expected)) < 1e-6
        except ValueError:
            return False
    return found.strip() == str(expected)


@register_verifier("vlc_preferences", reads="file")
def verify_vlc_preferences(data: bytes | None, expected: Mapping[str, Any]) -> VerifierResult:
    """Each ``expected`` key has that value in vlcrc (booleans as 1/0, numbers by value); a key VLC left
    commented out has its default (:data:`VLC_DEFAULTS`)."""
    if data is None:
        return VerifierResult.failed("vlcrc does not exist")
    values = {**VLC_DEFAULTS, **guarded_read("vlcrc", lambda: vlcrc_values(data))}
    for key, value in expected.items():
        if not _same(values.get(key), value):
            return VerifierResult.failed(f"vlcrc has {key}={values.get(key)!r}, expected {value!r}", key=key)
    return VerifierResult.passed(f"vlcrc sets {', '.join(expected)} as asked")


def uri_path(uri: str) -> str:
    """The local path a ``file://`` URI names ("" for other URIs)."""
    parts = urlsplit(uri)
    return unquote(parts.path) if parts.scheme == "file" else ""


@register_verifier("vlc_playlist", reads="live")
def verify_vlc_playlist(items: Sequence[Mapping[str, Any]], paths: Sequence[str]) -> VerifierResult:
    """The playlist holds exactly the files ``paths`` (absolute), in this order."""
    found = [uri_path(str(item.get("uri", ""))) for item in items]
    if found != list(paths):
        return VerifierResult.failed("the playlist is not as asked", expected=list(paths), found=found[:50])
    return VerifierResult.passed(f"the playlist holds the {len(paths)} files in order")


@register_verifier("vlc_status", reads="live")
def verify_vlc_status(
    status: Mapping[str, Any], expected: Mapping[str, Any], time_tolerance: int = 1
) -> VerifierResult:
    """The player's status has each ``expected`` field: ``time`` within ``time_tolerance`` s, ``rate``
    within 0.01, the rest exactly (``True`` is not 1)."""
    for name, value in expected.items():
        found = status.get(name)
        if name == "time":
            ok = isinstance(found, int) and abs(found - value) <= time_tolerance
        elif name == "rate":
            ok = isinstance(found, int | float) and abs(found - value) < 0.01
        else:
            ok = type(found) is type(value) and found == value
        if not ok:
            return VerifierResult.failed(f"the player's {name} is {found!r}, expected {value!r}", field=name)
    return VerifierResult.passed(f"the player's {', '.join(expected)} are as asked")


@register_verifier("vlc_track", reads="live")
def verify_vlc_track(tracks: Sequence[Mapping[str, Any]], name_contains: str) -> VerifierResult:
    """Exactly one track is selected, and its name contains ``name_contains`` ("Disable" for off)."""
    chosen = [t for t in tracks if t.get("selected")]
    if len(chosen) != 1:
        return VerifierResult.failed(f"{len(chosen)} tracks are selected, expected one", found=list(tracks))
    name = str(chosen[0].get("name", ""))
    if name_contains.casefold() not in name.casefold():
        return VerifierResult.failed(f"the selected track is {name!r}, not one naming {name_contains!r}")
    return VerifierResult.passed(f"the selected track is {name!r}")


def image_mean_color(data: bytes) -> dict[str, Any]:
    """An image's size and mean RGB over its central half (away from scaling edges)."""

    def read() -> dict[str, Any]:
        from PIL import Image

        with Image.open(io.BytesIO(data)) as image:
            width, height = image.size
            if width * height > 40_000_000:
                raise ValueError(f"{width} x {height} pixels is too big")
            box = (width // 4, height // 4, max(width // 4 + 1, 3 * width // 4), max(height // 4 + 1, 3 * height // 4))
            middle = image.convert("RGB").crop(box).resize((1, 1), Image.Resampling.BOX)
            return {"width": width, "height": height, "format": image.format, "mean": list(middle.getpixel((0, 0)))}

    return guarded_read("image", read)


@register_verifier("vlc_snapshot", reads="file")
def verify_vlc_snapshot(
    data: bytes | None, width: int, height: int, color: Sequence[int], image_format: str = "PNG", tolerance: int = 40
) -> VerifierResult:
    """A snapshot: an image of ``image_format``, ``width`` x ``height``, whose middle is ``color`` (RGB,
    each channel within ``tolerance``: video compression shifts colors a little)."""
    if data is None:
        return VerifierResult.failed("the snapshot does not exist")
    found = image_mean_color(data)
    if found["format"] != image_format:
        return VerifierResult.failed(f"the snapshot is {found['format']}, expected {image_format}")
    if (found["width"], found["height"]) != (width, height):
        size = f"{found['width']} x {found['height']}"
        return VerifierResult.failed(f"the snapshot is {size}, expected {width} x {height}")
    if any(abs(a - b) > tolerance for a, b in zip(found["mean"], color, strict=True)):
        return VerifierResult.failed(f"the snapshot's color is {found['mean']}, expected {list(color)}")
    return VerifierResult.passed(f"the snapshot shows {list(color)} at {width} x {height}")
