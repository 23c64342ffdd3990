"""Impress families that draw on a slide: a labelled rectangle or ellipse, and a picture file."""

from __future__ import annotations

import io
from collections.abc import Mapping
from typing import Any

import numpy as np

from ...verifiers import verify_pptx_autoshape, verify_pptx_shapes
from ...verifiers.result import VerifierResult
from ..base import Policy, TaskContext
from .impress_content import CALLOUTS
from .impress_deck import (
    SlideTask,
    api_call,
    go_to_slide,
    other_choice,
    saved_by_api,
)
from .impress_gui import click_node, drag_on_slide, saved_by_gui, type_and_leave

SHAPES = {"rectangle": "rect", "ellipse": "ellipse"}  # ImpressTools kind -> DrawingML preset


class InsertShape(SlideTask):
    """Draw a rectangle or an ellipse with a label on a slide."""

    id = "impress.insert_shape"
    goal = "Draw {article} {kind} on slide {slide} ('{title}') with the text '{label}' inside it"
    oracles = ("api", "gui")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        params = super().sample_params(rng)
        kind = str(rng.choice(list(SHAPES)))
        return {
            **params,
            "kind": kind,
            "article": "an" if kind == "ellipse" else "a",
            "label": str(rng.choice(CALLOUTS)),
        }

    def verify(self, ctx: TaskContext) -> VerifierResult:
        p = ctx.params
        return verify_pptx_autoshape(self.saved(ctx), p["slide"], SHAPES[p["kind"]], text=p["label"])

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        call = api_call(
            "add_shape", slide=params["slide"], kind=params["kind"], x_cm=2.0, y_cm=12.0, width_cm=8.0,
            height_cm=4.0, text=params["label"],
        )  # fmt: skip
        return saved_by_api(call)

    def gui_oracle(self, params: Mapping[str, Any]) -> Policy:
        # The Drawing toolbar's button, a drag below the body placeholder, then typing labels the shape.
        return saved_by_gui(
            *go_to_slide(params["slide"]),
            click_node("push button", params["kind"].capitalize(), within=("tool bar", "Drawing")),
            drag_on_slide((0.1, 0.88), (0.5, 0.98)),
            *type_and_leave(params["label"]),
        )

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "kind": other_choice(rng, list(SHAPES), params["kind"])}


IMAGE_NAMES = ("logo", "chart", "badge", "stamp")


def png_bytes(rng_colors: list[tuple[int, int, int]], size: tuple[int, int] = (120, 80)) -> bytes:
    """A small PNG of vertical colour bands (PIL writes no timestamps: same colours, same bytes)."""
    from PIL import Image

    image = Image.new("RGB", size)
    band = max(1, size[0] // len(rng_colors))
    for index, color in enumerate(rng_colors):
        image.paste(color, (index * band, 0, size[0] if index == len(rng_colors) - 1 else (index + 1) * band, size[1]))
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


class InsertImage(SlideTask):
    """Insert a picture file (written by setup) into a slide."""

    id = "impress.insert_image"
    goal = "Insert the picture {image} into slide {slide} ('{title}')"
    oracles = ("api",)

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        params = super().sample_params(rng)
        colors = [[int(c) for c in rng.integers(0, 256, size=3)] for _ in range(3)]
        image = f"~/Pictures/{rng.choice(IMAGE_NAMES)}.png"
        return {**params, "image": image, "colors": colors}

    def write_inputs(self, ctx: TaskContext) -> None:
        ctx.client.put_file(ctx.params["image"], png_bytes([tuple(c) for c in ctx.params["colors"]]))

    def verify(self, ctx: TaskContext) -> VerifierResult:
        return verify_pptx_shapes(self.saved(ctx), ctx.params["slide"], kind="picture", min_count=1)

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        return saved_by_api(api_call("insert_image", slide=params["slide"], path=params["image"]))
