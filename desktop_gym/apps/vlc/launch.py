"""Starting VLC in the desktop, and knowing when it is usable (the app's launch and ready hooks).

:func:`vlc_argv` prepares the session's preferences (``~/.config/vlc/vlcrc``, VLC's own file, so a
``vlc`` started from the terminal reads the same): no first-run privacy dialog, no network metadata
lookups, and the HTTP interface's loopback port and a fresh password for this launch (VLC keeps them
in vlcrc; ``VlcTools`` reads them there). The command line adds what must not be saved: audio to
ALSA's ``null`` device (the desktop has no sound card; VLC still applies volume), the RC interface on
a unix socket beside vlcrc, no title or snapshot overlays on the video. :func:`wait_vlc_ready`
returns once both interfaces answer (the launcher has already seen the window mapped). Standard
library only.
"""

from __future__ import annotations

import secrets
import socket
import time
from pathlib import Path

from ...polling import poll_until
from .control import VlcControlError, http_get, rc_call
from .vlcrc import parse_vlcrc, read_vlcrc, update_vlcrc, vlcrc_path

#: The Debian binary.
VLC = "vlc"
#: The RC socket's name, in the vlcrc folder.
RC_SOCKET = "gym-rc.sock"
#: Preferences every launch sets: quiet, offline.
QUIET_PREFERENCES = {
    "qt-privacy-ask": "0",
    "metadata-network-access": "0",
    "qt-recentplay": "1",
    "http-host": "127.0.0.1",
}
#: Flags for this run only (VLC does not save command-line values to vlcrc).
RUN_FLAGS = (
    "--no-qt-privacy-ask",
    "--no-metadata-network-access",
    "--aout=alsa",
    "--alsa-audio-device=null",
    "--extraintf=oldrc:http",
    "--rc-fake-tty",
    "--no-video-title-show",
    "--no-snapshot-preview",
    "--no-qt-error-dialogs",
)


def rc_socket(home: Path) -> Path:
    """Where the running VLC's RC interface listens."""
    return vlcrc_path(home).parent / RC_SOCKET


def control_address(home: Path) -> tuple[int, str]:
    """The HTTP interface's ``(port, password)`` as the launch wrote them into vlcrc.

    Raises:
        VlcControlError: vlcrc has no port or password (VLC was not started by the launcher).
    """
    try:
        keys = parse_vlcrc(read_vlcrc(Path(home)))
    except (OSError, ValueError) as error:
        raise VlcControlError(f"vlcrc is unreadable: {error}") from None
    port, password = keys.get("http-port", ""), keys.get("http-password", "")
    if not port.isdigit() or not 0 < int(port) < 65536 or not password:
        raise VlcControlError("VLC's control port is not in vlcrc (launch vlc with open_app first)")
    return int(port), password


def free_port() -> int:
    """A loopback port no one listens on now (the kernel's pick)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def prepare_preferences(home: Path) -> tuple[int, str]:
    """Write the quiet preferences and a fresh control port and password into vlcrc; returns them."""
    port, password = free_port(), secrets.token_hex(16)
    update_vlcrc(Path(home), {**QUIET_PREFERENCES, "http-port": str(port), "http-password": password})
    rc_socket(Path(home)).unlink(missing_ok=True)  # a stale one from a killed VLC
    return port, password


def vlc_argv(home: Path, launch_dir: Path, file: str | None) -> list[str]:
    """The command line of VLC for the session at ``home`` (opening ``file`` if given)."""
    prepare_preferences(Path(home))
    return [VLC, *RUN_FLAGS, f"--rc-unix={rc_socket(Path(home))}", *([file] if file else [])]


def wait_vlc_ready(home: Path, launch_dir: Path, deadline: float) -> None:
    """Return once VLC's HTTP interface answers with its status and its RC socket answers.

    Raises:
        TimeoutError: not by ``deadline`` (names what was last seen).
    """
    port, password = control_address(Path(home))
    sock = rc_socket(Path(home))

    def ready() -> bool:
        wait = max(0.5, min(5.0, deadline - time.monotonic()))
        status = http_get(port, password, "status.json", timeout=wait)
        # any answer will do: a paused VLC (the 'start-paused' preference) answers only "Type 'pause' to continue."
        return isinstance(status, dict) and "state" in status and bool(rc_call(sock, "volume", timeout=wait).strip())

    poll_until(
        ready,
        deadline - time.monotonic(),
        f"VLC's HTTP interface on port {port} and its RC socket {sock}",
        interval=0.1,
        retry_on=(VlcControlError,),
        error=TimeoutError,
    )
