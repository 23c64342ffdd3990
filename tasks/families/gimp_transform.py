"""GIMP families that change an image's geometry: scale, crop, rotate, mirror, add a border, and a
JPEG thumbnail. Each exports the result; the verifier compares it with the source edited by Pillow."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from PIL import Image, ImageOps

from ..base import Policy
from ..family_kit import api_calls, pick
from .gimp_base import GimpTask, gimp_call


class ScaleImage(GimpTask):
    """Scale the picture to an exact size and export it as PNG."""

    id = "gimp.scale_image"
    oracles = ("api",)
    goal = "In GIMP, scale the image {source} to exactly {width} x {height} pixels and export it as PNG to {output}."
    tags = ("gimp", "images", "transform")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        params = self.base_params(rng)
        w, h = params["scene"]["size"]
        factor = float(pick(rng, (0.4, 0.5, 0.6, 0.75, 1.25, 1.5)))
        return {**params, "width": round(w * factor), "height": round(h * factor) + int(rng.integers(-5, 6))}

    def expected(self, params: Mapping[str, Any]) -> Image.Image:
        return self.source(params).resize((params["width"], params["height"]), Image.Resampling.BICUBIC)

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        return api_calls(
            gimp_call("scale_image", width=params["width"], height=params["height"]),
            gimp_call("export_image", path=params["output"]),
        )

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "width": params["width"] + int(rng.integers(8, 30))}


class CropImage(GimpTask):
    """Crop the picture to a rectangle and export it."""

    id = "gimp.crop_image"
    oracles = ("api",)
    goal = (
        "In GIMP, crop the image {source} to the {width} x {height} pixel rectangle whose top-left corner is at "
        "x={x}, y={y}, and export the result as PNG to {output}."
    )
    tags = ("gimp", "images", "transform")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        params = self.base_params(rng)
        w, h = params["scene"]["size"]
        width, height = int(rng.integers(w // 3, w // 2)), int(rng.integers(h // 3, h // 2))
        x, y = int(rng.integers(30, w - width)), int(rng.integers(0, h - height))
        return {**params, "x": x, "y": y, "width": width, "height": height}

    def expected(self, params: Mapping[str, Any]) -> Image.Image:
        x, y = params["x"], params["y"]
        return self.source(params).crop((x, y, x + params["width"], y + params["height"]))

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        box = {k: params[k] for k in ("x", "y", "width", "height")}
        return api_calls(gimp_call("crop_image", **box), gimp_call("export_image", path=params["output"]))

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "x": params["x"] - 30}  # the same size, shifted: only the pixels tell


class RotateImage(GimpTask):
    """Rotate the picture clockwise by a right angle."""

    id = "gimp.rotate_image"
    oracles = ("api",)
    goal = "In GIMP, rotate the image {source} by {degrees} degrees clockwise and export it as PNG to {output}."
    tags = ("gimp", "images", "transform")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        return {**self.base_params(rng), "degrees": int(pick(rng, (90, 180, 270)))}

    def expected(self, params: Mapping[str, Any]) -> Image.Image:
        return self.source(params).rotate(-params["degrees"], expand=True)

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        return api_calls(
            gimp_call("rotate_image", degrees=params["degrees"]), gimp_call("export_image", path=params["output"])
        )

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "degrees": 360 - params["degrees"] if params["degrees"] != 180 else 90}


class MirrorImage(GimpTask):
    """Flip the picture horizontally or vertically."""

    id = "gimp.mirror_image"
    oracles = ("api",)
    goal = "In GIMP, flip the image {source} {direction}ly (mirror it) and export it as PNG to {output}."
    tags = ("gimp", "images", "transform")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        return {**self.base_params(rng), "direction": pick(rng, ("horizontal", "vertical"))}

    def expected(self, params: Mapping[str, Any]) -> Image.Image:
        flip = ImageOps.mirror if params["direction"] == "horizontal" else ImageOps.flip
        return flip(self.source(params))

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        return api_calls(
            gimp_call("flip_image", direction=params["direction"]), gimp_call("export_image", path=params["output"])
        )

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "direction": "vertical" if params["direction"] == "horizontal" else "horizontal"}


class AddBorder(GimpTask):
    """Enlarge the canvas evenly on every side with a colored border (Image > Canvas Size)."""

    id = "gimp.add_border"
    oracles = ("api",)
    goal = (
        "In GIMP, add a {border}-pixel border in the color {color} around the image {source} (enlarge the canvas "
        "by {border} pixels on every side, the picture centered) and export it as PNG to {output}."
    )
    tags = ("gimp", "images", "transform")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        color = pick(rng, ("#ffffff", "#000000", "#202060", "#f0e0c0"))
        return {**self.base_params(rng), "border": int(rng.integers(2, 6)) * 10, "color": color, "offset": None}

    def expected(self, params: Mapping[str, Any]) -> Image.Image:
        w, h = params["scene"]["size"]
        border = params["border"]
        canvas = Image.new("RGB", (w + 2 * border, h + 2 * border), params["color"])
        canvas.paste(self.source(params), (border, border))
        return canvas

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        w, h = params["scene"]["size"]
        border = params["border"]
        offset = border if params["offset"] is None else params["offset"]
        return api_calls(
            gimp_call(
                "resize_canvas",
                width=w + 2 * border,
                height=h + 2 * border,
                offset_x=offset,
                offset_y=offset,
                fill=params["color"],
            ),
            gimp_call("export_image", path=params["output"]),
        )

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "offset": 0}  # the right size, the picture in a corner


class JpegThumbnail(GimpTask):
    """Scale to a width keeping the aspect ratio and export as JPEG."""

    id = "gimp.jpeg_thumbnail"
    oracles = ("api",)
    goal = (
        "In GIMP, make a thumbnail of {source}: scale it to {width} pixels wide keeping its aspect ratio "
        "(height {height} pixels) and export it as a JPEG file to {output}."
    )
    tags = ("gimp", "images", "transform", "export")
    output_suffix = ".jpg"

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        params = self.base_params(rng)
        w, h = params["scene"]["size"]
        width = int(pick(rng, (80, 100, 120, 150)))
        return {**params, "width": width, "height": round(h * width / w)}

    def expected(self, params: Mapping[str, Any]) -> Image.Image:
        return self.source(params).resize((params["width"], params["height"]), Image.Resampling.BICUBIC)

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        return api_calls(
            gimp_call("scale_image", width=params["width"], height=params["height"]),
            gimp_call("export_image", path=params["output"], quality=85),
        )

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "height": params["height"] + int(rng.integers(10, 30))}  # the aspect ratio lost
