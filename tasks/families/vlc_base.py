"""Shared parts of the VLC suite: the seeded media each episode plays (made in the desktop: WAV tones
and text written from the host, video clips by ffmpeg in the guest), the task base (fresh preferences,
media written, VLC started and optionally playing a file, paused), the state readers and oracle helpers.

Verifiers read the live player (``VlcTools``' read-only calls: status, playlist, tracks), the saved
preferences (vlcrc, read after VLC has quit and written it) and the files the agent left.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from ...apps.vlc import media
from ...apps.vlc.vlcrc import VLCRC
from ..base import Task, TaskContext, TaskSetupError
from ..family_kit import tool_call

VIDEOS = "~/Videos"
MUSIC = "~/Music"
PICTURES = "~/Pictures"
#: Where VLC keeps its preferences, as the agent sees it.
VLCRC_PATH = "~/" + VLCRC
STEMS = ("harbor", "meadow", "lecture", "trailer", "sample", "holiday", "concert", "demo", "intro", "review")
TUNES = ("morning", "drift", "lumen", "echo", "tide", "ember", "quartz", "sierra", "nova", "willow")
#: Read-only ``VlcTools`` calls a verifier may make.
READ_METHODS = ("get_status", "list_playlist", "list_tracks", "get_preferences")
#: The seconds a generated video lasts (long enough that it still plays when a slow agent's episode ends).
CLIP_SECONDS = 120


def vlc_call(method: str, **arguments: Any) -> str:
    """``VlcTools.method(arg=...)`` as an action string."""
    return tool_call("VlcTools", method, **arguments)


def home_path(ctx: TaskContext, path: str) -> str:
    """``~/...`` as the absolute path in the session home (VLC's playlist names files by it)."""
    home = ctx.client.exec('printf %s "$HOME"', shell=True, timeout=10).stdout.strip()
    return home + path[1:] if path.startswith("~") else path


def run(ctx: TaskContext, command: str, what: str, timeout: float = 60) -> None:
    """Run a shell command in the desktop; a failure is a ``TaskSetupError`` naming ``what``."""
    done = ctx.client.exec(command, shell=True, timeout=timeout)
    if done.returncode != 0:
        raise TaskSetupError(f"could not {what}: {(done.stderr or done.stdout).strip()[:300]}")


def make_color_clip(ctx: TaskContext, path: str, colors: Sequence[str], seconds_each: float) -> None:
    """A video at ``path`` (``~/...``) showing each color for ``seconds_each`` s."""
    run(ctx, media.color_clip_command(colors, seconds_each, home_path(ctx, path)), f"make {path}")


def make_tracks_clip(
    ctx: TaskContext, path: str, audio: Sequence[str], subtitles: Sequence[tuple[str, str]], seconds: float
) -> None:
    """A Matroska clip with audio tracks in ``audio`` languages and ``(text, language)`` subtitle tracks."""
    files = []
    for index, (text, language) in enumerate(subtitles):
        name = f"~/.cache/gym-media/sub{index}.srt"
        ctx.client.put_file(name, media.srt([(0.0, seconds, text)]).encode())
        files.append((home_path(ctx, name), language))
    run(ctx, media.tracks_clip_command(seconds, audio, files, home_path(ctx, path)), f"make {path}")


def read_state(ctx: TaskContext, method: str, **arguments: Any) -> Any:
    """One read-only ``VlcTools`` call on the running VLC.

    Raises:
        ValueError: ``method`` is not a read-only call.
    """
    if method not in READ_METHODS:
        raise ValueError(f"{method!r} is not one of the read-only calls {READ_METHODS}")
    return json.loads(ctx.client.call_api("VlcTools", method, json.dumps(arguments), timeout=30.0))


def saved_vlcrc(ctx: TaskContext) -> bytes | None:
    """vlcrc as VLC keeps it: VLC is closed first (it writes its preferences as it quits)."""
    ctx.client.call_api("VlcTools", "quit", "{}", timeout=30.0)
    return ctx.read_file(VLCRC_PATH)


class VlcTask(Task):
    """A task in VLC: ``setup`` clears VLC's preferences, makes the folders and media (``make_media``),
    starts VLC on ``start_file`` and, when ``start_paused``, pauses it at the start."""

    apps: ClassVar[Sequence[str]] = ("vlc",)
    max_steps = 10
    tags: ClassVar[Sequence[str]] = ("vlc", "media")
    oracles = ("api",)
    start_paused: ClassVar[bool] = False

    def make_media(self, ctx: TaskContext) -> None:
        """Write this episode's media files."""

    def start_file(self, params: Mapping[str, Any]) -> str | None:
        """The file VLC opens at start (``~/...``); None for an empty player."""
        return None

    def prepare(self, ctx: TaskContext) -> None:
        """Change the player before the agent starts (items in the playlist, a mode set)."""

    def setup(self, ctx: TaskContext) -> None:
        run(ctx, f"rm -rf ~/.config/vlc ~/.local/share/vlc && mkdir -p {VIDEOS} {MUSIC} {PICTURES}", "reset VLC")
        self.make_media(ctx)
        start = self.start_file(ctx.params)
        launched = ctx.client.launch_app("vlc", home_path(ctx, start) if start else None, timeout=60.0)
        if not launched.alive:
            raise TaskSetupError("VLC exited right after it started")
        if start and self.start_paused:
            ctx.client.call_api("VlcTools", "pause", "{}", timeout=30.0)
        self.prepare(ctx)

    @staticmethod
    def state(ctx: TaskContext, method: str, **arguments: Any) -> Any:
        """A read-only ``VlcTools`` call on the running VLC."""
        return read_state(ctx, method, **arguments)
