"""The web browser (Debian's Chromium): its spec; ``ChromeTools`` in ``tools``; the desktop's offline
sites in ``sites``.

Chromium runs on the session's profile (``~/.config/chromium``), reaches only the desktop's own sites
(``*.gym.test``, through the guest's site server as its proxy) and offers DevTools on a loopback port
written into the profile. Standard library only.
"""

from __future__ import annotations

from ..spec import AppSpec

SPEC = AppSpec(
    key="chrome",
    launch="command",
    command=("chromium",),
    window_class="chromium",
    aliases=("chromium", "browser", "web browser", "google chrome", "google-chrome", "firefox", "internet"),
    packages=("chromium",),
    doctor=("chromium",),
    file_types=(".html", ".htm", ".pdf", ".svg"),
    tools="desktop_gym.apps.chrome.tools:ChromeTools",
    launch_hook="desktop_gym.apps.chrome.launch:browser_argv",
    ready_hook="desktop_gym.apps.chrome.launch:wait_browser_ready",
)
