"""The OS: files and folders in the home, shell commands, the clipboard (``OSTools``), no window.

Its API is offered whatever app is focused. Standard library only.
"""

from __future__ import annotations

from ..spec import AppSpec

SPEC = AppSpec(
    key="os",
    launch="none",
    always_offered=True,
    opens_files=False,
    tools="desktop_gym.apps.os.tools:OSTools",
    packages=("xclip",),  # OSTools.get_clipboard / set_clipboard
    doctor=("xclip",),
)
