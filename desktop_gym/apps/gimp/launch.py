"""Starting GIMP in the desktop, and knowing when it is usable (the app's launch and ready hooks).

:func:`gimp_argv` prepares the session's profile (``~/.config/GIMP/2.10``, GIMP's own default, so a
``gimp`` started from the terminal joins the same one): one window (single-window mode), no splash,
no tips, no update check, no saved session. It starts GIMP's Script-Fu server with ``-b`` on a
loopback port chosen for this launch and written into the profile (``gym-scriptfu-port``), where
``GimpTools`` reads it. :func:`wait_gimp_ready` returns once the server answers and the image given
at launch is open (GIMP runs ``-b`` commands after the command line's images are loaded and shown).
Standard library only.
"""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path

from ...polling import poll_until
from .scriptfu import ScriptFuError, evaluate, scheme_string

#: The Debian binary.
GIMP = "gimp"
#: The profile folder, relative to the session home.
PROFILE_DIR = ".config/GIMP/2.10"
#: The file in the profile holding the Script-Fu server's port.
PORT_FILE = "gym-scriptfu-port"
#: What the launch records for the ready hook, in the launch folder.
LAUNCH_RECORD = "gimp-launch.json"
#: Preferences of a quiet test desktop (written over any a task left).
GIMPRC = """\
(check-updates no)
(restore-session no)
(save-session-info no)
(save-device-status no)
(color-profile-policy keep)
(undo-levels 50)
"""
#: The window layout: one window holding the image, docks and toolbox, covering the screen.
SESSIONRC = """\
(session-info "toplevel"
    (factory-entry "gimp-single-image-window")
    (position 0 0)
    (size {width} {height}))
(single-window-mode yes)
"""
#: The screen size assumed when the display cannot be asked.
DEFAULT_SCREEN = (1280, 800)


def profile_dir(home: Path) -> Path:
    """The GIMP profile of the session whose home is ``home``."""
    return Path(home) / PROFILE_DIR


def port_file(home: Path) -> Path:
    """Where the running GIMP's Script-Fu port is written."""
    return profile_dir(home) / PORT_FILE


def prepare_profile(home: Path) -> Path:
    """Create the profile with the quiet preferences (keeping any other files); returns its folder."""
    profile = profile_dir(home)
    profile.mkdir(parents=True, exist_ok=True)
    (profile / "gimprc").write_text(GIMPRC)
    width, height = screen_size()
    (profile / "sessionrc").write_text(SESSIONRC.format(width=width, height=height))
    port_file(home).unlink(missing_ok=True)  # a stale one from a killed GIMP
    return profile


def screen_size() -> tuple[int, int]:
    """The size of the display GIMP will open on (``$DISPLAY``), else :data:`DEFAULT_SCREEN`."""
    try:
        from Xlib import display as xdisplay

        connection = xdisplay.Display()
    except Exception:  # noqa: BLE001 - no Xlib or no display: the default size is fine
        return DEFAULT_SCREEN
    try:
        screen = connection.screen()
        return int(screen.width_in_pixels), int(screen.height_in_pixels)
    finally:
        connection.close()


def free_port() -> int:
    """A loopback port no one listens on now (the kernel's pick)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def gimp_argv(home: Path, launch_dir: Path, file: str | None) -> list[str]:
    """The command line of GIMP for the session at ``home`` (opening ``file`` if given)."""
    prepare_profile(Path(home))
    port = free_port()
    log_file = Path(launch_dir) / "scriptfu.log"
    server = f'(plug-in-script-fu-server RUN-NONINTERACTIVE "127.0.0.1" {port} {scheme_string(str(log_file))})'
    port_file(Path(home)).write_text(str(port))
    (Path(launch_dir) / LAUNCH_RECORD).write_text(json.dumps({"port": port, "file": file}))
    return [GIMP, "--no-splash", "--batch-interpreter=plug-in-script-fu-eval", "-b", server, *([file] if file else [])]


def wait_gimp_ready(home: Path, launch_dir: Path, deadline: float) -> None:
    """Return once the Script-Fu server answers and the launch's image (if any) is open.

    Raises:
        TimeoutError: not by ``deadline`` (names what was last seen).
    """
    record = json.loads((Path(launch_dir) / LAUNCH_RECORD).read_text())
    port, wanted = int(record["port"]), 1 if record.get("file") else 0

    def ready() -> bool:
        images = evaluate(port, "(gimp-image-list)", timeout=max(0.5, min(5.0, deadline - time.monotonic())))
        return isinstance(images, list) and bool(images) and int(images[0]) >= wanted  # type: ignore[call-overload]

    poll_until(
        ready,
        deadline - time.monotonic(),
        f"GIMP's Script-Fu server on port {port}" + (" and the image opened" if wanted else ""),
        interval=0.1,
        retry_on=(ScriptFuError,),
        error=TimeoutError,
    )
