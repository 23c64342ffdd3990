"""The terminal (xterm running bash): no API, ready once its shell reads input (a marker file).

Standard library only.
"""

from __future__ import annotations

from ..spec import command_app

SPEC = command_app(
    "terminal",
    command="xterm",
    aliases=("xterm", "shell", "console", "gnome-terminal", "gnome terminal", "bash"),
    opens_files=False,
    ready_marker=True,
    packages=("xterm",),
)
