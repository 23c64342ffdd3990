"""The media-player verifiers on hand-made state: strict about values, order, selection and pixels."""

from __future__ import annotations

import io

from PIL import Image

from desktop_gym.apps.vlc import media
from desktop_gym.verifiers import (
    get_verifier_spec,
    verify_vlc_playlist,
    verify_vlc_preferences,
    verify_vlc_snapshot,
    verify_vlc_status,
    verify_vlc_track,
)

VLCRC = b"\xef\xbb\xbf###\n[qt]\nqt-max-volume=200\n#loop=0\n[core]\nvolume-step=10.000000\nsnapshot-format=jpg\n"


def png(color: tuple[int, int, int], size: tuple[int, int] = media.SIZE, kind: str = "PNG") -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, color).save(out, format=kind)
    return out.getvalue()


def test_preferences_by_value_with_vlc_defaults_for_commented_keys() -> None:
    assert verify_vlc_preferences(VLCRC, {"qt-max-volume": 200, "volume-step": 10, "snapshot-format": "jpg"}).success
    assert verify_vlc_preferences(VLCRC, {"loop": False, "qt-continue": 1}).success  # VLC's defaults
    assert not verify_vlc_preferences(VLCRC, {"loop": True}).success
    assert not verify_vlc_preferences(VLCRC, {"volume-step": 10.5}).success
    assert not verify_vlc_preferences(None, {"loop": True}).success
    assert get_verifier_spec("vlc_preferences").reads == "file" and get_verifier_spec("vlc_status").reads == "live"


def test_playlist_in_order_and_nothing_else() -> None:
    items = [{"uri": "file:///h/Music/a%20b.wav"}, {"uri": "file:///h/Music/c.wav"}]
    assert verify_vlc_playlist(items, ["/h/Music/a b.wav", "/h/Music/c.wav"]).success
    assert not verify_vlc_playlist(items[::-1], ["/h/Music/a b.wav", "/h/Music/c.wav"]).success
    assert not verify_vlc_playlist(items, ["/h/Music/a b.wav"]).success


def test_status_types_and_tolerances() -> None:
    status = {"state": "paused", "time": 12, "rate": 1.502, "loop": True, "volume": 40}
    assert verify_vlc_status(status, {"state": "paused", "time": 13, "rate": 1.5, "loop": True}).success
    assert not verify_vlc_status(status, {"time": 14}).success
    assert not verify_vlc_status(status, {"loop": 1}).success  # True is not 1
    assert not verify_vlc_status(status, {"volume": 41}).success


def test_track_one_selected_by_name() -> None:
    tracks = [
        {"id": -1, "name": "Disable", "selected": False},
        {"id": 1, "name": "Track 1 - [French]", "selected": True},
    ]
    assert verify_vlc_track(tracks, "[French]").success
    assert not verify_vlc_track(tracks, "Disable").success
    assert not verify_vlc_track([{**t, "selected": True} for t in tracks], "[French]").success


def test_snapshot_size_format_and_color() -> None:
    assert verify_vlc_snapshot(png((0, 128, 0)), *media.SIZE, (0, 128, 0)).success
    assert not verify_vlc_snapshot(png((255, 0, 0)), *media.SIZE, (0, 128, 0)).success
    assert not verify_vlc_snapshot(png((0, 128, 0), (320, 240)), *media.SIZE, (0, 128, 0)).success
    assert not verify_vlc_snapshot(png((0, 128, 0), kind="JPEG"), *media.SIZE, (0, 128, 0)).success
    assert not verify_vlc_snapshot(b"not an image", *media.SIZE, (0, 128, 0)).success
    assert not verify_vlc_snapshot(None, *media.SIZE, (0, 128, 0)).success
