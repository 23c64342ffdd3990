"""The parsers of VLC's control answers (RC track lists, HTTP status and playlist JSON) and of vlcrc:
exact on real answers, and on any text either a result or VlcControlError (hypothesis)."""

from __future__ import annotations

import contextlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from desktop_gym.apps.vlc.control import VlcControlError, parse_playlist, parse_status, parse_tracks, strip_events
from desktop_gym.apps.vlc.vlcrc import parse_vlcrc, set_vlcrc

#: An answer of VLC 3.0's RC interface to ``atrack`` (recorded), events first.
ATRACK = (
    "status change: ( new input: file:///tmp/two.mkv )\r\nstatus change: ( play state: 3 )\r\n"
    "+----[ Audio Track ]\r\n| -1 - Disable\r\n| 1 - Track 1 - [English] *\r\n| 2 - Track 2 - [French]\r\n"
    "+----[ end of Audio Track ]\r\natrack: returned 0 (no error)\r\n"
)
STATUS = {
    "state": "playing",
    "time": 2,
    "length": 40,
    "volume": 108,
    "loop": True,
    "repeat": False,
    "random": False,
    "rate": 1.5,
    "fullscreen": 0,
    "currentplid": 4,
    "information": {
        "category": {
            "meta": {"filename": "two.mkv"},
            "Stream 1": {"Type": "Audio", "Language": "English"},
            "Stream 0": {"Type": "Video"},
        }
    },
}
PLAYLIST = {
    "type": "node",
    "id": "0",
    "children": [
        {
            "type": "node",
            "id": "1",
            "name": "Playlist",
            "children": [
                {
                    "type": "leaf",
                    "id": "4",
                    "name": "a.wav",
                    "uri": "file:///h/a.wav",
                    "duration": 30,
                    "current": "current",
                },
                {
                    "type": "node",
                    "id": "5",
                    "children": [{"type": "leaf", "id": "6", "name": "b.wav", "uri": "file:///h/b.wav"}],
                },
            ],
        },
        {"type": "node", "id": "2", "name": "Media Library", "children": [{"type": "leaf", "id": "9", "uri": "x"}]},
    ],
}


def test_tracks_are_read_with_the_selected_one() -> None:
    assert parse_tracks(ATRACK) == [
        {"id": -1, "name": "Disable", "selected": False},
        {"id": 1, "name": "Track 1 - [English]", "selected": True},
        {"id": 2, "name": "Track 2 - [French]", "selected": False},
    ]
    assert strip_events(ATRACK)[0] == "+----[ Audio Track ]"
    with pytest.raises(VlcControlError, match="unreadable track line"):
        parse_tracks("+----[ Audio Track ]\n| one - Disable\n+----[ end ]\n")


def test_status_is_read_in_percent_and_seconds() -> None:
    status = parse_status(STATUS)
    assert status["volume"] == 42 and status["rate"] == 1.5 and status["fullscreen"] is False
    assert status["current_id"] == 4 and status["title"] == "two.mkv" and status["loop"] is True
    assert status["streams"] == [
        {"id": 0, "type": "Video", "language": ""},
        {"id": 1, "type": "Audio", "language": "English"},
    ]
    with pytest.raises(VlcControlError):
        parse_status([1, 2])


def test_playlist_items_in_order_without_the_media_library() -> None:
    items = parse_playlist(PLAYLIST)
    assert [(i["id"], i["uri"], i["current"]) for i in items] == [
        (4, "file:///h/a.wav", True),
        (6, "file:///h/b.wav", False),
    ]
    assert items[1]["duration"] == -1
    with pytest.raises(VlcControlError, match="no Playlist node"):
        parse_playlist({"children": []})


def test_vlcrc_sets_keys_in_place_and_appends_new_ones() -> None:
    text = "\ufeff###\n[qt] # Qt\n#qt-max-volume=125\n[core]\nvolume-step=12.800000\nvolume-step=3\n"
    changed = set_vlcrc(text, {"qt-max-volume": "200", "volume-step": "10", "snapshot-format": "jpg"})
    assert parse_vlcrc(changed) == {"qt-max-volume": "200", "volume-step": "10", "snapshot-format": "jpg"}
    assert changed.count("volume-step=") == 1 and "[qt] # Qt" in changed
    with pytest.raises(ValueError):
        set_vlcrc(text, {"bad key": "1"})
    with pytest.raises(ValueError):
        set_vlcrc(text, {"volume-step": "1\nhttp-password=x"})


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=5),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=400))
def test_any_rc_text_is_tracks_or_a_control_error(text: str) -> None:
    try:
        tracks = parse_tracks(text)
    except VlcControlError:
        return
    assert all(isinstance(t["id"], int) and isinstance(t["selected"], bool) for t in tracks)


@settings(max_examples=300, deadline=None)
@given(json_values)
def test_any_json_is_a_status_or_a_control_error(data: object) -> None:
    for parse in (parse_status, parse_playlist):
        with contextlib.suppress(VlcControlError):  # refusing is fine; any other exception fails
            parse(data)


@settings(max_examples=300, deadline=None)
@given(
    st.text(max_size=300),
    st.dictionaries(
        st.from_regex(r"[a-z][a-z0-9-]{0,20}", fullmatch=True),
        st.text(max_size=20).filter(lambda v: v.splitlines() in ([], [v])),
        max_size=4,
    ),
)
def test_setting_vlcrc_keys_reads_them_back(text: str, updates: dict[str, str]) -> None:
    values = parse_vlcrc(set_vlcrc(text, updates))
    for key, value in updates.items():
        assert values[key] == value.strip()


class UnfinishedJsonVlc:
    """Stands in for VLC's HTTP interface answering unfinished JSON first (real VLC does it only at
    random, under load), then its status; records each request's query."""

    def __init__(self, bad_answers: int) -> None:
        import http.server
        import threading

        queries: list[str] = []
        answers = [b'{"state": "playing", "position": '] * bad_answers

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - the http.server name
                queries.append(self.path.partition("?")[2])
                body = answers.pop(0) if answers else b'{"state": "playing"}'
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *_args: object) -> None:
                pass

        self.queries = queries
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def test_unfinished_json_is_asked_again_without_repeating_the_command() -> None:
    from desktop_gym.apps.vlc.control import JSON_TRIES, http_get

    vlc = UnfinishedJsonVlc(bad_answers=1)
    try:
        port = vlc.server.server_address[1]
        status = http_get(port, "pw", "status.json", {"command": "in_play", "input": "file:///a.mp4"}, timeout=5)
        assert status == {"state": "playing"}
        assert vlc.queries == ["command=in_play&input=file%3A%2F%2F%2Fa.mp4", ""]  # the command went once
    finally:
        vlc.close()
    vlc = UnfinishedJsonVlc(bad_answers=JSON_TRIES)
    try:
        with pytest.raises(VlcControlError, match="not JSON"):
            http_get(vlc.server.server_address[1], "pw", "playlist.json", timeout=5)
        assert len(vlc.queries) == JSON_TRIES
    finally:
        vlc.close()
