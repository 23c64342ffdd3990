"""ImpressTools shapes, images, transitions, notes and saving on a live Impress document.

Checked in files saved through the API: pptx read with python-pptx, odp with odfpy, PDF by its pages.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterator

import pytest
from odf import draw, text
from odf.element import Element
from odf.opendocument import load as load_odf
from PIL import Image
from pptx import Presentation
from pptx.enum.shapes import MSO_SHAPE, MSO_SHAPE_TYPE
from pptx.util import Emu

from desktop_gym.guest.client import GuestClient
from desktop_gym.guest.types import GuestError

from .impress_api_support import call, launched_impress, png_bytes, saved_copy, saved_deck, transition_effect

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def impress(_session_guest: GuestClient) -> Iterator[GuestClient]:
    """One Impress instance on the source deck for this module's tests."""
    yield from launched_impress(_session_guest, "api_shapes")


def geometry_cm(shape) -> tuple[float, float, float, float]:  # noqa: ANN001 - a python-pptx shape
    return tuple(round(Emu(value).cm, 2) for value in (shape.left, shape.top, shape.width, shape.height))


def test_get_shapes_matches_the_saved_file(impress: GuestClient) -> None:
    shapes = call(impress, "get_shapes", slide=2)
    assert [(entry["shape"], entry["kind"], entry["text"]) for entry in shapes] == [
        (1, "title", "Agenda"),
        (2, "body", "Budget\nHiring"),
    ]
    saved = list(saved_deck(impress).slides[1].shapes)
    for entry, shape in zip(shapes, saved, strict=True):
        assert (entry["x_cm"], entry["y_cm"], entry["width_cm"], entry["height_cm"]) == pytest.approx(
            geometry_cm(shape), abs=0.02
        )
    # python-pptx's text box imports as a custom shape of type "rect", shrunk around its text
    assert call(impress, "get_shapes", slide=3) == [
        {"shape": 1, "kind": "rectangle", "name": "TextBox 1", "text": "Free text",
         "x_cm": 4.35, "y_cm": 2.0, "width_cm": 3.31, "height_cm": 1.01},
    ]  # fmt: skip


def test_insert_image_is_embedded(impress: GuestClient) -> None:
    path = impress.put_file("~/api-saved/red.png", png_bytes(40, 20))
    number = call(impress, "insert_image", slide=3, path=path, x_cm=4, y_cm=6, width_cm=8)
    picture = list(saved_deck(impress).slides[2].shapes)[number - 1]
    assert picture.shape_type == MSO_SHAPE_TYPE.PICTURE
    assert geometry_cm(picture) == (4.0, 6.0, 8.0, 4.0)  # height from the 2:1 aspect ratio
    assert Image.open(io.BytesIO(picture.image.blob)).size == (40, 20)
    call(impress, "insert_image", slide=3, path="~/api-saved/red.png", width_cm=3, height_cm=3)
    with pytest.raises(GuestError, match="path: no such file"):
        call(impress, "insert_image", slide=3, path="~/api-saved/missing.png")
    impress.put_file("~/api-saved/broken.png", b"not an image")
    count = len(call(impress, "get_shapes", slide=3))
    with pytest.raises(GuestError, match="path: LibreOffice cannot read '.*broken.png' as an image"):
        call(impress, "insert_image", slide=3, path="~/api-saved/broken.png")
    assert len(call(impress, "get_shapes", slide=3)) == count  # the half-made shape is gone
    impress.put_file("~/api-saved/notes.txt", b"not an image")
    with pytest.raises(GuestError, match="path must be an image"):
        call(impress, "insert_image", slide=3, path="~/api-saved/notes.txt")
    with pytest.raises(GuestError, match="path must be absolute or start with '~/'"):
        call(impress, "insert_image", slide=3, path="red.png")


def test_add_shape_rectangle_and_ellipse(impress: GuestClient) -> None:
    rectangle = call(
        impress, "add_shape", slide=1, kind="rectangle", x_cm=1, y_cm=1, width_cm=4, height_cm=2, fill_color="#FF0000"
    )
    ellipse = call(impress, "add_shape", slide=1, kind="ellipse", x_cm=6, y_cm=1, width_cm=3, height_cm=3, text="Hi")
    shapes = list(saved_deck(impress).slides[0].shapes)
    saved_rectangle, saved_ellipse = shapes[rectangle - 1], shapes[ellipse - 1]
    assert saved_rectangle.auto_shape_type == MSO_SHAPE.RECTANGLE
    assert str(saved_rectangle.fill.fore_color.rgb) == "FF0000"
    assert geometry_cm(saved_rectangle) == (1.0, 1.0, 4.0, 2.0)
    assert saved_ellipse.auto_shape_type == MSO_SHAPE.OVAL
    assert str(saved_ellipse.fill.fore_color.rgb) == "729FCF" and saved_ellipse.text_frame.text == "Hi"
    with pytest.raises(GuestError, match=r"kind must be one of 'rectangle', 'ellipse', got 'triangle'"):
        call(impress, "add_shape", slide=1, kind="triangle", x_cm=1, y_cm=1, width_cm=1, height_cm=1)


def test_move_resize_fill_and_delete_shape(impress: GuestClient) -> None:
    number = call(impress, "add_shape", slide=1, kind="rectangle", x_cm=2, y_cm=2, width_cm=2, height_cm=2)
    call(impress, "set_shape_position", slide=1, shape=number, x_cm=10.5, y_cm=12)
    call(impress, "set_shape_fill_color", slide=1, shape=number, color="#00AA00")
    shape = list(saved_deck(impress).slides[0].shapes)[number - 1]
    assert geometry_cm(shape) == (10.5, 12.0, 2.0, 2.0)
    assert str(shape.fill.fore_color.rgb) == "00AA00"
    call(impress, "set_shape_position", slide=1, shape=number, x_cm=1, y_cm=1, width_cm=5, height_cm=1.5)
    assert geometry_cm(list(saved_deck(impress).slides[0].shapes)[number - 1]) == (1.0, 1.0, 5.0, 1.5)
    count = len(call(impress, "get_shapes", slide=1))
    assert call(impress, "delete_shape", slide=1, shape=1).startswith("deleted shape 1 (title 'Quarterly Review')")
    remaining = list(saved_deck(impress).slides[0].shapes)
    assert len(remaining) == count - 1
    assert all(shape.text_frame.text != "Quarterly Review" for shape in remaining if shape.has_text_frame)
    with pytest.raises(GuestError, match=r"slide must be a slide number from 1 to 3, got 9"):
        call(impress, "delete_shape", slide=9, shape=1)


def test_transitions(impress: GuestClient) -> None:
    call(impress, "set_transition", slide=None, effect="fade", duration_s=2)
    call(impress, "set_transition", slide=2, effect="push")
    call(impress, "set_transition", slide=3, effect="none")
    slides = list(saved_deck(impress).slides)
    assert [transition_effect(slide) for slide in slides] == ["fade", "push", None]
    with pytest.raises(GuestError, match=r"effect must be one of 'none', 'fade', .* got 'spin' \(did you mean"):
        call(impress, "set_transition", slide=1, effect="spin")
    with pytest.raises(GuestError, match="duration_s must be between 0.1 and 60 seconds, got 0"):
        call(impress, "set_transition", slide=1, effect="fade", duration_s=0)


def test_speaker_notes(impress: GuestClient) -> None:
    assert call(impress, "get_speaker_notes", slide=2) == "Mention the budget first"
    assert call(impress, "get_speaker_notes", slide=1) == ""
    call(impress, "set_speaker_notes", slide=1, text="Welcome everyone\nIntroduce the team")
    call(impress, "set_speaker_notes", slide=2, text="")
    slides = list(saved_deck(impress).slides)
    assert slides[0].notes_slide.notes_text_frame.text == "Welcome everyone\nIntroduce the team"
    assert not slides[1].has_notes_slide or slides[1].notes_slide.notes_text_frame.text == ""
    assert call(impress, "get_speaker_notes", slide=1) == "Welcome everyone\nIntroduce the team"


def test_save_formats(impress: GuestClient) -> None:
    call(impress, "set_title", slide=2, title="Saved in place")
    in_place = call(impress, "save")  # the file the document was last saved to, in its format
    assert in_place.endswith(".pptx")
    assert Presentation(io.BytesIO(impress.get_file(in_place))).slides[1].shapes.title.text == "Saved in place"

    odp = call(impress, "save", file_format="odp")
    assert odp == in_place[: -len(".pptx")] + ".odp"
    document = load_odf(io.BytesIO(impress.get_file(odp)))
    pages = document.getElementsByType(draw.Page)
    assert len(pages) == 3
    assert "Saved in place" in _odf_text(pages[1])

    pdf = saved_copy(impress, ".pdf")
    assert pdf.startswith(b"%PDF") and len(re.findall(rb"/Type\s*/Page\b", pdf)) == 3
    assert call(impress, "save").endswith(".odp")  # Save As to odp moved the document there; PDF is an export
    assert saved_copy(impress, ".ppt").startswith(bytes.fromhex("d0cf11e0a1b11ae1"))  # an OLE2 compound file
    with pytest.raises(GuestError, match=r"path must end in one of .pptx, .odp, .ppt, .pdf, got '~/x.docx'"):
        call(impress, "save", path="~/x.docx")
    with pytest.raises(GuestError, match="file_format 'odp' does not match the suffix of path"):
        call(impress, "save", path="~/api-saved/x.pptx", file_format="odp")
    with pytest.raises(GuestError, match="the folder '/nonexistent' does not exist"):
        call(impress, "save", path="/nonexistent/x.pptx")


def _odf_text(element: Element) -> str:
    return " ".join(str(paragraph) for paragraph in element.getElementsByType(text.P))
