"""ImpressTools slide methods on a live Impress document, checked in the saved pptx and the a11y tree."""

from __future__ import annotations

import io
import statistics
import time
from collections.abc import Iterator

import pytest
from pptx import Presentation

from desktop_gym.guest.client import GuestClient
from desktop_gym.guest.types import GuestError

from .impress_api_support import call, launched_impress, saved_deck, slide_texts, title_of

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def impress(_session_guest: GuestClient) -> Iterator[GuestClient]:
    """One Impress instance on the source deck for this module's tests."""
    yield from launched_impress(_session_guest, "api_slides")


def titles(guest: GuestClient) -> list[str]:
    return [title_of(slide) for slide in saved_deck(guest).slides]


def test_opened_in_place_and_saved_in_place(impress: GuestClient) -> None:
    call(impress, "set_title", slide=3, title="Saved where it was opened")
    path = call(impress, "save")
    assert path == impress.exec("echo ~/api_slides.pptx", shell=True).stdout.strip()
    assert title_of(Presentation(io.BytesIO(impress.get_file(path))).slides[2]) == "Saved where it was opened"
    call(impress, "delete_shape", slide=3, shape=call(impress, "get_shapes", slide=3)[-1]["shape"])


def test_list_slides_matches_the_source(impress: GuestClient) -> None:
    slides = call(impress, "list_slides")
    assert [entry["slide"] for entry in slides] == [1, 2, 3]
    assert [entry["title"] for entry in slides] == ["Quarterly Review", "Agenda", ""]
    assert [entry["layout"] for entry in slides] == ["title_slide", "title_content", "blank"]
    assert slides[1]["texts"] == ["Budget\nHiring"] and slides[2]["texts"] == ["Free text"]
    deck = saved_deck(impress)
    assert [entry["shapes"] for entry in slides] == [len(slide.shapes) for slide in deck.slides]
    assert [slide_texts(slide)[1:] for slide in list(deck.slides)[:2]] == [["Q3 2026"], ["Budget\nHiring"]]


def test_add_slide_at_positions(impress: GuestClient) -> None:
    count = len(call(impress, "list_slides"))
    assert call(impress, "add_slide", layout="title_only", title="Closing") == count + 1
    assert call(impress, "add_slide", position=1, layout="title_slide", title="Cover") == 1
    assert call(impress, "add_slide", position=3, title="Inserted third") == 3
    deck = saved_deck(impress)
    assert [title_of(slide) for slide in deck.slides][:3] == ["Cover", "Quarterly Review", "Inserted third"]
    assert title_of(deck.slides[-1]) == "Closing"
    assert deck.slides[-1].slide_layout.name == "Title Only"
    assert deck.slides[2].slide_layout.name == "Title, Content"
    # the new title-and-content slide takes the imported "Title and Content" master's title area
    title_top = deck.slides[2].shapes.title.top
    assert abs(title_top - deck.slides[3].shapes.title.top) < 10_000  # EMU
    with pytest.raises(GuestError, match=r"position must be a slide number from 1 to \d+, got 0"):
        call(impress, "add_slide", position=0)


def test_delete_duplicate_and_move(impress: GuestClient) -> None:
    before = titles(impress)
    agenda = before.index("Agenda") + 1
    assert call(impress, "duplicate_slide", slide=agenda) == agenda + 1
    call(impress, "set_title", slide=agenda + 1, title="Agenda copy")
    after_copy = titles(impress)
    assert after_copy == before[:agenda] + ["Agenda copy"] + before[agenda:]
    assert slide_texts(saved_deck(impress).slides[agenda])[1:] == ["Budget\nHiring"]
    call(impress, "move_slide", slide=agenda + 1, new_position=1)
    call(impress, "move_slide", slide=2, new_position=3)
    moved = titles(impress)
    assert moved[0] == "Agenda copy"
    assert moved[1:3] == [after_copy[1], after_copy[0]]
    assert call(impress, "delete_slide", slide=1) == "deleted slide 1"
    assert "Agenda copy" not in titles(impress)
    with pytest.raises(GuestError, match=r"new_position must be a slide number from 1 to"):
        call(impress, "move_slide", slide=1, new_position=99)


def test_set_slide_layout_and_title(impress: GuestClient) -> None:
    count = call(impress, "add_slide", layout="blank")
    call(impress, "set_title", slide=count, title="Added title")  # a blank slide gets a title shape
    call(impress, "add_slide", layout="blank")
    call(impress, "set_slide_layout", slide=count + 1, layout="title_content")
    call(impress, "set_placeholder_text", slide=count + 1, placeholder="title", text="Now with content")
    deck = saved_deck(impress)
    assert title_of(deck.slides[count - 1]) == "Added title"
    assert deck.slides[count].slide_layout.name == "Title, Content"
    assert title_of(deck.slides[count]) == "Now with content"
    assert call(impress, "list_slides")[count]["layout"] == "title_content"
    with pytest.raises(GuestError, match=r"layout must be one of 'title_slide', .* got 'two_columns'"):
        call(impress, "set_slide_layout", slide=1, layout="two_columns")


def test_slide_background(impress: GuestClient) -> None:
    call(impress, "set_slide_background", slide=2, color="#00FF7F")
    fill = saved_deck(impress).slides[1].background.fill
    assert str(fill.fore_color.rgb) == "00FF7F"
    with pytest.raises(GuestError, match="color must be a hex colour"):
        call(impress, "set_slide_background", slide=2, color="green")


def test_go_to_slide_shows_it(impress: GuestClient, wait_until) -> None:
    count = len(call(impress, "list_slides"))
    call(impress, "go_to_slide", slide=count)
    wait_until(lambda: f'"PageShape: Slide {count}"' in impress.a11y_tree(), timeout=10, what=f"slide {count} shown")
    call(impress, "go_to_slide", slide=2)
    wait_until(lambda: '"PageShape: Slide 2"' in impress.a11y_tree(), timeout=10, what="slide 2 shown")
    with pytest.raises(GuestError, match=rf"slide must be a slide number from 1 to {count}, got {count + 1}"):
        call(impress, "go_to_slide", slide=count + 1)


def test_summary_is_the_app_info(impress: GuestClient) -> None:
    slides = call(impress, "list_slides")
    info = impress.app_info("impress")
    assert info["tool_class"] == "ImpressTools"
    lines = info["summary"].splitlines()
    assert lines[0].startswith(f"Slides: {len(slides)}")
    assert lines[1] == f"1. [{slides[0]['layout']}] {slides[0]['title']!r} ({slides[0]['shapes']} shapes)"
    assert len(impress.app_info("impress", max_chars=20)["summary"]) == 20


def test_errors_name_the_method_and_argument(impress: GuestClient) -> None:
    with pytest.raises(GuestError, match=r"ImpressTools has no method 'add_slid' \(did you mean 'add_slide'"):
        call(impress, "add_slid")
    with pytest.raises(GuestError, match=r"unknown argument 'slides' \(did you mean 'slide'\?\)"):
        call(impress, "delete_slide", slides=1)
    with pytest.raises(GuestError, match="missing the required argument 'title'"):
        call(impress, "set_title", slide=1)
    with pytest.raises(GuestError, match="slide must be an integer, got .first."):
        call(impress, "set_title", slide="first", title="x")
    with pytest.raises(GuestError, match="slide must be a slide number from 1 to"):
        call(impress, "delete_slide", slide=0)


def test_set_title_latency(impress: GuestClient) -> None:
    """``set_title`` over the real CallApi path stays well under the 10 s watchdog."""
    durations = []
    for index in range(10):
        start = time.perf_counter()
        call(impress, "set_title", slide=1, title=f"Title {index}")
        durations.append(time.perf_counter() - start)
    print(f"\nImpressTools.set_title median {statistics.median(durations) * 1000:.1f} ms over CallApi")
    assert statistics.median(durations) < 0.5
    assert title_of(saved_deck(impress).slides[0]) == "Title 9"
