"""Shared parts of the GIMP suite: the seeded picture each episode edits, the task base (write the
picture, open it in GIMP), the expected results computed with Pillow, and the oracle helpers.

The picture is drawn offline from the episode's parameters (a background, a band of gradient and a few
flat shapes in seeded colors and places), so the expected output of every edit is known exactly and
the seed changes it. Verifiers read the file the agent exported and compare it with the expected
picture on a grid of cell means (``image_close_to``) plus the checks the edit is about (size, gray,
palette, real format).
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import numpy as np
from PIL import Image, ImageDraw

from ...verifiers import all_of, image_grid, verify_image_close_to, verify_image_properties
from ...verifiers.result import VerifierResult
from ..base import Task, TaskContext, TaskSetupError
from ..family_kit import pick, tool_call

PICTURES = "~/Pictures"
STEMS = ("harbor", "meadow", "poster", "sketch", "badge", "banner", "tile", "cover", "sample", "draft")
PALETTE = (
    (220, 40, 40),
    (40, 160, 70),
    (40, 80, 210),
    (240, 200, 30),
    (150, 60, 180),
    (20, 170, 190),
    (250, 130, 20),
    (60, 60, 60),
)


def sample_scene(rng: np.random.Generator, width: int | None = None, height: int | None = None) -> dict[str, Any]:
    """A picture as data: size, background, gradient band and three shapes (JSON-able)."""
    w = int(width if width is not None else rng.integers(16, 33) * 10)
    h = int(height if height is not None else rng.integers(12, 25) * 10)
    colors = pick(rng, PALETTE, 5)
    shapes = []
    for kind, color in zip(("rectangle", "ellipse", "rectangle"), colors[2:], strict=True):
        x0, y0 = int(rng.integers(0, w * 2 // 3)), int(rng.integers(0, h * 2 // 3))
        x1, y1 = int(x0 + rng.integers(w // 6, w // 3)), int(y0 + rng.integers(h // 6, h // 3))
        shapes.append([kind, x0, y0, min(x1, w - 1), min(y1, h - 1), *color])
    return {"size": [w, h], "background": list(colors[0]), "band": list(colors[1]), "shapes": shapes}


def draw_scene(scene: Mapping[str, Any]) -> Image.Image:
    """The RGB picture of ``scene`` (deterministic)."""
    w, h = scene["size"]
    image = Image.new("RGB", (w, h), tuple(scene["background"]))
    band = np.linspace(0.0, 1.0, w)[None, :, None] * np.asarray(scene["band"], dtype=np.float64)
    pixels = np.asarray(image, dtype=np.float64)
    top, bottom = h * 3 // 4, h
    pixels[top:bottom] = band + (1 - np.linspace(0.0, 1.0, w)[None, :, None]) * 255
    image = Image.fromarray(pixels.round().astype(np.uint8), "RGB")
    draw = ImageDraw.Draw(image)
    for kind, x0, y0, x1, y1, r, g, b in scene["shapes"]:
        getattr(draw, kind)((x0, y0, x1, y1), fill=(r, g, b))
    return image


def png_bytes(image: Image.Image) -> bytes:
    """``image`` as PNG bytes."""
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def gimp_gray(image: Image.Image) -> Image.Image:
    """GIMP 2.10's luminance gray (linear light, D50 primaries), which Desaturate and Mode > Grayscale use."""
    srgb = np.asarray(image.convert("RGB"), dtype=np.float64) / 255
    linear = np.where(srgb <= 0.04045, srgb / 12.92, ((srgb + 0.055) / 1.055) ** 2.4)
    y = linear @ np.array([0.22248840, 0.71690369, 0.06060791])
    encoded = np.where(y <= 0.0031308, y * 12.92, 1.055 * np.power(y, 1 / 2.4) - 0.055)
    return Image.fromarray((encoded * 255).round().clip(0, 255).astype(np.uint8), "L")


def close_to(data: bytes | None, expected: Image.Image, **tolerances: float) -> VerifierResult:
    """``image_close_to`` against ``expected`` (its size and 16 x 16 grid)."""
    width, height = expected.size
    cells = min(16, width, height)
    return verify_image_close_to(data, width, height, image_grid(expected, cells), cells=cells, **tolerances)


def gimp_call(method: str, **arguments: Any) -> str:
    """``GimpTools.method(arg=...)`` as an action string."""
    return tool_call("GimpTools", method, **arguments)


class GimpTask(Task):
    """A task on one picture: ``setup`` writes ``params["source"]`` (drawn from ``params["scene"]``) and
    opens it in GIMP; ``expected`` is the picture the edit must produce, exported to ``params["output"]``."""

    apps: ClassVar[Sequence[str]] = ("gimp",)
    max_steps = 10
    tags: ClassVar[Sequence[str]] = ("gimp", "images")
    #: The suffix of the exported file.
    output_suffix: ClassVar[str] = ".png"

    def base_params(self, rng: np.random.Generator) -> dict[str, Any]:
        """Scene, source path and output path for this episode."""
        stem = pick(rng, STEMS)
        return {
            "scene": sample_scene(rng),
            "source": f"{PICTURES}/{stem}.png",
            "output": f"{PICTURES}/{stem}_edited{self.output_suffix}",
        }

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        return self.base_params(rng)

    def setup(self, ctx: TaskContext) -> None:
        made = ctx.client.exec(f"mkdir -p {PICTURES}", shell=True, timeout=10)
        if made.returncode != 0:
            raise TaskSetupError(f"could not create {PICTURES}: {made.stderr.strip()[:200]}")
        ctx.client.put_file(ctx.params["source"], png_bytes(draw_scene(ctx.params["scene"])))
        launched = ctx.client.launch_app("gimp", ctx.params["source"], timeout=90.0)
        if not launched.alive:
            raise TaskSetupError("GIMP exited right after it started")

    def source(self, params: Mapping[str, Any]) -> Image.Image:
        """The picture the episode starts with."""
        return draw_scene(params["scene"])

    def expected(self, params: Mapping[str, Any]) -> Image.Image:
        """The picture the edit must produce (override)."""
        raise NotImplementedError

    def extra_checks(self, data: bytes | None, params: Mapping[str, Any]) -> dict[str, VerifierResult]:
        """Checks beyond format, size and closeness (gray, palette size)."""
        return {}

    def verify(self, ctx: TaskContext) -> VerifierResult:
        data = ctx.read_file(ctx.params["output"])
        expected = self.expected(ctx.params)
        fmt = self.output_suffix.lstrip(".")
        checks = {
            "format": verify_image_properties(data, format=fmt, width=expected.size[0], height=expected.size[1]),
            "picture": close_to(data, expected),
        }
        return all_of({**checks, **self.extra_checks(data, ctx.params)})
