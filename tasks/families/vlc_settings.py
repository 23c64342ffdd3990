"""VLC preference families (OSWorld's VLC checks read vlcrc too): the snapshot folder, format and prefix;
the volume step and the largest volume; the playlist defaults at start.

The verifier reads vlcrc as VLC keeps it: VLC is quit first (it writes its preferences as it exits),
so an edit a running VLC would overwrite does not count.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ...verifiers import verify_vlc_preferences
from ...verifiers.result import VerifierResult
from ..base import Policy, TaskContext
from ..family_kit import api_calls, pick
from .vlc_base import PICTURES, VlcTask, home_path, run, saved_vlcrc, vlc_call


class PreferencesTask(VlcTask):
    """A task whose result is VLC's saved preferences: ``expected(params)`` keys in vlcrc."""

    tags = ("vlc", "settings")

    def expected(self, params: Mapping[str, Any]) -> dict[str, Any]:
        raise NotImplementedError

    def verify(self, ctx: TaskContext) -> VerifierResult:
        return verify_vlc_preferences(saved_vlcrc(ctx), self.expected(ctx.params))

    def oracle_values(self, params: Mapping[str, Any]) -> dict[str, Any]:
        return self.expected(params)

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        return api_calls(vlc_call("set_preferences", values=self.oracle_values(params)))


class SnapshotPreferences(PreferencesTask):
    """Where and how VLC saves snapshots."""

    id = "vlc.snapshot_preferences"
    oracles = ("api",)
    goal = (
        "Set VLC's video snapshot preferences: save snapshots in the folder {folder}, in {format} format, "
        "with file names starting with '{prefix}'."
    )

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        return {
            "folder": f"{PICTURES}/{pick(rng, ('snaps', 'frames', 'stills', 'captures'))}",
            "format": pick(rng, ("jpg", "png", "tiff")),
            "prefix": pick(rng, ("shot-", "frame_", "still-", "clip_")),
        }

    def setup(self, ctx: TaskContext) -> None:
        super().setup(ctx)
        run(ctx, f"mkdir -p {ctx.params['folder']}", "make the snapshot folder")
        ctx.params["folder_path"] = home_path(ctx, ctx.params["folder"])

    def expected(self, params: Mapping[str, Any]) -> dict[str, Any]:
        folder = params.get("folder_path") or params["folder"]
        return {"snapshot-path": folder, "snapshot-format": params["format"], "snapshot-prefix": params["prefix"]}

    def oracle_values(self, params: Mapping[str, Any]) -> dict[str, Any]:
        return {
            "snapshot-path": params["folder"],
            "snapshot-format": params["format"],
            "snapshot-prefix": params["prefix"],
        }

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        formats = [f for f in ("jpg", "png", "tiff") if f != params["format"]]
        return {**params, "format": pick(rng, formats)}


class VolumePreferences(PreferencesTask):
    """The volume step of the hotkeys and the largest volume the slider offers."""

    id = "vlc.volume_preferences"
    oracles = ("api",)
    goal = (
        "In VLC's preferences, set the audio volume step to {step} and the maximum volume shown in the "
        "interface to {maximum}%."
    )

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        return {"step": int(rng.choice([5, 8, 10, 16, 20, 32])), "maximum": int(rng.choice([100, 150, 200, 250, 300]))}

    def expected(self, params: Mapping[str, Any]) -> dict[str, Any]:
        return {"volume-step": params["step"], "qt-max-volume": params["maximum"]}

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "step": params["step"] + 1}


class PlaybackDefaults(PreferencesTask):
    """How VLC plays when it starts: loop, random, and whether to resume where a file was left."""

    id = "vlc.playback_defaults"
    oracles = ("api",)
    goal = (
        "Make VLC's saved preferences {loop_word} loop the playlist, {random_word} play in random order, and "
        "{resume} continue playback where a file was left."
    )
    RESUME = {0: "never", 1: "ask before it may", 2: "always"}

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        loop, random = (bool(b) for b in rng.integers(0, 2, size=2))
        continue_mode = int(rng.choice([0, 2]))  # not VLC's default (ask), so doing nothing fails
        return {
            "loop": loop,
            "random": random,
            "continue": continue_mode,
            "loop_word": "always" if loop else "never",
            "random_word": "always" if random else "never",
            "resume": self.RESUME[continue_mode],
        }

    def expected(self, params: Mapping[str, Any]) -> dict[str, Any]:
        return {"loop": params["loop"], "random": params["random"], "qt-continue": params["continue"]}

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "continue": 2 - params["continue"]}
