"""``GimpTools``: GIMP's API, over its Script-Fu server, acting on the live GIMP.

Each call finds the Script-Fu port the launch wrote into the session's profile, sends one script and
returns; a change is one undo step in GIMP (Edit > Undo takes it back) and shows in GIMP's window at
once. Calls act on the image in front: the newest open image. Every agent value enters a script only
as a checked number or an escaped string literal (:mod:`.scriptfu`); names (modes, directions) are
looked up in fixed tables. A mistake the agent can make (a bad size, a path outside the home, an
unknown mode) is an :class:`ApiArgumentError`; GIMP not running, or refusing, is an
:class:`ApiCallError`.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, ClassVar

from ..tools_base import ApiArgumentError, ApiCallError, AppTools
from .launch import port_file
from .scriptfu import ScriptFuError, evaluate, scheme_number, scheme_string

#: The largest image side a call may ask for, in pixels.
MAX_SIDE = 8192
#: The largest text size, in pixels.
MAX_FONT_PX = 1000
#: Seconds one script may take.
CALL_TIMEOUT_S = 60.0
#: Files GIMP opens here, and those it exports (by suffix).
OPEN_TYPES = (".png", ".jpg", ".jpeg", ".xcf", ".bmp", ".gif", ".tif", ".tiff")
EXPORT_TYPES = (".png", ".jpg", ".jpeg", ".bmp", ".gif", ".tif", ".tiff")
MODES = {0: "rgb", 1: "grayscale", 2: "indexed"}
DESATURATE_MODES = {
    "luminance": "DESATURATE-LUMINANCE",
    "luma": "DESATURATE-LUMA",
    "lightness": "DESATURATE-LIGHTNESS",
    "average": "DESATURATE-AVERAGE",
    "value": "DESATURATE-VALUE",
}
ROTATIONS = {90: "ROTATE-90", 180: "ROTATE-180", 270: "ROTATE-270"}
FLIPS = {"horizontal": "ORIENTATION-HORIZONTAL", "vertical": "ORIENTATION-VERTICAL"}
#: Indexed conversion: no dithering, an optimal palette of ``count`` colors, unused colors dropped.
INDEXED_OPTIONS = 'CONVERT-DITHER-NONE CONVERT-PALETTE-GENERATE {count} FALSE TRUE ""'
_HEX_COLOR = re.compile(r"#?([0-9a-fA-F]{6})")
_FONT = re.compile(r"[\w .,&+'()-]{1,100}")


def _side(value: int, name: str) -> str:
    try:
        return scheme_number(value, 1, MAX_SIDE, integer=True, name=name)
    except ValueError as error:
        raise ApiArgumentError(str(error)) from None


def _offset(value: int, name: str) -> str:
    try:
        return scheme_number(value, -MAX_SIDE, MAX_SIDE, integer=True, name=name)
    except ValueError as error:
        raise ApiArgumentError(str(error)) from None


def _fraction(value: float, low: float, high: float, name: str) -> str:
    try:
        return scheme_number(value, low, high, name=name)
    except ValueError as error:
        raise ApiArgumentError(str(error)) from None


def _text(value: str, name: str) -> str:
    try:
        return scheme_string(value)
    except ValueError as error:
        raise ApiArgumentError(f"{name}: {error}") from None


def _color(value: str) -> str:
    match = _HEX_COLOR.fullmatch(value.strip()) if isinstance(value, str) else None
    if match is None:
        raise ApiArgumentError(f"a color is '#rrggbb' (like '#ff8800'), got {value!r}")
    digits = match.group(1)
    return "'({} {} {})".format(*(int(digits[i : i + 2], 16) for i in (0, 2, 4)))


def _choice(value: Any, table: dict[Any, str], name: str) -> str:
    key = value.strip().lower() if isinstance(value, str) else value
    if key not in table:
        raise ApiArgumentError(f"{name} must be one of {', '.join(map(str, table))}, got {value!r}")
    return table[key]


class GimpTools(AppTools):
    """The image in front in GIMP: open, inspect, transform, adjust colors, add text, export and save."""

    uses_uno: ClassVar[bool] = False
    call_timeout_s: ClassVar[float] = CALL_TIMEOUT_S + 5  # every call waits on Script-Fu for up to CALL_TIMEOUT_S

    # ------------------------------------------------------------------ plumbing
    def _port(self) -> int:
        try:
            text = port_file(self.home).read_text().strip()
        except OSError:
            raise ApiCallError("GIMP is not running (launch gimp first)") from None
        if not text.isdigit() or not 0 < int(text) < 65536:
            raise ApiCallError("GIMP's Script-Fu port file is damaged (launch gimp again)")
        return int(text)

    def _eval(self, script: str) -> Any:
        try:
            return evaluate(self._port(), script, timeout=CALL_TIMEOUT_S)
        except ScriptFuError as error:
            if error.script_failed:
                raise ApiCallError(f"GIMP refused: {error}") from None
            raise ApiCallError(f"GIMP does not answer (launch gimp first): {error}") from None

    def _image(self) -> int:
        listing = self._eval("(gimp-image-list)")
        if not isinstance(listing, list) or len(listing) != 2 or not listing[1]:
            raise ApiCallError("no image is open in GIMP (open one with open_image or new_image)")
        return max(int(image) for image in listing[1])

    def _change(self, body: str, result: str = "#t") -> Any:
        """Run ``body`` on the image in front (bound as ``image``, its active layer as ``layer``) as
        one undo step, refresh the window, and return ``result``'s value."""
        image = self._image()
        script = (
            f"(let* ((image {image}) (layer (car (gimp-image-get-active-drawable image))))"
            " (gimp-image-undo-group-start image) (gimp-context-push)"
            f" (let ((value (begin {body} {result})))"
            " (gimp-context-pop) (gimp-image-undo-group-end image) (gimp-displays-flush) value))"
        )
        try:
            return self._eval(script)
        except ApiCallError as error:
            if str(error).startswith("GIMP refused"):  # close what the failed script left open
                cleanup = f"(begin (gimp-context-pop) (gimp-image-undo-group-end {image}) (gimp-displays-flush) #t)"
                try:
                    self._eval(cleanup)
                except ApiCallError:
                    pass
            raise

    def _home_file(self, path: str, suffixes: tuple[str, ...], *, exists: bool) -> Path:
        if not isinstance(path, str) or not path.strip() or len(path) > 1000:
            raise ApiArgumentError("a path must have 1 to 1000 characters")
        raw = Path(path[2:] if path.startswith("~/") else path)
        target = (raw if raw.is_absolute() else self.home / raw).resolve()
        if not target.is_relative_to(self.home.resolve()):
            raise ApiArgumentError(f"{path!r} is outside the home folder")
        if target.suffix.lower() not in suffixes:
            raise ApiArgumentError(f"{path!r} must end with one of {', '.join(suffixes)}")
        if exists and not target.is_file():
            raise ApiArgumentError(f"no file {path!r}")
        if not exists and not target.parent.is_dir():
            raise ApiArgumentError(f"the folder of {path!r} does not exist")
        return target

    # ------------------------------------------------------------------ images
    def open_image(self, path: str) -> dict[str, Any]:
        """Open an image file in a new GIMP tab; it becomes the image in front. Returns its properties.

        Args:
            path: The file, e.g. "~/Pictures/photo.png" (png, jpg, xcf, bmp, gif or tif).
        """
        target = _text(str(self._home_file(path, OPEN_TYPES, exists=True)), "path")
        self._eval(
            f"(let ((image (car (gimp-file-load RUN-NONINTERACTIVE {target} {target}))))"
            " (gimp-image-clean-all image) (gimp-display-new image) (gimp-displays-flush) image)"
        )
        return self.image_info()

    def new_image(self, width: int, height: int, color: str = "#ffffff") -> dict[str, Any]:
        """Create a new RGB image filled with one color; it becomes the image in front.

        Args:
            width: Width in pixels (1 to 8192).
            height: Height in pixels (1 to 8192).
            color: The fill color as '#rrggbb'.
        """
        w, h, fill = _side(width, "width"), _side(height, "height"), _color(color)
        self._eval(
            f"(let* ((image (car (gimp-image-new {w} {h} RGB)))"
            f' (layer (car (gimp-layer-new image {w} {h} RGB-IMAGE "Background" 100 LAYER-MODE-NORMAL))))'
            f" (gimp-image-insert-layer image layer 0 0) (gimp-context-push) (gimp-context-set-background {fill})"
            " (gimp-drawable-fill layer FILL-BACKGROUND) (gimp-context-pop) (gimp-image-clean-all image)"
            " (gimp-display-new image) (gimp-displays-flush) image)"
        )
        return self.image_info()

    def image_info(self) -> dict[str, Any]:
        """The image in front: width, height, mode (rgb, grayscale, indexed), layer count, file, unsaved changes."""
        image = self._image()
        width, height, mode, layers, file, dirty = self._eval(
            f"(list (car (gimp-image-width {image})) (car (gimp-image-height {image}))"
            f" (car (gimp-image-base-type {image})) (car (gimp-image-get-layers {image}))"
            f" (car (gimp-image-get-filename {image})) (car (gimp-image-is-dirty {image})))"
        )
        return {
            "width": width,
            "height": height,
            "mode": MODES.get(mode, str(mode)),
            "layers": layers,
            "file": self.shown_path(file) if file else "",
            "unsaved_changes": bool(dirty),
        }

    def list_layers(self) -> list[dict[str, Any]]:
        """The layers of the image in front, top first: name, size, offset, visibility, opacity, text (text layers)."""
        image = self._image()
        rows = self._eval(
            f"(map (lambda (l) (list (car (gimp-item-get-name l)) (car (gimp-drawable-width l))"
            " (car (gimp-drawable-height l)) (gimp-drawable-offsets l) (car (gimp-item-get-visible l))"
            " (car (gimp-layer-get-opacity l))"
            ' (if (= (car (gimp-item-is-text-layer l)) 1) (car (gimp-text-layer-get-text l)) "")))'
            f" (vector->list (cadr (gimp-image-get-layers {image}))))"
        )
        return [
            {
                "name": name,
                "width": w,
                "height": h,
                "x": offsets[0],
                "y": offsets[1],
                "visible": bool(visible),
                "opacity": round(float(opacity), 1),
                "text": text,
            }
            for name, w, h, offsets, visible, opacity, text in rows[:500]
        ]

    def pick_color(self, x: int, y: int) -> str:
        """The color of the pixel at (x, y) of the image as shown (all visible layers), as '#rrggbb'.

        Args:
            x: Column, 0 at the left.
            y: Row, 0 at the top.
        """
        column, row = _offset(x, "x"), _offset(y, "y")
        info = self.image_info()
        if not (0 <= x < info["width"] and 0 <= y < info["height"]):
            raise ApiArgumentError(f"({x}, {y}) is outside the {info['width']} x {info['height']} image")
        image = self._image()
        color = self._eval(
            f"(car (gimp-image-pick-color {image} (car (gimp-image-get-active-drawable {image}))"
            f" {column} {row} TRUE FALSE 0))"
        )
        return "#" + "".join(f"{int(channel):02x}" for channel in color[:3])

    # ------------------------------------------------------------------ geometry
    def scale_image(self, width: int, height: int) -> dict[str, Any]:
        """Scale the whole image (all layers) to a new size in pixels.

        Args:
            width: New width (1 to 8192).
            height: New height (1 to 8192).
        """
        self._change(f"(gimp-image-scale image {_side(width, 'width')} {_side(height, 'height')})")
        return self.image_info()

    def crop_image(self, x: int, y: int, width: int, height: int) -> dict[str, Any]:
        """Crop the image to a rectangle.

        Args:
            x: Left edge of the kept part (pixels from the left).
            y: Top edge of the kept part (pixels from the top).
            width: Width of the kept part.
            height: Height of the kept part.
        """
        w, h, left, top = _side(width, "width"), _side(height, "height"), _offset(x, "x"), _offset(y, "y")
        info = self.image_info()
        if x < 0 or y < 0 or x + width > info["width"] or y + height > info["height"]:
            size = f"{info['width']} x {info['height']}"
            raise ApiArgumentError(f"the rectangle ({x}, {y}, {width} x {height}) is not inside the {size} image")
        self._change(f"(gimp-image-crop image {w} {h} {left} {top})")
        return self.image_info()

    def resize_canvas(
        self, width: int, height: int, offset_x: int = 0, offset_y: int = 0, fill: str = "#ffffff"
    ) -> dict[str, Any]:
        """Change the canvas size; the picture moves by the offset and new area takes the fill color
        (layers with transparency stay transparent there).

        Args:
            width: New canvas width (1 to 8192).
            height: New canvas height (1 to 8192).
            offset_x: Where the old picture's left edge lands on the new canvas.
            offset_y: Where the old picture's top edge lands on the new canvas.
            fill: The new area's color as '#rrggbb'.
        """
        w, h, color = _side(width, "width"), _side(height, "height"), _color(fill)
        x, y = _offset(offset_x, "offset_x"), _offset(offset_y, "offset_y")
        self._change(
            f"(gimp-context-set-background {color}) (gimp-image-resize image {w} {h} {x} {y})"
            " (for-each (lambda (l) (gimp-layer-resize-to-image-size l))"
            " (vector->list (cadr (gimp-image-get-layers image))))"
        )
        return self.image_info()

    def rotate_image(self, degrees: int) -> dict[str, Any]:
        """Rotate the whole image clockwise.

        Args:
            degrees: 90, 180 or 270.
        """
        self._change(f"(gimp-image-rotate image {_choice(degrees, ROTATIONS, 'degrees')})")
        return self.image_info()

    def flip_image(self, direction: str) -> dict[str, Any]:
        """Mirror the whole image.

        Args:
            direction: "horizontal" (left and right swap) or "vertical" (top and bottom swap).
        """
        self._change(f"(gimp-image-flip image {_choice(direction, FLIPS, 'direction')})")
        return self.image_info()

    # ------------------------------------------------------------------ colors
    def adjust_brightness_contrast(self, brightness: float = 0.0, contrast: float = 0.0) -> str:
        """Change the active layer's brightness and contrast (Colors > Brightness-Contrast).

        Args:
            brightness: -1.0 (darkest) to 1.0 (brightest); 0 keeps it.
            contrast: -1.0 to 1.0; 0 keeps it.
        """
        b = _fraction(brightness, -1, 1, "brightness")
        c = _fraction(contrast, -1, 1, "contrast")
        self._change(f"(gimp-drawable-brightness-contrast layer {b} {c})")
        return f"brightness {brightness:+g}, contrast {contrast:+g}"

    def desaturate(self, mode: str = "luminance") -> str:
        """Turn the active layer's colors into grays (the image stays RGB; see convert_mode for grayscale mode).

        Args:
            mode: How gray is computed: luminance, luma, lightness, average or value.
        """
        self._change(f"(gimp-drawable-desaturate layer {_choice(mode, DESATURATE_MODES, 'mode')})")
        return f"desaturated ({mode})"

    def adjust_levels(
        self,
        low_input: int = 0,
        high_input: int = 255,
        gamma: float = 1.0,
        low_output: int = 0,
        high_output: int = 255,
    ) -> str:
        """Colors > Levels on the active layer's value channel: input range stretched to the output range.

        Args:
            low_input: Input black point (0 to 255).
            high_input: Input white point (0 to 255, above low_input).
            gamma: Midtone gamma (0.1 to 10; above 1 brightens).
            low_output: Output black point (0 to 255).
            high_output: Output white point (0 to 255).
        """
        points = [_fraction(v, 0, 255, n) for v, n in ((low_input, "low_input"), (high_input, "high_input"))]
        if low_input >= high_input:
            raise ApiArgumentError("low_input must be below high_input")
        outputs = [_fraction(v, 0, 255, n) for v, n in ((low_output, "low_output"), (high_output, "high_output"))]
        g = _fraction(gamma, 0.1, 10, "gamma")
        scaled = [f"(/ {value} 255)" for value in (*points, *outputs)]
        low_in, high_in, low_out, high_out = scaled
        levels = f"{low_in} {high_in} TRUE {g} {low_out} {high_out} TRUE"
        self._change(f"(gimp-drawable-levels layer HISTOGRAM-VALUE {levels})")
        return f"levels {low_input}-{high_input} gamma {gamma:g} -> {low_output}-{high_output}"

    def invert_colors(self) -> str:
        """Invert the active layer's colors (Colors > Invert)."""
        self._change("(gimp-drawable-invert layer FALSE)")
        return "inverted"

    def convert_mode(self, mode: str, colors: int = 256) -> dict[str, Any]:
        """Convert the image's color mode (Image > Mode).

        Args:
            mode: "rgb", "grayscale" or "indexed".
            colors: For indexed: the palette size (2 to 256).
        """
        wanted = _choice(mode, {"rgb": "rgb", "grayscale": "grayscale", "indexed": "indexed"}, "mode")
        if self.image_info()["mode"] == wanted:
            raise ApiArgumentError(f"the image is already in {wanted} mode")
        if wanted == "indexed":
            count = _fraction(colors, 2, 256, "colors")
            body = f"(gimp-image-convert-indexed image {INDEXED_OPTIONS.format(count=count)})"
        else:
            body = f"(gimp-image-convert-{wanted} image)"
        self._change(body)
        return self.image_info()

    def flatten_image(self) -> dict[str, Any]:
        """Merge all layers into one, filling transparency with the background color."""
        self._change("(gimp-image-flatten image)")
        return self.image_info()

    def add_text(
        self, text: str, x: int = 0, y: int = 0, size: float = 32, color: str = "#000000", font: str = "Sans-serif"
    ) -> dict[str, Any]:
        """Add a text layer on top of the image; returns the new layer.

        Args:
            text: The text (up to 4000 characters; newlines allowed).
            x: Left edge of the text in pixels.
            y: Top edge of the text in pixels.
            size: Font size in pixels (1 to 1000).
            color: Text color as '#rrggbb'.
            font: Font name, e.g. "Sans-serif", "Serif", "Monospace", "DejaVu Sans Bold".
        """
        if not isinstance(text, str) or not text.strip():
            raise ApiArgumentError("text must not be empty")
        if not isinstance(font, str) or not _FONT.fullmatch(font):
            raise ApiArgumentError(f"font must be a font name (letters, digits, spaces), got {font!r}")
        literal, px, fill = _text(text, "text"), _fraction(size, 1, MAX_FONT_PX, "size"), _color(color)
        self._change(
            f"(gimp-context-set-foreground {fill})"
            f" (gimp-text-fontname image -1 {_offset(x, 'x')} {_offset(y, 'y')} {literal} 0 TRUE {px} PIXELS"
            f" {scheme_string(font)})"
        )
        return self.list_layers()[0]

    # ------------------------------------------------------------------ files
    def export_image(self, path: str, quality: int = 90) -> str:
        """Export the image as shown (all visible layers merged) to png, jpg, bmp, gif or tif; returns the path.

        Args:
            path: The file to write in the home folder, e.g. "~/Pictures/out.png"; its suffix picks the format.
            quality: JPEG quality 1 to 100 (other formats ignore it).
        """
        target = self._home_file(path, EXPORT_TYPES, exists=False)
        name = _text(str(target), "path")
        suffix = target.suffix.lower()
        q = _fraction(quality, 1, 100, "quality")
        if suffix == ".png":
            merge = "(car (gimp-image-merge-visible-layers copy CLIP-TO-IMAGE))"
            save = f"(file-png-save-defaults RUN-NONINTERACTIVE copy flat {name} {name})"
        elif suffix in (".jpg", ".jpeg"):
            merge = "(car (gimp-image-flatten copy))"
            save = f'(file-jpeg-save RUN-NONINTERACTIVE copy flat {name} {name} (/ {q} 100) 0 1 0 "" 2 1 0 0)'
        else:
            merge = "(car (gimp-image-flatten copy))"
            index = (
                "(if (= (car (gimp-image-base-type copy)) RGB)"
                f" (gimp-image-convert-indexed copy {INDEXED_OPTIONS.format(count=256)}))"
            )
            save = (index if suffix == ".gif" else "") + f" (gimp-file-save RUN-NONINTERACTIVE copy flat {name} {name})"
        image = self._image()
        self._eval(
            f"(let* ((copy (car (gimp-image-duplicate {image}))) (flat {merge})) {save} (gimp-image-delete copy) #t)"
        )
        if not target.is_file():
            raise ApiCallError(f"GIMP did not write {self.shown_path(target)}")
        return self.shown_path(target)

    def save_xcf(self, path: str) -> str:
        """Save the image with its layers as a GIMP .xcf file (it then belongs to that file); returns the path.

        Args:
            path: The .xcf file to write in the home folder, e.g. "~/Pictures/work.xcf".
        """
        target = self._home_file(path, (".xcf",), exists=False)
        name = _text(str(target), "path")
        self._change(f"(gimp-xcf-save 0 image layer {name} {name}) (gimp-image-set-filename image {name})")
        self._eval(f"(begin (gimp-image-clean-all {self._image()}) (gimp-displays-flush) #t)")
        return self.shown_path(target)
