"""OSWorld's GIMP and VLC tasks -> ours: their checks on GIMP's profile, VLC's preferences and player
state, and the images GIMP saves.

Importing this module adds the metrics to ``osworld_evaluators.METRICS``. GIMP's profile is
``~/.config/GIMP/2.10`` here as in OSWorld, and VLC's preferences ``~/.config/vlc/vlcrc``, so their
getters read the same files. Metrics that judge an image by a trait of OSWorld's own measure (more
saturated, brighter, a triangle in the middle) stay unsupported, named, until a verifier measures the
same trait.
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable, Mapping
from pathlib import Path

from ..verifiers.image_edits import image_grid
from .osworld_evaluators import METRICS, Node, Unsupported, _gold, _no_options, _rules, _source

GIMP_PROFILE = "~/.config/GIMP/2.10"
VLCRC = "~/.config/vlc/vlcrc"
#: OSWorld's vlcrc rule keys -> the vlcrc key each checks.
VLC_RULE_KEYS = {
    "expected_qt_bgcone": "qt-bgcone",
    "expected_qt_max_volume": "qt-max-volume",
    "expected_qt_minimal_view": "qt-minimal-view",
    "expected_one_instance_when_started_from_file": "one-instance-when-started-from-file",
}
#: OSWorld's structural-similarity metrics compare whole images; ours compares a grid of cells with
#: these tolerances (mean and worst cell, 0-255): a re-encoded copy passes, a different edit fails.
STRUCTURE_TOLERANCE = {"max_mean_difference": 8.0, "max_cell_difference": 32.0}


def _gimp_file(result: Mapping) -> str:
    name = str(result.get("file_name", ""))
    if not re.fullmatch(r"[A-Za-z0-9_.-]+", name):
        raise Unsupported(f"gimp_config_file names no file of GIMP's profile ({name!r})")
    return f"{GIMP_PROFILE}/{name}"


def check_config_status(result: Mapping, expected: Mapping, options: Mapping, cache_dir: Path) -> Node:
    """A line ``(key ... value)`` of a GIMP profile file: the key (or two-word key) first, the value last."""
    _no_options(options, "check_config_status")
    if result.get("type") != "gimp_config_file":
        raise Unsupported(f"check_config_status on a {result.get('type')!r} getter (only gimp_config_file)")
    rules = _rules(expected)
    key, value = rules.get("key"), rules.get("value")
    words = [key] if isinstance(key, str) else list(key or [])
    if not words or len(words) > 2 or not isinstance(value, str):
        raise Unsupported(f"check_config_status rule {dict(rules)!r} has no key-value equivalent")
    head = " ".join(re.escape(str(word)) for word in words)
    pattern = rf"(?m)^\({head}(?: .*)? {re.escape(value)}\)\s*$"
    return {"name": "file_regex", "file": _gimp_file(result), "args": {"pattern": pattern}}


def check_image_size(result: Mapping, expected: Mapping, options: Mapping, cache_dir: Path) -> Node:
    """The saved image's height and/or width."""
    _no_options(options, "check_image_size")
    rules = _rules(expected)
    size = {name: int(rules[name]) for name in ("width", "height") if rules.get(name) is not None}
    if not size:
        raise Unsupported("check_image_size with neither width nor height")
    return {"name": "image_properties", **_source(result), "args": size}


def _close_to(result: Mapping, reference: bytes) -> Node:
    from PIL import Image

    with Image.open(io.BytesIO(reference)) as image:
        width, height = image.size
        grid = image_grid(image)
    args = {"width": width, "height": height, "grid": grid, **STRUCTURE_TOLERANCE}
    return {"name": "image_close_to", **_source(result), "args": args}


def check_image_mirror(result: Mapping, expected: Mapping, options: Mapping, cache_dir: Path) -> Node:
    """The saved image is the original flipped left to right."""
    from PIL import Image, ImageOps

    _no_options(options, "check_image_mirror")
    with Image.open(io.BytesIO(_gold(expected, cache_dir))) as original:
        buffer = io.BytesIO()
        ImageOps.mirror(original.convert("RGB")).save(buffer, format="PNG")
    return _close_to(result, buffer.getvalue())


def check_structure_sim(result: Mapping, expected: Mapping, options: Mapping, cache_dir: Path) -> Node:
    """The saved image looks like the expected one (OSWorld: SSIM >= 0.9; here: the cell grid)."""
    _no_options(options, "check_structure_sim")
    return _close_to(result, _gold(expected, cache_dir))


def check_file_exists_and_structure_sim(result: Mapping, expected: Mapping, options: Mapping, cache_dir: Path) -> Node:
    """The exported file exists and looks like the original (an export, not an edit)."""
    _no_options(options, "check_file_exists_and_structure_sim")
    return _close_to(result, _gold(expected, cache_dir))


def _vlcrc(result: Mapping) -> None:
    if result.get("type") != "vlc_config":
        raise Unsupported(f"a vlcrc check on a {result.get('type')!r} getter (only vlc_config)")


def _vlc_preference(rule_key: str) -> Callable[[Mapping, Mapping, Mapping, Path], Node]:
    def metric(result: Mapping, expected: Mapping, options: Mapping, cache_dir: Path) -> Node:
        _no_options(options, rule_key)
        _vlcrc(result)
        rules = _rules(expected)
        if rule_key not in rules:
            raise Unsupported(f"the rule has no {rule_key!r}")
        value = rules[rule_key]
        return {"name": "vlc_preferences", "file": VLCRC, "args": {"expected": {VLC_RULE_KEYS[rule_key]: value}}}

    return metric


def check_global_key_play_pause(result: Mapping, expected: Mapping, options: Mapping, cache_dir: Path) -> Node:
    """A global play/pause hotkey is set (1) in vlcrc."""
    _no_options(options, "check_global_key_play_pause")
    _vlcrc(result)
    if str(_rules(expected).get("expected_global_key_play_pause")) != "1":
        raise Unsupported("check_global_key_play_pause other than 1 (a key set)")
    return {"name": "file_regex", "file": VLCRC, "args": {"pattern": r"(?m)^global-key-play-pause=\S"}}


def is_vlc_playing(result: Mapping, expected: Mapping, options: Mapping, cache_dir: Path) -> Node:
    """VLC plays the named file (OSWorld reads the HTTP status; here the player's status)."""
    _no_options(options, "is_vlc_playing")
    rules = _rules(expected)
    if rules.get("type") != "file_name":
        raise Unsupported(f"is_vlc_playing by {rules.get('type')!r} (only a file name; a URL needs the internet)")
    wanted = {"state": "playing", "title": str(rules["file_name"])}
    return {"name": "vlc_status", "vlc": "get_status", "args": {"expected": wanted}}


def is_vlc_fullscreen(result: Mapping, expected: Mapping, options: Mapping, cache_dir: Path) -> Node:
    """VLC's video is fullscreen (OSWorld compares its window with the screen; here VLC's own flag)."""
    _no_options(options, "is_vlc_fullscreen")
    return {"name": "vlc_status", "vlc": "get_status", "args": {"expected": {"fullscreen": True}}}


METRICS.update(
    {
        "check_config_status": check_config_status,
        "check_image_size": check_image_size,
        "check_image_mirror": check_image_mirror,
        "check_structure_sim": check_structure_sim,
        "check_file_exists_and_structure_sim": check_file_exists_and_structure_sim,
        "check_global_key_play_pause": check_global_key_play_pause,
        "is_vlc_playing": is_vlc_playing,
        "is_vlc_fullscreen": is_vlc_fullscreen,
        **{f"check_{key.removeprefix('expected_')}": _vlc_preference(key) for key in VLC_RULE_KEYS},
    }
)
