"""The terminal (xterm running bash): no API, ready once its shell reads input (a marker file).

Standard library only.
"""

from __future__ import annotations

from ..spec import AppSpec

SPEC = AppSpec(
    key="terminal",
    launch="command",
    command=("xterm",),
    window_class="xterm",
    aliases=("xterm", "shell", "console", "gnome-terminal", "gnome terminal", "bash"),
    opens_files=False,
    ready_marker=True,
    packages=("xterm",),
    doctor=("xterm",),
)
