"""Starting Chromium in the desktop, and knowing when it is usable (the app's launch and ready hooks).

:func:`browser_argv` builds the command line: the session's profile (:mod:`.profile`), no first-run
or update prompts, no network but the desktop's own sites (every request goes through the site
server, :mod:`.sites`, as its proxy), and DevTools on a loopback port Chromium picks (written into
the profile's ``DevToolsActivePort``; ``ChromeTools`` reads it there). :func:`wait_browser_ready`
returns once DevTools answers and the first tab's page has loaded. Standard library only.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from pathlib import Path

from ...errors import TaskSetupError
from ...polling import poll_until
from ..devtools import DevToolsError, connect
from ..devtools_browser import CHROMIUM_QUIET_FLAGS
from .profile import prepare_profile, profile_dir

log = logging.getLogger(__name__)

#: The Debian binary.
CHROMIUM = "chromium"
#: What a new browser shows when no file is given.
START_URL = "about:blank"
#: The browser's own flags: the quiet ones, and the page on the accessibility bus (element ids, a11y text).
QUIET_FLAGS = (
    *CHROMIUM_QUIET_FLAGS,
    "--disable-features=Translate,MediaRouter,OptimizationHints,AutofillServerCommunication",
    "--start-maximized",
    "--force-renderer-accessibility",
)

#: Where a task puts the sites' data for the next browser, relative to the home; the launch moves it
#: into the site server's own folder, out of the agent's reach.
SITE_SEED = ".config/gym-sites/site.json"
#: The biggest seed file read.
MAX_SEED_BYTES = 8 * 1024 * 1024

_site_lock = threading.Lock()
_site: dict[str, object] = {}


def site_server(data_dir: Path) -> object:
    """The desktop's site server (one per guest process), started on first use with ``data_dir``."""
    from .sites import SiteServer

    with _site_lock:
        server = _site.get("server")
        if server is None or _site.get("data") != data_dir:
            if server is not None:
                server.close()  # type: ignore[attr-defined]
            data_dir.mkdir(parents=True, exist_ok=True)
            server = SiteServer(data_dir).start()
            _site.update(server=server, data=data_dir)
        return server


def site_data_dir() -> Path | None:
    """The running site server's data folder (its stored submissions), None before a browser started."""
    with _site_lock:
        data = _site.get("data")
    return data if isinstance(data, Path) else None


def fresh_site_data(data_dir: Path, home: Path) -> None:
    """Start the sites' state afresh for a new browser: no stored submissions or request log, and the
    task's seed (``SITE_SEED`` in the home, moved out of it) or the built-in data.

    Raises:
        TaskSetupError: the seed is not valid site data (names the part).
    """
    from .sites.store import REQUESTS_FILE, SITE_FILE, SUBMISSIONS_FILE, seed

    data_dir.mkdir(parents=True, exist_ok=True)
    for name in (SUBMISSIONS_FILE, REQUESTS_FILE, SITE_FILE):
        (data_dir / name).unlink(missing_ok=True)
    seed_file = home / SITE_SEED
    if not seed_file.is_file():
        return
    try:
        if seed_file.stat().st_size > MAX_SEED_BYTES:
            raise TaskSetupError(f"{SITE_SEED} is over {MAX_SEED_BYTES} bytes")
        parts = json.loads(seed_file.read_text(encoding="utf-8"))
        if not isinstance(parts, dict):
            raise TaskSetupError(f"{SITE_SEED} must hold a JSON object of site parts")
        seed(data_dir, **parts)
    except ValueError as error:
        raise TaskSetupError(f"{SITE_SEED} is not valid JSON: {error}") from None
    finally:
        seed_file.unlink(missing_ok=True)


def browser_argv(home: Path, launch_dir: Path, file: str | None) -> list[str]:
    """The command line of a browser for the session at ``home`` (opening ``file`` if given).

    The site server's data lives beside the launch folders, outside the home the agent can write.
    """
    data_dir = Path(launch_dir).parent / "sites"
    fresh_site_data(data_dir, Path(home))
    server = site_server(data_dir)
    profile = prepare_profile(Path(home))
    target = Path(file).as_uri() if file else START_URL
    return [
        CHROMIUM,
        f"--user-data-dir={profile}",
        "--remote-debugging-port=0",
        f"--proxy-server=http://{server.address}",  # type: ignore[attr-defined]
        *QUIET_FLAGS,
        target,
    ]


def wait_browser_ready(home: Path, launch_dir: Path, deadline: float) -> None:
    """Return once the browser's DevTools answers and its first tab finished loading.

    Raises:
        TimeoutError: not by ``deadline`` (names what was last seen).
    """
    from ..devtools_browser import Browser

    profile = profile_dir(Path(home))

    def ready() -> bool:
        with connect(profile, timeout=max(0.5, min(5.0, deadline - time.monotonic()))) as devtools:
            browser = Browser(devtools)
            return bool(browser.pages()) and browser.ready_state() == "complete"

    poll_until(
        ready,
        deadline - time.monotonic(),
        "the browser's DevTools and its first page loaded",
        interval=0.05,
        retry_on=(DevToolsError,),
        error=TimeoutError,
    )


def browser_presented(home: Path, launch_dir: Path, timeout: float) -> bool:
    """After an action: the tab in front has handled its queued input and drawn it (two animation frames)."""
    from ..devtools_browser import wait_two_frames

    return wait_two_frames(profile_dir(Path(home)), timeout)
