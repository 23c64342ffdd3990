"""VLC across LibreOffice: a snapshot of a moment of a video, placed on the first slide of a new Impress
presentation. The video's color segments are seeded, so the picture's color names the moment; the
verifier reads both the snapshot file and the picture embedded in the saved deck."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ...apps.vlc import media
from ...verifiers import all_of, verify_vlc_snapshot
from ...verifiers._load import open_pptx
from ...verifiers.result import CheckFailed, VerifierResult
from ..base import Policy, ScriptedPolicy, TaskContext
from .vlc_base import CLIP_SECONDS, run, vlc_call
from .vlc_tracks import SnapshotAt

#: python-pptx's shape type of a picture.
PICTURE = 13


class SnapshotOnSlide(SnapshotAt):
    """Multi-app: a VLC snapshot of the frame at a second, then on a new Impress slide saved as pptx."""

    id = "vlc.snapshot_on_slide"
    oracles = ("api",)
    goal = (
        "VLC has {video} open. Save a snapshot (PNG) of the frame at {seconds} seconds as {snapshot}. Then create "
        "a new LibreOffice Impress presentation with that picture on its first slide and save it as {deck} "
        "(PowerPoint format)."
    )
    apps = ("vlc", "impress")
    tags = ("vlc", "media", "snapshot", "multi_app", "impress")
    max_steps = 12

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        params = super().sample_params(rng)
        return {**params, "deck": f"~/Documents/{params['video'].rsplit('/', 1)[1].split('.')[0]}_frame.pptx"}

    def setup(self, ctx: TaskContext) -> None:
        run(ctx, "mkdir -p ~/Documents", "make ~/Documents")
        super().setup(ctx)

    def verify(self, ctx: TaskContext) -> VerifierResult:
        color = media.COLORS[ctx.params["colors"][ctx.params["segment"]]]
        try:
            slides = list(open_pptx(ctx.read_file(ctx.params["deck"])).slides)
        except CheckFailed as error:
            return VerifierResult.failed(str(error))
        pictures = [shape.image.blob for shape in slides[0].shapes if shape.shape_type == PICTURE] if slides else []
        if len(pictures) != 1:
            return VerifierResult.failed(f"the first slide holds {len(pictures)} pictures, expected one")
        return all_of(
            {
                "snapshot": verify_vlc_snapshot(ctx.read_file(ctx.params["snapshot"]), *media.SIZE, color),
                "on_slide": verify_vlc_snapshot(pictures[0], *media.SIZE, color),
            }
        )

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        return ScriptedPolicy(
            [
                vlc_call("seek", seconds=params["seconds"]),
                vlc_call("take_snapshot", path=params["snapshot"]),
                "open_app(app_name='impress')",
                f"ImpressTools.insert_image(slide=1, path={params['snapshot']!r})",
                f"ImpressTools.save(path={params['deck']!r}, file_format='pptx')",
                "exit(success=True)",
            ]
        )

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "seconds": (params["seconds"] + CLIP_SECONDS // 4) % CLIP_SECONDS}
