"""The web browser (Debian's Chromium): its spec; ``ChromeTools`` in ``tools``; the desktop's offline
sites in ``sites``.

Chromium runs on the session's profile (``~/.config/chromium``), reaches only the desktop's own sites
(``*.gym.test``, through the guest's site server as its proxy) and offers DevTools on a loopback port
written into the profile. Standard library only.
"""

from __future__ import annotations

from ..spec import command_app

SPEC = command_app(
    "chrome",
    command="chromium",
    aliases=("chromium", "browser", "web browser", "google chrome", "google-chrome", "firefox", "internet"),
    packages=("chromium",),
    file_types=(".html", ".htm", ".pdf", ".svg"),
    tools="ChromeTools",
    hooks="browser",
    present_hook="desktop_gym.apps.chrome.launch:browser_presented",
)
