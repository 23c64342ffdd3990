"""VLC track and snapshot families: switch the audio language, pick or turn off subtitles, save a
snapshot of a moment of a video.

The clips are made by ffmpeg in the desktop from the seed (audio tracks tagged with languages, subtitle
tracks of seeded text, color segments in a seeded order); the verifiers read VLC's live track lists
and the snapshot image's size and pixels.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import numpy as np

from ...apps.vlc import media
from ...verifiers import verify_vlc_snapshot, verify_vlc_track
from ...verifiers.result import VerifierResult
from ..base import Policy, TaskContext
from ..family_kit import api_calls, pick
from .vlc_base import CLIP_SECONDS, PICTURES, STEMS, VIDEOS, VlcTask, make_color_clip, make_tracks_clip, vlc_call

#: ISO 639-2 code -> the name VLC shows.
LANGUAGES = {"eng": "English", "fra": "French", "deu": "German", "spa": "Spanish", "ita": "Italian"}


#: Seconds a tracks clip lasts: it plays (VLC switches tracks only while playing) until the episode ends.
TRACKS_SECONDS = 300


class TracksClip(VlcTask):
    """A playing Matroska clip with seeded audio and subtitle tracks."""

    max_steps = 8

    def clip_params(self, rng: np.random.Generator) -> dict[str, Any]:
        audio = pick(rng, list(LANGUAGES), 3)
        subtitles = pick(rng, list(LANGUAGES), 2)
        return {"video": f"{VIDEOS}/{pick(rng, STEMS)}.mkv", "audio": audio, "subtitles": subtitles}

    def make_media(self, ctx: TaskContext) -> None:
        subs = [(f"Subtitle in {LANGUAGES[code]}", code) for code in ctx.params["subtitles"]]
        make_tracks_clip(ctx, ctx.params["video"], ctx.params["audio"], subs, TRACKS_SECONDS)

    def start_file(self, params: Mapping[str, Any]) -> str | None:
        return params["video"]


class AudioLanguage(TracksClip):
    """Switch the audio to the track of a language."""

    id = "vlc.audio_language"
    oracles = ("api",)
    goal = "The video {video} is open in VLC. Switch its audio to the {language} track."
    tags = ("vlc", "media", "tracks")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        params = self.clip_params(rng)
        index = int(rng.integers(1, 3))  # not the first: VLC starts on that one
        return {**params, "index": index, "language": LANGUAGES[params["audio"][index]]}

    def verify(self, ctx: TaskContext) -> VerifierResult:
        return verify_vlc_track(self.state(ctx, "list_tracks", kind="audio"), f"[{ctx.params['language']}]")

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        # VLC numbers the elementary streams in file order: video 0, the audio tracks 1.., then subtitles.
        return api_calls(vlc_call("select_track", kind="audio", track_id=params["index"] + 1))

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "index": 3 - params["index"]}


class SubtitleLanguage(TracksClip):
    """Show the subtitles of a language."""

    id = "vlc.subtitle_language"
    oracles = ("api",)
    goal = "The video {video} is open in VLC. Show its {language} subtitles."
    tags = ("vlc", "media", "tracks", "subtitles")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        params = self.clip_params(rng)
        index = int(rng.integers(2))
        return {**params, "index": index, "language": LANGUAGES[params["subtitles"][index]]}

    @staticmethod
    def track_id(index: int) -> int:
        """VLC's id of subtitle track ``index``: after the video (0) and the three audio tracks."""
        return 4 + index

    def prepare(self, ctx: TaskContext) -> None:
        # VLC shows the first subtitle track by default: start on the other language, so doing nothing fails.
        other = {"kind": "subtitle", "track_id": self.track_id(1 - ctx.params["index"])}
        ctx.client.call_api("VlcTools", "select_track", json.dumps(other), timeout=30.0)

    def verify(self, ctx: TaskContext) -> VerifierResult:
        return verify_vlc_track(self.state(ctx, "list_tracks", kind="subtitle"), f"[{ctx.params['language']}]")

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        return api_calls(vlc_call("select_track", kind="subtitle", track_id=self.track_id(params["index"])))

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "index": 1 - params["index"]}


class SubtitlesOff(TracksClip):
    """Turn the subtitles off."""

    id = "vlc.subtitles_off"
    oracles = ("api",)
    goal = "The video {video} is open in VLC with {language} subtitles showing. Turn the subtitles off."
    tags = ("vlc", "media", "tracks", "subtitles")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        params = self.clip_params(rng)
        return {**params, "off": True, "language": LANGUAGES[params["subtitles"][0]]}

    def verify(self, ctx: TaskContext) -> VerifierResult:
        return verify_vlc_track(self.state(ctx, "list_tracks", kind="subtitle"), "Disable")

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        return api_calls(vlc_call("select_track", kind="subtitle", track_id=-1 if params["off"] else 5))

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "off": False}  # the other language instead of none


class SnapshotAt(VlcTask):
    """Save a snapshot of the video at a given moment (the color it shows then is seeded)."""

    id = "vlc.snapshot_at"
    oracles = ("api",)
    goal = "VLC has {video} open. Save a snapshot (PNG) of the frame at {seconds} seconds as {snapshot}."
    tags = ("vlc", "media", "snapshot", "images")
    start_paused = True

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        colors = pick(rng, list(media.COLORS), 4)
        segment = int(rng.integers(4))
        seconds_each = CLIP_SECONDS // 4
        return {
            "video": f"{VIDEOS}/{pick(rng, STEMS)}.mp4",
            "colors": colors,
            "segment": segment,
            "seconds": segment * seconds_each + seconds_each // 2,
            "snapshot": f"{PICTURES}/frame_{int(rng.integers(100, 1000))}.png",
        }

    def make_media(self, ctx: TaskContext) -> None:
        make_color_clip(ctx, ctx.params["video"], ctx.params["colors"], CLIP_SECONDS // 4)

    def start_file(self, params: Mapping[str, Any]) -> str | None:
        return params["video"]

    def verify(self, ctx: TaskContext) -> VerifierResult:
        color = media.COLORS[ctx.params["colors"][ctx.params["segment"]]]
        return verify_vlc_snapshot(ctx.read_file(ctx.params["snapshot"]), *media.SIZE, color)

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        return api_calls(
            vlc_call("seek", seconds=params["seconds"]), vlc_call("take_snapshot", path=params["snapshot"])
        )

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        seconds_each = CLIP_SECONDS // 4
        return {**params, "seconds": (params["seconds"] + seconds_each) % CLIP_SECONDS}
