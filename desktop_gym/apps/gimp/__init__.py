"""The image editor (Debian's GIMP 2.10): its spec; ``GimpTools`` in ``tools``.

GIMP runs on the session's profile (``~/.config/GIMP/2.10``: one window, no splash, tips or update
checks) with its Script-Fu server on a loopback port written into the profile; ``GimpTools`` sends it
scripts. Standard library only.
"""

from __future__ import annotations

from ..spec import command_app

SPEC = command_app(
    "gimp",
    aliases=("image editor", "photo editor", "photoshop", "gnu image manipulation program", "paint"),
    packages=("gimp",),
    file_types=(".png", ".jpg", ".jpeg", ".xcf", ".bmp", ".gif", ".tif", ".tiff"),
    save_keys=("ctrl+s",),
    tools="GimpTools",
    hooks="gimp",
)
