"""VLC playback families: the volume, the speed, pausing at a moment of the video, the playlist modes.

Each starts VLC playing a seeded color clip; the verifier reads the live player's status.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ...verifiers import verify_vlc_status
from ...verifiers.result import VerifierResult
from ..base import Policy, TaskContext
from ..family_kit import api_calls, pick
from .vlc_base import CLIP_SECONDS, STEMS, VIDEOS, VlcTask, make_color_clip, vlc_call

COLOR_ORDER = ("red", "green", "blue", "yellow")


class PlayingClip(VlcTask):
    """A task over a color clip that VLC plays from the start."""

    def clip_params(self, rng: np.random.Generator) -> dict[str, Any]:
        return {"video": f"{VIDEOS}/{pick(rng, STEMS)}.mp4", "colors": list(COLOR_ORDER)}

    def make_media(self, ctx: TaskContext) -> None:
        params = ctx.params
        make_color_clip(ctx, params["video"], params["colors"], CLIP_SECONDS / len(params["colors"]))

    def start_file(self, params: Mapping[str, Any]) -> str | None:
        return params["video"]


class SetVolume(PlayingClip):
    """Set the playback volume to a percentage."""

    id = "vlc.set_volume"
    oracles = ("api",)
    goal = "VLC is playing {video}. Set VLC's volume to {percent}%."
    tags = ("vlc", "media", "playback")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        return {**self.clip_params(rng), "percent": int(rng.choice([15, 25, 35, 45, 55, 65, 75, 85, 120, 140]))}

    def verify(self, ctx: TaskContext) -> VerifierResult:
        return verify_vlc_status(self.state(ctx, "get_status"), {"volume": ctx.params["percent"]})

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        return api_calls(vlc_call("set_volume", percent=params["percent"]))

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "percent": params["percent"] + 5}


class PlaybackSpeed(PlayingClip):
    """Play the video at another speed."""

    id = "vlc.playback_speed"
    oracles = ("api",)
    goal = "VLC is playing {video}. Make it play at {rate}x speed."
    tags = ("vlc", "media", "playback")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        return {**self.clip_params(rng), "rate": float(rng.choice([0.5, 0.75, 1.25, 1.5, 2.0]))}

    def verify(self, ctx: TaskContext) -> VerifierResult:
        return verify_vlc_status(self.state(ctx, "get_status"), {"rate": ctx.params["rate"]})

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        return api_calls(vlc_call("set_rate", rate=params["rate"]))

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "rate": params["rate"] + 0.25}


class PauseAt(PlayingClip):
    """Jump to a moment of the video and leave it paused there."""

    id = "vlc.pause_at"
    oracles = ("api",)
    goal = "VLC is playing {video}. Jump to {seconds} seconds into the video and leave it paused there."
    tags = ("vlc", "media", "playback", "seek")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        return {**self.clip_params(rng), "seconds": int(rng.integers(5, CLIP_SECONDS - 8))}

    def verify(self, ctx: TaskContext) -> VerifierResult:
        status = self.state(ctx, "get_status")
        return verify_vlc_status(status, {"state": "paused", "time": ctx.params["seconds"]}, time_tolerance=1)

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        return api_calls(vlc_call("pause"), vlc_call("seek", seconds=params["seconds"]))

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "seconds": params["seconds"] + 4}


class PlaylistModes(PlayingClip):
    """Set the loop, repeat and random modes as asked."""

    id = "vlc.playlist_modes"
    oracles = ("api",)
    goal = (
        "In VLC, set the playlist modes: loop the whole playlist {loop}, repeat the current item {repeat}, "
        "random order {random}."
    )
    tags = ("vlc", "media", "playlist")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        # VLC loops the playlist or repeats one item, never both; something is on, so doing nothing fails.
        loop, repeat, random = pick(rng, ((True, False, False), (False, True, False), (True, False, True),
                                          (False, True, True), (False, False, True)))  # fmt: skip
        on = {True: "on", False: "off"}
        return {**self.clip_params(rng), "loop": on[loop], "repeat": on[repeat], "random": on[random]}

    @staticmethod
    def modes(params: Mapping[str, Any]) -> dict[str, bool]:
        return {name: params[name] == "on" for name in ("loop", "repeat", "random")}

    def verify(self, ctx: TaskContext) -> VerifierResult:
        return verify_vlc_status(self.state(ctx, "get_status"), self.modes(ctx.params))

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        return api_calls(vlc_call("set_playback_mode", **self.modes(params)))

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "random": "off" if params["random"] == "on" else "on"}
