"""The media player (Debian's VLC 3.0): its spec; ``VlcTools`` in ``tools``.

VLC runs on the session's preferences (``~/.config/vlc/vlcrc``: no privacy dialog, no network
lookups) with its HTTP interface on a loopback port (a fresh password per launch, kept in vlcrc) and
its RC interface on a unix socket beside vlcrc; ``VlcTools`` drives both. Audio goes to ALSA's null
device. Standard library only.
"""

from __future__ import annotations

from ..spec import command_app

SPEC = command_app(
    "vlc",
    aliases=("media player", "video player", "music player", "audio player", "vlc media player", "cvlc"),
    packages=("vlc", "ffmpeg"),  # ffmpeg makes the tasks' clips inside the desktop
    doctor=("vlc", "ffmpeg"),
    file_types=(".mp4", ".mkv", ".webm", ".ogg", ".mp3", ".wav", ".avi", ".m3u"),
    tools="VlcTools",
    hooks="vlc",
)
