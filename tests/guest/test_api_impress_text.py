"""ImpressTools text methods on a live Impress document, checked in the pptx saved through the API."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from pptx.enum.text import PP_ALIGN
from pptx.util import Emu

from desktop_gym.guest.client import GuestClient
from desktop_gym.guest.types import GuestError

from .impress_api_support import bulleted, call, launched_impress, png_bytes, saved_deck

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def impress(_session_guest: GuestClient) -> Iterator[GuestClient]:
    """One Impress instance on the source deck for this module's tests."""
    yield from launched_impress(_session_guest, "api_text")


def shape_on(guest: GuestClient, slide: int, shape: int):  # noqa: ANN201 - a python-pptx shape
    """Shape number ``shape`` of slide ``slide`` (1-based) in a fresh API save."""
    return list(saved_deck(guest).slides[slide - 1].shapes)[shape - 1]


def test_set_placeholder_text(impress: GuestClient) -> None:
    call(impress, "set_placeholder_text", slide=1, placeholder="subtitle", text="Fourth quarter")
    call(impress, "set_placeholder_text", slide=2, placeholder="body", text="Revenue\nCosts\nOutlook")
    call(impress, "set_placeholder_text", slide=2, placeholder="title", text="Plan")
    deck = saved_deck(impress)
    assert deck.slides[0].shapes[1].text_frame.text == "Fourth quarter"
    body = deck.slides[1].shapes[1].text_frame.paragraphs
    assert [p.text for p in body] == ["Revenue", "Costs", "Outlook"] and all(bulleted(p) for p in body)
    assert deck.slides[1].shapes.title.text_frame.text == "Plan"
    added = call(impress, "add_slide", layout="title_content")
    call(impress, "set_placeholder_text", slide=added, placeholder="body", text="New one\nNew two")
    body = list(saved_deck(impress).slides[added - 1].shapes)[1]
    assert [p.text for p in body.text_frame.paragraphs] == ["New one", "New two"]
    assert all(bulleted(p) for p in body.text_frame.paragraphs)
    with pytest.raises(GuestError, match="slide 3 has no body placeholder"):
        call(impress, "set_placeholder_text", slide=3, placeholder="body", text="x")
    with pytest.raises(GuestError, match=r"placeholder must be one of 'title', 'subtitle', 'body', got 'footer'"):
        call(impress, "set_placeholder_text", slide=1, placeholder="footer", text="x")


def test_add_text_box_position_and_size(impress: GuestClient) -> None:
    number = call(impress, "add_text_box", slide=3, text="Boxed\nsecond line", x_cm=3, y_cm=12.5, width_cm=9)
    box = shape_on(impress, 3, number)
    assert box.text_frame.text == "Boxed\nsecond line"
    assert (round(Emu(box.left).cm, 2), round(Emu(box.top).cm, 2), round(Emu(box.width).cm, 2)) == (3.0, 12.5, 9.0)
    entry = call(impress, "get_shapes", slide=3)[number - 1]
    assert (entry["kind"], entry["text"], entry["x_cm"], entry["y_cm"]) == ("text_box", "Boxed\nsecond line", 3, 12.5)
    with pytest.raises(GuestError, match="width_cm must be between 0.1 and 500 cm, got -2"):
        call(impress, "add_text_box", slide=3, text="x", width_cm=-2)


def test_set_shape_text(impress: GuestClient) -> None:
    call(impress, "set_shape_text", slide=3, shape=1, text="Rewritten")
    assert shape_on(impress, 3, 1).text_frame.text == "Rewritten"
    with pytest.raises(GuestError, match=r"shape must be a shape number from 1 to \d+ on slide 3, got 40"):
        call(impress, "set_shape_text", slide=3, shape=40, text="x")


def test_font_name_size_bold_italic_colour(impress: GuestClient) -> None:
    number = call(impress, "add_text_box", slide=3, text="Styled one\nStyled two", y_cm=15)
    # Liberation fonts are written to pptx under their Microsoft names, so use DejaVu here.
    assert "DejaVu Serif" in call(impress, "set_font_name", slide=3, shape=number, font_name="DejaVu Serif")
    call(impress, "set_font_size", slide=3, shape=number, size=28)
    call(impress, "set_bold", slide=3, shape=number)
    call(impress, "set_italic", slide=3, shape=number)
    call(impress, "set_font_color", slide=3, shape=number, color="#C00000")
    runs = [run for paragraph in shape_on(impress, 3, number).text_frame.paragraphs for run in paragraph.runs]
    assert len(runs) == 2
    for run in runs:
        font = run.font
        assert (font.name, font.size.pt, font.bold, font.italic, str(font.color.rgb)) == (
            "DejaVu Serif",
            28.0,
            True,
            True,
            "C00000",
        )
    call(impress, "set_bold", slide=3, shape=number, bold=False)
    call(impress, "set_italic", slide=3, shape=number, italic=False)
    font = shape_on(impress, 3, number).text_frame.paragraphs[0].runs[0].font
    assert not font.bold and not font.italic
    with pytest.raises(GuestError, match="size must be between 1 and 400 points, got 0"):
        call(impress, "set_font_size", slide=3, shape=number, size=0)
    with pytest.raises(GuestError, match="font_name must not be empty"):
        call(impress, "set_font_name", slide=3, shape=number, font_name=" ")
    with pytest.raises(GuestError, match="color must be a hex colour"):
        call(impress, "set_font_color", slide=3, shape=number, color="#12")


def test_bullet_list(impress: GuestClient) -> None:
    number = call(impress, "add_text_box", slide=3, text="placeholder", y_cm=8)
    call(impress, "set_bullet_list", slide=3, shape=number, items=["Alpha", "Beta", "Gamma"])
    paragraphs = shape_on(impress, 3, number).text_frame.paragraphs
    assert [p.text for p in paragraphs] == ["Alpha", "Beta", "Gamma"]
    assert all(bulleted(p) for p in paragraphs)
    call(impress, "set_bullet_list", slide=3, shape=number, items=["Plain"], bulleted=False)
    paragraphs = shape_on(impress, 3, number).text_frame.paragraphs
    assert [p.text for p in paragraphs] == ["Plain"] and not bulleted(paragraphs[0])
    with pytest.raises(GuestError, match="items must hold at least one item"):
        call(impress, "set_bullet_list", slide=3, shape=number, items=[])
    with pytest.raises(GuestError, match=r"items\[1\] must be a string"):
        call(impress, "set_bullet_list", slide=3, shape=number, items=["a", 2])


def test_text_alignment(impress: GuestClient) -> None:
    number = call(impress, "add_text_box", slide=3, text="left\nthen centred", y_cm=17)
    call(impress, "set_text_alignment", slide=3, shape=number, alignment="center")
    assert [p.alignment for p in shape_on(impress, 3, number).text_frame.paragraphs] == [PP_ALIGN.CENTER] * 2
    call(impress, "set_text_alignment", slide=3, shape=number, alignment="right")
    assert shape_on(impress, 3, number).text_frame.paragraphs[0].alignment == PP_ALIGN.RIGHT


def test_text_methods_refuse_shapes_without_text(impress: GuestClient) -> None:
    path = impress.put_file("~/api-saved/text-test.png", png_bytes())
    number = call(impress, "insert_image", slide=3, path=path)
    with pytest.raises(GuestError, match=rf"shape {number} on slide 3 \(image\) holds no text"):
        call(impress, "set_bold", slide=3, shape=number)


def test_changes_show_in_the_window(impress: GuestClient, wait_until) -> None:
    """The live document is the one on screen: a new magenta shape is painted at once."""
    call(impress, "go_to_slide", slide=3)

    def magenta_pixels() -> int:
        pixels = impress.screenshot()[..., :3].astype(int)
        return int(((pixels[..., 0] > 230) & (pixels[..., 1] < 30) & (pixels[..., 2] > 230)).sum())

    assert magenta_pixels() == 0
    magenta = {"kind": "rectangle", "x_cm": 15, "y_cm": 1, "width_cm": 4, "height_cm": 3, "fill_color": "#FF00FF"}
    call(impress, "add_shape", slide=3, **magenta)
    wait_until(lambda: magenta_pixels() > 1000, timeout=10, what="the magenta rectangle on screen")
