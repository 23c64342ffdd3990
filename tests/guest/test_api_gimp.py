"""GimpTools against the live GIMP through the real CallApi RPC, each result checked a second way: the
exported file's pixels (Pillow), a fresh query of GIMP, or the file GIMP wrote."""

from __future__ import annotations

import io
import json
import time
from collections.abc import Iterator
from typing import Any

import pytest
from PIL import Image, ImageDraw

from desktop_gym.apps.gimp.scriptfu import ScriptFuError, run_script
from desktop_gym.guest.client import GuestClient, GuestError

pytestmark = pytest.mark.slow

SOURCE = "~/Pictures/source.png"


def gimp(guest: GuestClient, method: str, **arguments: Any) -> Any:
    return json.loads(guest.call_api("GimpTools", method, json.dumps(arguments), timeout=60.0))


def source_png() -> bytes:
    """120 x 80: red left half, blue right half, a white square at (10..29, 10..29)."""
    image = Image.new("RGB", (120, 80), (220, 30, 30))
    draw = ImageDraw.Draw(image)
    draw.rectangle((60, 0, 119, 79), fill=(30, 30, 220))
    draw.rectangle((10, 10, 29, 29), fill=(255, 255, 255))
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def exported(guest: GuestClient, name: str = "out.png", **arguments: Any) -> Image.Image:
    path = f"~/Pictures/{name}"
    assert gimp(guest, "export_image", path=path, **arguments) == path
    return Image.open(io.BytesIO(guest.get_file(path)))


@pytest.fixture(scope="module")
def app(_session_guest: GuestClient) -> Iterator[GuestClient]:
    """One GIMP for the module (its launch takes seconds), started on the source image."""
    _session_guest.kill_apps()
    _session_guest.exec("rm -rf ~/.config/GIMP ~/Pictures && mkdir -p ~/Pictures", shell=True)
    _session_guest.put_file(SOURCE, source_png())
    started = time.monotonic()
    info = _session_guest.launch_app("gimp", SOURCE, timeout=90.0)
    print(f"GIMP launch: {time.monotonic() - started:.1f} s")
    assert info.alive
    yield _session_guest
    _session_guest.kill_apps()


@pytest.fixture
def image(app: GuestClient) -> GuestClient:
    """GIMP with the source image opened afresh in front."""
    info = gimp(app, "open_image", path=SOURCE)
    assert (info["width"], info["height"], info["mode"], info["unsaved_changes"]) == (120, 80, "rgb", False)
    return app


def test_launch_is_ready_with_the_image_and_one_window(app):
    windows = [w for w in app.windows() if "gimp" in w.app.lower()]
    assert len(windows) == 1 and "source" in windows[0].title, [(w.app, w.title) for w in windows]
    width, height = app.screen_size()
    assert windows[0].width >= width * 0.9 and windows[0].height >= height * 0.8  # the session's window layout
    assert gimp(app, "image_info")["file"] == SOURCE


def test_pick_color_and_export_agree_with_the_source(image):
    assert gimp(image, "pick_color", x=15, y=15) == "#ffffff"
    assert gimp(image, "pick_color", x=100, y=40) == "#1e1edc"
    picture = exported(image).convert("RGB")
    assert picture.size == (120, 80) and picture.getpixel((5, 5)) == (220, 30, 30)
    with pytest.raises(GuestError, match="outside"):
        gimp(image, "pick_color", x=120, y=0)


def test_scale_crop_and_canvas(image):
    assert gimp(image, "scale_image", width=60, height=40)["width"] == 60
    assert exported(image).size == (60, 40)
    info = gimp(image, "crop_image", x=30, y=0, width=30, height=40)  # the blue half
    assert (info["width"], info["height"]) == (30, 40)
    assert exported(image).convert("RGB").getpixel((15, 20)) == (30, 30, 220)
    gimp(image, "resize_canvas", width=50, height=40, offset_x=20, offset_y=0)
    picture = exported(image).convert("RGBA")
    assert picture.size == (50, 40) and picture.getpixel((30, 20))[:3] == (30, 30, 220)
    assert picture.getpixel((5, 20)) != picture.getpixel((30, 20))  # the new area is not the picture
    with pytest.raises(GuestError, match="not inside"):
        gimp(image, "crop_image", x=40, y=0, width=20, height=10)


def test_rotate_and_flip_move_the_white_square(image):
    info = gimp(image, "rotate_image", degrees=90)
    assert (info["width"], info["height"]) == (80, 120)
    # Clockwise: the top-left square (10..29, 10..29) lands at x 50..69, y 10..29.
    assert exported(image).convert("RGB").getpixel((60, 20)) == (255, 255, 255)
    gimp(image, "flip_image", direction="horizontal")
    assert gimp(image, "pick_color", x=20, y=20) == "#ffffff"
    with pytest.raises(GuestError, match="degrees must be one of"):
        gimp(image, "rotate_image", degrees=45)


def test_color_adjustments_change_the_pixels(image):
    gimp(image, "desaturate", mode="luminance")
    red, green, blue = exported(image).convert("RGB").getpixel((5, 40))
    assert red == green == blue and red < 120
    gimp(image, "invert_colors")
    inverted = exported(image).convert("RGB").getpixel((5, 40))[0]
    assert inverted == 255 - red
    gimp(image, "adjust_brightness_contrast", brightness=0.5, contrast=0.0)
    assert exported(image).convert("RGB").getpixel((5, 40))[0] > inverted + 20
    gimp(image, "adjust_levels", low_input=0, high_input=255, gamma=1.0, low_output=0, high_output=100)
    assert exported(image).convert("RGB").getpixel((15, 15))[0] <= 101
    with pytest.raises(GuestError, match="brightness must be between"):
        gimp(image, "adjust_brightness_contrast", brightness=2)


def test_modes_convert_and_export_formats(image):
    assert gimp(image, "convert_mode", mode="indexed", colors=4)["mode"] == "indexed"
    assert len(exported(image).convert("RGB").getcolors(256)) <= 4
    assert gimp(image, "convert_mode", mode="grayscale")["mode"] == "grayscale"
    assert exported(image).mode in ("L", "LA")
    jpeg = exported(image, "out.jpg", quality=50)
    assert jpeg.format == "JPEG" and jpeg.size == (120, 80)
    assert exported(image, "out.gif").format == "GIF"
    with pytest.raises(GuestError, match="already in grayscale"):
        gimp(image, "convert_mode", mode="grayscale")


def test_text_layer_shows_in_layers_and_pixels(image):
    layer = gimp(image, "add_text", text='Hi "GIMP" \\ ü', x=40, y=40, size=24, color="#00ff00")
    assert layer["text"] == 'Hi "GIMP" \\ ü' and (layer["x"], layer["y"]) == (40, 40)
    layers = gimp(image, "list_layers")
    assert [entry["text"] for entry in layers] == [layer["text"], ""]
    picture = exported(image).convert("RGB")
    green = sum(
        1
        for x in range(40, 120)
        for y in range(40, 80)
        if picture.getpixel((x, y))[1] > 200 > picture.getpixel((x, y))[0]
    )
    assert green > 30
    assert gimp(image, "flatten_image")["layers"] == 1


def test_save_xcf_keeps_layers_and_clears_the_unsaved_flag(image):
    gimp(image, "add_text", text="layered", x=0, y=0, size=12)
    assert gimp(image, "image_info")["unsaved_changes"] is True
    assert gimp(image, "save_xcf", path="~/Pictures/work.xcf") == "~/Pictures/work.xcf"
    assert image.get_file("~/Pictures/work.xcf").startswith(b"gimp xcf")
    info = gimp(image, "image_info")
    assert info["file"] == "~/Pictures/work.xcf" and info["unsaved_changes"] is False
    reopened = gimp(image, "open_image", path="~/Pictures/work.xcf")
    assert reopened["layers"] == 2


def test_new_image_is_filled(app):
    info = gimp(app, "new_image", width=33, height=22, color="#336699")
    assert (info["width"], info["height"]) == (33, 22)
    assert gimp(app, "pick_color", x=32, y=21) == "#336699"


@pytest.mark.parametrize(
    ("method", "arguments", "message"),
    [
        ("open_image", {"path": "/etc/passwd.png"}, "outside the home"),
        ("open_image", {"path": "~/Pictures/missing.png"}, "no file"),
        ("export_image", {"path": "~/Pictures/out.exe"}, "must end with"),
        ("export_image", {"path": "~/nowhere/out.png"}, "does not exist"),
        ("add_text", {"text": "x", "font": 'Sans") (gimp-quit 0) ("'}, "font must be"),
        ("add_text", {"text": "a\x00b"}, "control character"),
        ("scale_image", {"width": 0, "height": 10}, "between 1 and 8192"),
        ("new_image", {"width": 10, "height": 10, "color": "red"}, "#rrggbb"),
        ("flip_image", {"direction": "diagonal"}, "direction must be one of"),
    ],
)
def test_bad_arguments_are_refused_and_gimp_keeps_running(image, method, arguments, message):
    with pytest.raises(GuestError, match=message):
        gimp(image, method, **arguments)
    assert gimp(image, "image_info")["width"] == 120


def test_a_stopped_gimp_is_a_call_error(app):
    app.kill_apps()
    try:
        with pytest.raises(GuestError, match="GIMP"):
            gimp(app, "image_info")
    finally:
        assert app.launch_app("gimp", SOURCE, timeout=90.0).alive


def test_a_refused_change_closes_its_undo_group_and_context(image):
    gimp(image, "convert_mode", mode="indexed", colors=8)
    with pytest.raises(GuestError, match="GIMP refused"):
        gimp(image, "desaturate")  # GIMP refuses colour tools on an indexed image
    # The failed script's context push was popped: one more pop finds the stack at its base (the local
    # desktop's loopback is this machine's).
    port = int(image.exec("cat ~/.config/GIMP/2.10/gym-scriptfu-port", shell=True).stdout)
    with pytest.raises(ScriptFuError, match="pop"):
        run_script(port, "(gimp-context-pop)")
    assert gimp(image, "scale_image", width=60, height=40)["width"] == 60
