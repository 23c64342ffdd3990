"""Argument and result values several apps' tools share: colours, font sizes and plain numbers."""

from __future__ import annotations

import re

from desktop_gym.guest.apps.tool_schema import ApiArgumentError

_COLOR = re.compile(r"^#?([0-9A-Fa-f]{6})$")


def parse_color(color: str, arg: str = "color") -> int:
    """``"#FF0000"`` (or ``"FF0000"``) -> the RGB integer UNO wants.

    Raises:
        ApiArgumentError: not a 6-digit hex colour; names ``arg``.
    """
    match = _COLOR.match(color) if isinstance(color, str) else None
    if match is None:
        raise ApiArgumentError(f"{arg} must be a hex colour like '#FF0000', got {color!r}")
    return int(match.group(1), 16)


def check_font_size(size: float) -> None:
    """Refuse a font size outside 1 to 400 points (what the office apps accept).

    Raises:
        ApiArgumentError: names ``size``.
    """
    if not 1 <= size <= 400:
        raise ApiArgumentError(f"size must be between 1 and 400 points, got {size:g}")


def plain_number(value: float) -> int | float:
    """Integral floats as ints (``5.0`` -> ``5``), for readable JSON results."""
    return int(value) if float(value).is_integer() and abs(value) < 2**53 else value
