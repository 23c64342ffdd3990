"""Image-edit verifiers on images made with Pillow: each passes the right picture and fails a near miss
(one cell changed, a tint, one pixel of color, a larger palette, the wrong format)."""

from __future__ import annotations

import io

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image, ImageDraw

from desktop_gym.verifiers import (
    get_verifier,
    image_grid,
    verify_image_brightness,
    verify_image_close_to,
    verify_image_color_count,
    verify_image_grayscale,
    verify_image_properties,
    verify_image_region_ink,
)


def png(image: Image.Image, format: str = "PNG") -> bytes:
    out = io.BytesIO()
    image.save(out, format=format)
    return out.getvalue()


def picture() -> Image.Image:
    image = Image.new("RGB", (160, 120), (30, 90, 200))
    draw = ImageDraw.Draw(image)
    draw.rectangle((20, 20, 80, 70), fill=(250, 200, 20))
    draw.ellipse((90, 40, 150, 110), fill=(10, 160, 60))
    return image


def test_properties_read_the_real_format_size_and_mode() -> None:
    data = png(picture())
    assert verify_image_properties(data, format="png", width=160, height=120, modes=["RGB"]).success
    assert not verify_image_properties(png(picture(), "JPEG"), format="png").success
    assert not verify_image_properties(data, width=161).success
    assert not verify_image_properties(data, modes=["L"]).success
    with pytest.raises(ValueError, match="unknown format"):
        verify_image_properties(data, format="webp")


def test_close_to_passes_the_same_picture_and_fails_a_local_change() -> None:
    reference = picture()
    grid = image_grid(reference)
    assert verify_image_close_to(png(reference, "JPEG"), 160, 120, grid).success  # JPEG noise is within tolerance
    changed = picture()
    ImageDraw.Draw(changed).rectangle((0, 0, 12, 9), fill=(255, 255, 255))  # one 16 x 16 grid cell
    result = verify_image_close_to(png(changed), 160, 120, grid)
    assert not result.success and result.details["worst_cell"] == [0, 0]
    assert not verify_image_close_to(png(reference.resize((80, 60))), 160, 120, grid).success


def test_grid_composites_transparency_over_white() -> None:
    clear = Image.new("RGBA", (16, 16), (0, 0, 0, 0))
    assert set(image_grid(png(clear))) == {255}


def test_grayscale_fails_one_colored_pixel() -> None:
    gray = picture().convert("L")
    assert verify_image_grayscale(png(gray)).success
    rgb = gray.convert("RGB")
    rgb.putpixel((5, 5), (200, 0, 0))
    assert not verify_image_grayscale(png(rgb)).success


def test_color_count_bounds_the_palette() -> None:
    data = png(picture())
    assert verify_image_color_count(data, max_colors=3).success
    assert not verify_image_color_count(data, max_colors=2).success
    assert not verify_image_color_count(data, max_colors=100, min_colors=4).success


def test_brightness_range() -> None:
    assert verify_image_brightness(png(Image.new("RGB", (4, 4), (255, 255, 255))), 250, 255).success
    assert not verify_image_brightness(png(Image.new("RGB", (4, 4), (100, 100, 100))), 110, 255).success


def test_region_ink_counts_pixels_of_a_color() -> None:
    data = png(picture())
    assert verify_image_region_ink(data, [20, 20, 81, 71], [250, 200, 20], min_fraction=0.99).success
    assert not verify_image_region_ink(data, [0, 0, 20, 20], [250, 200, 20], min_fraction=0.01).success
    assert not verify_image_region_ink(data, [0, 0, 500, 20], [250, 200, 20]).success


def test_a_huge_image_header_is_unreadable_not_a_hang() -> None:
    header = png(Image.new("1", (1, 1)))
    bomb = header.replace(b"\x00\x00\x00\x01\x00\x00\x00\x01", b"\x00\x01\x00\x00\x00\x01\x00\x00", 1)
    result = get_verifier("image_properties")(bomb)
    assert not result.success


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 40), st.integers(1, 40), st.integers(1, 16), st.tuples(*[st.integers(0, 255)] * 3))
def test_a_plain_image_is_close_to_its_own_grid(width: int, height: int, cells: int, color: tuple[int, ...]) -> None:
    data = png(Image.new("RGB", (width, height), color))
    if cells > min(width, height):
        assert not verify_image_close_to(data, width, height, [0] * (3 * cells * cells), cells=cells).success
        return
    grid = image_grid(data, cells)
    assert grid == list(color) * cells * cells
    assert verify_image_close_to(data, width, height, grid, cells=cells, max_cell_difference=0).success
