"""VLC playlist families: build a playlist in order, remove one item, play an item of an M3U playlist.

The media are seeded WAV tones in ``~/Music`` (written from the host); the verifiers read the live
playlist (files by path, in order) and the status's current item.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import numpy as np

from ...apps.vlc import media
from ...verifiers import all_of, verify_vlc_playlist, verify_vlc_status
from ...verifiers.media_player import uri_path
from ...verifiers.result import VerifierResult
from ..base import Policy, TaskContext
from ..family_kit import api_calls, pick
from .vlc_base import MUSIC, TUNES, VlcTask, home_path, vlc_call

#: Seconds a tone lasts (4 kHz mono: 8 KB a second), and its sample rate.
TONE_SECONDS = 120
TONE_RATE = 4000


def tone_params(rng: np.random.Generator, count: int) -> list[str]:
    """``count`` distinct tone files in ``~/Music``."""
    return [f"{MUSIC}/{name}.wav" for name in pick(rng, TUNES, count)]


def write_tones(ctx: TaskContext, paths: list[str]) -> None:
    for index, path in enumerate(paths):
        ctx.client.put_file(path, media.wav_tone(220 + 110 * index, TONE_SECONDS, rate=TONE_RATE))


class BuildPlaylist(VlcTask):
    """Make the playlist hold exactly some files in a given order."""

    id = "vlc.build_playlist"
    oracles = ("api",)
    goal = "In VLC, make the playlist hold exactly these files, in this order: {listing}."
    tags = ("vlc", "media", "playlist")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        files = tone_params(rng, 5)
        order = pick(rng, files, int(rng.integers(3, 5)))
        return {"files": files, "order": order, "listing": ", ".join(order)}

    def make_media(self, ctx: TaskContext) -> None:
        write_tones(ctx, ctx.params["files"])

    def verify(self, ctx: TaskContext) -> VerifierResult:
        paths = [home_path(ctx, path) for path in ctx.params["order"]]
        return verify_vlc_playlist(self.state(ctx, "list_playlist"), paths)

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        return api_calls(*(vlc_call("playlist_add", path=path) for path in params["order"]))

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        order = list(params["order"])
        order[0], order[1] = order[1], order[0]
        return {**params, "order": order}


class RemoveFromPlaylist(VlcTask):
    """Remove one named file from a playlist of several, keeping the others in order."""

    id = "vlc.remove_from_playlist"
    oracles = ("api",)
    goal = "VLC's playlist holds several tunes. Remove {target} from it and keep the others in their order."
    tags = ("vlc", "media", "playlist")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        files = tone_params(rng, int(rng.integers(3, 6)))
        index = int(rng.integers(len(files)))
        return {"files": files, "index": index, "target": files[index].rsplit("/", 1)[1]}

    def make_media(self, ctx: TaskContext) -> None:
        write_tones(ctx, ctx.params["files"])

    def prepare(self, ctx: TaskContext) -> None:
        for path in ctx.params["files"]:
            ctx.client.call_api("VlcTools", "playlist_add", json.dumps({"path": path}), timeout=30.0)

    def verify(self, ctx: TaskContext) -> VerifierResult:
        keep = [home_path(ctx, p) for i, p in enumerate(ctx.params["files"]) if i != ctx.params["index"]]
        return verify_vlc_playlist(self.state(ctx, "list_playlist"), keep)

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        return api_calls(vlc_call("playlist_remove", position=params["index"] + 1))

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "index": (params["index"] + 1) % len(params["files"])}


class PlayFromM3u(VlcTask):
    """Open an M3U playlist file and play one of its tunes."""

    id = "vlc.play_from_m3u"
    oracles = ("api",)
    goal = "Open the playlist file {m3u} in VLC and play the tune {target} from it."
    tags = ("vlc", "media", "playlist", "m3u")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        files = tone_params(rng, 4)
        index = int(rng.integers(1, 4))
        m3u = f"{MUSIC}/{pick(rng, ('mix', 'evening', 'focus', 'party'))}.m3u"
        return {"files": files, "index": index, "target": files[index].rsplit("/", 1)[1], "m3u": m3u}

    def make_media(self, ctx: TaskContext) -> None:
        write_tones(ctx, ctx.params["files"])
        paths = [home_path(ctx, path) for path in ctx.params["files"]]
        ctx.client.put_file(ctx.params["m3u"], media.m3u(paths).encode())

    def verify(self, ctx: TaskContext) -> VerifierResult:
        paths = [home_path(ctx, path) for path in ctx.params["files"]]
        items = self.state(ctx, "list_playlist")
        current = [item for item in items if item.get("current")]
        playing = verify_vlc_status(self.state(ctx, "get_status"), {"state": "playing"})
        if len(current) != 1:
            return VerifierResult.failed(f"{len(current)} playlist items are current, expected one")
        target = paths[ctx.params["index"]]
        if uri_path(str(current[0].get("uri", ""))) != target:
            return VerifierResult.failed(f"VLC plays {current[0].get('name')!r}, not {ctx.params['target']!r}")
        return all_of([verify_vlc_playlist(items, paths), playing])

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        return api_calls(vlc_call("open_media", path=params["m3u"]), vlc_call("play", position=params["index"] + 1))

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "index": params["index"] % 3 + 1}
