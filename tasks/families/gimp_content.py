"""GIMP families about what an image holds: a caption as a text layer, its size and one pixel's color
reported in a file, a new canvas, a layered XCF, and (multi-app) an edited picture put on a new Impress
slide. Verifiers read the exported or saved files and, for layers, the live GIMP."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import numpy as np
from PIL import Image

from ...guest.client import GuestError
from ...verifiers import (
    all_of,
    verify_image_properties,
    verify_image_region_ink,
    verify_text_file,
)
from ...verifiers._load import open_pptx
from ...verifiers.result import CheckFailed, VerifierResult
from ..base import Policy, ScriptedPolicy, TaskContext, TaskSetupError
from ..family_kit import api_calls, pick
from .gimp_base import PICTURES, GimpTask, close_to, draw_scene, gimp_call

CAPTIONS = ("Summer sale", "Open day", "Team photo", "Draft only", "Welcome back", "Spring fair", "New menu")
INKS = {"magenta": "#ff00ff", "lime": "#00ff00", "cyan": "#00ffff", "black": "#000000"}


def _write(path: str, text: str) -> str:
    return f"OSTools.write_text_file(path={path!r}, text={text!r})"


def _rgb(color: str) -> list[int]:
    return [int(color[i : i + 2], 16) for i in (1, 3, 5)]


def gimp_layers(ctx: TaskContext) -> list[dict[str, Any]]:
    """The live GIMP's layers of the image in front (``GimpTools.list_layers``); [] when GIMP does not answer."""
    try:
        return json.loads(ctx.client.call_api("GimpTools", "list_layers", "{}", timeout=30.0))
    except GuestError:
        return []


class AddCaption(GimpTask):
    """Add a caption as a text layer in a color and size at a place, and export the result."""

    id = "gimp.add_caption"
    oracles = ("api",)
    goal = (
        "In GIMP, add the text '{text}' to the image {source} as a text layer: {size} pixels, color {ink} ({color}), "
        "its top-left corner at x={x}, y={y}. Then export the image as PNG to {output} (keep the text layer)."
    )
    tags = ("gimp", "images", "text")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        params = self.base_params(rng)
        w, h = params["scene"]["size"]
        ink = pick(rng, sorted(INKS))
        size = int(pick(rng, (20, 24, 28)))
        return {
            **params,
            "text": pick(rng, CAPTIONS),
            "ink": ink,
            "color": INKS[ink],
            "size": size,
            "x": int(rng.integers(5, 30)),
            "y": int(rng.integers(5, max(6, h - 2 * size))),
        }

    def verify(self, ctx: TaskContext) -> VerifierResult:
        p = ctx.params
        data = ctx.read_file(p["output"])
        w, h = p["scene"]["size"]
        box = [p["x"], p["y"], min(w, p["x"] + len(p["text"]) * p["size"] // 2), min(h, p["y"] + p["size"])]
        texts = [layer for layer in gimp_layers(ctx) if layer["text"]]
        found = [(layer["text"], layer["x"], layer["y"]) for layer in texts]
        wanted = (p["text"], p["x"], p["y"])
        layer = (
            VerifierResult.passed("GIMP has the text layer")
            if wanted in found
            else VerifierResult.failed(f"no text layer {wanted} in GIMP (text layers: {found})")
        )
        return all_of(
            {
                "format": verify_image_properties(data, format="png", width=w, height=h),
                "ink": verify_image_region_ink(data, box, _rgb(p["color"]), tolerance=60, min_fraction=0.03),
                "layer": layer,
            }
        )

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        text = {k: params[k] for k in ("text", "x", "y", "size", "color")}
        return api_calls(gimp_call("add_text", **text), gimp_call("export_image", path=params["output"]))

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "text": params["text"].replace(" ", "  ", 1)}  # one space too many


class ReportSize(GimpTask):
    """Read the image's size and write it into a file."""

    id = "gimp.report_size"
    oracles = ("api",)
    goal = (
        "Open in GIMP, {source} shows a picture. Write its size in pixels as WIDTHxHEIGHT (for example 640x480) "
        "into the text file {answer}."
    )
    tags = ("gimp", "images", "inspect")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        params = self.base_params(rng)
        w, h = params["scene"]["size"]
        params["scene"]["size"] = [w + int(rng.integers(0, 10)), h + int(rng.integers(0, 10))]
        return {**params, "answer": f"{PICTURES}/size.txt", "size_text": "{}x{}".format(*params["scene"]["size"])}

    def verify(self, ctx: TaskContext) -> VerifierResult:
        return verify_text_file(ctx.read_file(ctx.params["answer"]), ctx.params["size_text"])

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        return ScriptedPolicy(
            [gimp_call("image_info"), _write(params["answer"], params["size_text"]), "exit(success=True)"]
        )

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        w, h = params["scene"]["size"]
        return {**params, "size_text": f"{w + 1}x{h}"}


class PickColor(GimpTask):
    """Read one pixel's color with the color picker and write it as hex."""

    id = "gimp.pick_color"
    oracles = ("api",)
    goal = (
        "In GIMP, find the color of the pixel at x={x}, y={y} of the image {source} and write it as a hex code "
        "like #1a2b3c into the text file {answer}."
    )
    tags = ("gimp", "images", "inspect")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        params = self.base_params(rng)
        kind, x0, y0, x1, y1, *_ = params["scene"]["shapes"][int(rng.integers(3))]
        x, y = (x0 + x1) // 2, (y0 + y1) // 2
        r, g, b = draw_scene(params["scene"]).getpixel((x, y))
        return {**params, "x": x, "y": y, "answer": f"{PICTURES}/color.txt", "hex": f"#{r:02x}{g:02x}{b:02x}"}

    def verify(self, ctx: TaskContext) -> VerifierResult:
        data = ctx.read_file(ctx.params["answer"])
        return verify_text_file(data.lower() if data is not None else None, ctx.params["hex"])

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        return ScriptedPolicy(
            [
                gimp_call("pick_color", x=params["x"], y=params["y"]),
                _write(params["answer"], params["hex"]),
                "exit(success=True)",
            ]
        )

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        r, g, b = _rgb(params["hex"])
        return {**params, "hex": f"#{r:02x}{g:02x}{(b + 16) % 256:02x}"}


class NewCanvas(GimpTask):
    """Make a new image of a size and color and export it."""

    id = "gimp.new_canvas"
    oracles = ("api",)
    goal = (
        "In GIMP, create a new {width} x {height} pixel image filled with the color {color} and export it as PNG "
        "to {output}."
    )
    tags = ("gimp", "images", "create")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        params = self.base_params(rng)
        r, g, b = (int(v) for v in rng.integers(0, 256, size=3))
        return {
            **params,
            "output": f"{PICTURES}/canvas_{int(rng.integers(100, 1000))}.png",
            "width": int(rng.integers(10, 60)) * 10,
            "height": int(rng.integers(10, 40)) * 10,
            "color": f"#{r:02x}{g:02x}{b:02x}",
        }

    def verify(self, ctx: TaskContext) -> VerifierResult:
        p = ctx.params
        data = ctx.read_file(p["output"])
        return all_of(
            {
                "format": verify_image_properties(data, format="png", width=p["width"], height=p["height"]),
                "fill": verify_image_region_ink(
                    data, [0, 0, p["width"], p["height"]], _rgb(p["color"]), tolerance=1, min_fraction=1.0
                ),
            }
        )

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        size = {k: params[k] for k in ("width", "height", "color")}
        return api_calls(gimp_call("new_image", **size), gimp_call("export_image", path=params["output"]))

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        r, g, b = _rgb(params["color"])
        return {**params, "color": f"#{(r + 128) % 256:02x}{g:02x}{b:02x}"}


class LayeredXcf(GimpTask):
    """Add a title text layer and keep the layers: save as XCF."""

    id = "gimp.layered_xcf"
    oracles = ("api",)
    goal = (
        "In GIMP, add the text '{text}' as a text layer at the top-left corner of the image {source} and save the "
        "image with its layers as the GIMP file {xcf}."
    )
    tags = ("gimp", "images", "text", "save")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        params = self.base_params(rng)
        stem = params["source"].rsplit("/", 1)[1].removesuffix(".png")
        return {**params, "text": pick(rng, CAPTIONS), "xcf": f"{PICTURES}/{stem}.xcf"}

    def verify(self, ctx: TaskContext) -> VerifierResult:
        p = ctx.params
        data = ctx.read_file(p["xcf"])
        w, h = p["scene"]["size"]
        if data is None:
            return VerifierResult.failed(f"{p['xcf']} does not exist (was it saved?)")
        if not data.startswith(b"gimp xcf ") or len(data) < 26:
            return VerifierResult.failed(f"{p['xcf']} is not a GIMP XCF file")
        size = [int.from_bytes(data[14:18], "big"), int.from_bytes(data[18:22], "big")]
        if size != [w, h]:
            return VerifierResult.failed(f"the XCF image is {size[0]} x {size[1]}, expected {w} x {h}")
        layers = gimp_layers(ctx)
        texts = [layer["text"] for layer in layers if layer["text"]]
        if len(layers) < 2 or texts != [p["text"]]:
            return VerifierResult.failed(f"GIMP's image has {len(layers)} layers with texts {texts}")
        info = json.loads(ctx.client.call_api("GimpTools", "image_info", "{}", timeout=30.0))  # GIMP answered above
        if info["file"] != p["xcf"] or info["unsaved_changes"]:
            return VerifierResult.failed(f"the image in GIMP is {info['file'] or 'unsaved'} with unsaved changes")
        return VerifierResult.passed(f"{p['xcf']} holds the picture and the text layer")

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        return api_calls(
            gimp_call("add_text", text=params["text"], x=0, y=0, size=24), gimp_call("save_xcf", path=params["xcf"])
        )

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "text": params["text"].lower()}


class PictureOnSlide(GimpTask):
    """Multi-app: scale a picture in GIMP, export it, and put it on a new Impress presentation."""

    id = "gimp.picture_on_slide"
    oracles = ("api",)
    goal = (
        "In GIMP, scale the image {source} to {width} x {height} pixels and export it as PNG to {output}. Then "
        "create a new LibreOffice Impress presentation with that picture on its first slide and save it as {deck} "
        "(PowerPoint format)."
    )
    apps = ("gimp", "impress")
    tags = ("gimp", "images", "multi_app", "impress")
    max_steps = 15

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        params = self.base_params(rng)
        w, h = params["scene"]["size"]
        width = int(pick(rng, (120, 160, 200)))
        stem = params["source"].rsplit("/", 1)[1].removesuffix(".png")
        return {**params, "width": width, "height": round(h * width / w), "deck": f"~/Documents/{stem}_slides.pptx"}

    def setup(self, ctx: TaskContext) -> None:
        made = ctx.client.exec("mkdir -p ~/Documents", shell=True, timeout=10)
        if made.returncode != 0:
            raise TaskSetupError(f"could not create ~/Documents: {made.stderr.strip()[:200]}")
        super().setup(ctx)

    def expected(self, params: Mapping[str, Any]) -> Image.Image:
        return self.source(params).resize((params["width"], params["height"]), Image.Resampling.BICUBIC)

    def verify(self, ctx: TaskContext) -> VerifierResult:
        p = ctx.params
        try:
            presentation = open_pptx(ctx.read_file(p["deck"]))
        except CheckFailed as error:
            return VerifierResult.failed(str(error))
        slides = list(presentation.slides)
        blobs = [shape.image.blob for shape in slides[0].shapes if shape.shape_type == 13] if slides else []
        if not blobs:
            return VerifierResult.failed("the first slide of the deck has no picture")
        expected = self.expected(p)
        return all_of(
            {
                "exported": close_to(ctx.read_file(p["output"]), expected),
                "on_slide": close_to(blobs[0], expected),
            }
        )

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        return ScriptedPolicy(
            [
                gimp_call("scale_image", width=params["width"], height=params["height"]),
                gimp_call("export_image", path=params["output"]),
                "open_app(app_name='impress')",
                f"ImpressTools.insert_image(slide=1, path={params['output']!r})",
                f"ImpressTools.save(path={params['deck']!r}, file_format='pptx')",
                "exit(success=True)",
            ]
        )

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "height": params["height"] + 25}
