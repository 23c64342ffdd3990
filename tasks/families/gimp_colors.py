"""GIMP families that change an image's colors: grayscale mode, invert, levels (the output range), and
an indexed palette of a few colors. The verifier compares the export with the source edited by
Pillow (GIMP's own formulas: linear-light luminance for gray) and checks what the edit is about."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from PIL import Image, ImageOps

from ...verifiers import all_of, verify_image_color_count, verify_image_grayscale, verify_image_properties
from ...verifiers.result import VerifierResult
from ..base import Policy, TaskContext
from ..family_kit import api_calls, pick
from .gimp_base import GimpTask, close_to, gimp_call, gimp_gray


class GrayscaleMode(GimpTask):
    """Convert the image to grayscale mode (not only desaturated) and export it."""

    id = "gimp.grayscale_mode"
    oracles = ("api",)
    goal = (
        "In GIMP, convert the image {source} to grayscale mode (Image > Mode > Grayscale) and export it as PNG "
        "to {output}."
    )
    tags = ("gimp", "images", "colors")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        return {**self.base_params(rng), "grayscale_mode": True}

    def expected(self, params: Mapping[str, Any]) -> Image.Image:
        return gimp_gray(self.source(params))

    def extra_checks(self, data: bytes | None, params: Mapping[str, Any]) -> dict[str, VerifierResult]:
        return {"mode": verify_image_properties(data, modes=["L", "LA"]), "gray": verify_image_grayscale(data)}

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        convert = (
            gimp_call("convert_mode", mode="grayscale")
            if params["grayscale_mode"]
            else gimp_call("desaturate", mode="luminance")
        )
        return api_calls(convert, gimp_call("export_image", path=params["output"]))

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "grayscale_mode": False}  # gray pixels, but still an RGB image


class InvertColors(GimpTask):
    """Invert the image's colors (a negative)."""

    id = "gimp.invert_colors"
    oracles = ("api",)
    goal = "In GIMP, invert the colors of the image {source} (make a negative) and export it as PNG to {output}."
    tags = ("gimp", "images", "colors")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        return {**self.base_params(rng), "invert": True}

    def expected(self, params: Mapping[str, Any]) -> Image.Image:
        return ImageOps.invert(self.source(params))

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        calls = [gimp_call("invert_colors")] if params["invert"] else [gimp_call("desaturate", mode="average")]
        return api_calls(*calls, gimp_call("export_image", path=params["output"]))

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "invert": False}


class FadeLevels(GimpTask):
    """Colors > Levels: squeeze the output range (a faded, low-contrast look)."""

    id = "gimp.fade_levels"
    oracles = ("api",)
    goal = (
        "In GIMP, use Colors > Levels on the image {source} to set the output levels to {low} (black) and "
        "{high} (white), leaving the input levels and gamma as they are, and export it as PNG to {output}."
    )
    tags = ("gimp", "images", "colors")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        return {**self.base_params(rng), "low": int(rng.integers(4, 13)) * 5, "high": int(rng.integers(34, 47)) * 5}

    def expected(self, params: Mapping[str, Any]) -> Image.Image:
        low, high = params["low"], params["high"]
        pixels = np.asarray(self.source(params), dtype=np.float64)
        return Image.fromarray((low + pixels * (high - low) / 255).round().astype(np.uint8), "RGB")

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        return api_calls(
            gimp_call("adjust_levels", low_output=params["low"], high_output=params["high"]),
            gimp_call("export_image", path=params["output"]),
        )

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "high": params["high"] - 40}


class IndexedPalette(GimpTask):
    """Image > Mode > Indexed with a palette of a few colors."""

    id = "gimp.indexed_palette"
    oracles = ("api",)
    goal = (
        "In GIMP, convert the image {source} to indexed mode with an optimum palette of at most {colors} colors "
        "and export it as PNG to {output}."
    )
    tags = ("gimp", "images", "colors")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        return {**self.base_params(rng), "colors": int(pick(rng, (6, 8, 10, 12)))}

    def expected(self, params: Mapping[str, Any]) -> Image.Image:
        return self.source(params)

    def verify(self, ctx: TaskContext) -> VerifierResult:
        data = ctx.read_file(ctx.params["output"])
        w, h = ctx.params["scene"]["size"]
        return all_of(
            {
                "format": verify_image_properties(data, format="png", width=w, height=h, modes=["P"]),
                "palette": verify_image_color_count(data, max_colors=ctx.params["colors"], min_colors=2),
                # A few colors for a gradient: close on average, not in every cell.
                "picture": close_to(data, self.source(ctx.params), max_mean_difference=12, max_cell_difference=90),
            }
        )

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        return api_calls(
            gimp_call("convert_mode", mode="indexed", colors=params["colors"]),
            gimp_call("export_image", path=params["output"]),
        )

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "colors": params["colors"] * 4}
