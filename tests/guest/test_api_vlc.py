"""VlcTools against the live VLC through the real CallApi RPC, each result checked a second way: VLC's
RC interface read raw from inside the desktop, the HTTP interface's raw JSON, the window's geometry,
the snapshot's pixels, vlcrc as VLC leaves it after quitting."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from typing import Any

import pytest
from PIL import Image

from desktop_gym.apps.vlc import media
from desktop_gym.apps.vlc.control import strip_events
from desktop_gym.cpu_load import cpu_load
from desktop_gym.guest.client import GuestClient, GuestError
from desktop_gym.polling import poll_until

from .conftest import launched_app

pytestmark = pytest.mark.slow

#: Asks VLC's RC socket one command from inside the desktop (as the session's user) and prints the answer.
RC_SCRIPT = """
import os, socket, sys
s = socket.socket(socket.AF_UNIX)
s.settimeout(5)
s.connect(os.path.expanduser("~/.config/vlc/gym-rc.sock"))
s.sendall(sys.argv[1].encode() + b"\\nlogout\\n")
out = b""
while True:
    data = s.recv(65536)
    if not data:
        break
    out += data
sys.stdout.write(out.decode())
"""
#: Prints VLC's HTTP status JSON, read with the port and password from vlcrc.
HTTP_SCRIPT = """
import base64, os, re, urllib.request
text = open(os.path.expanduser("~/.config/vlc/vlcrc")).read()
port = re.findall(r"^http-port=(\\d+)", text, re.M)[-1]
password = re.findall(r"^http-password=(.*)$", text, re.M)[-1]
request = urllib.request.Request(f"http://127.0.0.1:{port}/requests/status.json")
request.add_header("Authorization", "Basic " + base64.b64encode(f":{password}".encode()).decode())
opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
print(opener.open(request, timeout=5).read().decode())
"""
CLIP = "~/Videos/colors.mp4"
TRACKS = "~/Videos/tracks.mkv"
TONES = ["~/Music/low.wav", "~/Music/mid.wav", "~/Music/high.wav"]


def vlc(guest: GuestClient, method: str, **arguments: Any) -> Any:
    return json.loads(guest.call_api("VlcTools", method, json.dumps(arguments), timeout=40.0))


def rc(guest: GuestClient, command: str) -> str:
    result = guest.exec(["python3", "-c", RC_SCRIPT, command], timeout=20)
    assert result.returncode == 0, result.stderr
    return result.stdout


def raw_status(guest: GuestClient) -> dict[str, Any]:
    result = guest.exec(["python3", "-c", HTTP_SCRIPT], timeout=20)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def home(guest: GuestClient) -> str:
    return guest.exec('printf %s "$HOME"', shell=True).stdout


@pytest.fixture(scope="module")
def player(_session_guest: GuestClient) -> Iterator[GuestClient]:
    """One VLC for the module, with a color clip (red, green, blue, yellow: 5 s each), a clip with two
    audio and two subtitle tracks, and three tones."""
    guest = _session_guest
    guest.kill_apps()
    guest.exec("rm -rf ~/.config/vlc ~/Pictures && mkdir -p ~/Videos ~/Music ~/Pictures ~/subs", shell=True)
    base = home(guest)
    made = guest.exec(
        media.color_clip_command(["red", "green", "blue", "yellow"], 5, f"{base}/Videos/colors.mp4"),
        shell=True,
        timeout=60,
    )
    assert made.returncode == 0, made.stderr
    subs = []
    for code in ("eng", "fra"):
        guest.put_file(f"~/subs/{code}.srt", media.srt([(0, 20, f"text {code}")]).encode())
        subs.append((f"{base}/subs/{code}.srt", code))
    made = guest.exec(
        media.tracks_clip_command(20, ["eng", "deu"], subs, f"{base}/Videos/tracks.mkv"), shell=True, timeout=60
    )
    assert made.returncode == 0, made.stderr
    for index, path in enumerate(TONES):
        guest.put_file(path, media.wav_tone(300 + 200 * index, 20))
    yield from launched_app(guest, "vlc")


@pytest.fixture
def clip(player: GuestClient) -> GuestClient:
    """VLC with an empty playlist, then the color clip playing from the start."""
    vlc(player, "clear_playlist")
    vlc(player, "set_playback_mode", loop=False, repeat=False, random=False)
    vlc(player, "open_media", path=CLIP)
    return player


def test_launch_is_ready_with_both_interfaces_and_a_window(player):
    assert any("vlc" in w.app.lower() for w in player.windows()), player.windows()
    assert "returned 0" in rc(player, "volume")
    assert raw_status(player)["apiversion"] >= 3


def test_open_pause_play_stop_match_the_rc_view(clip):
    first = rc(clip, "status")  # the first answer on a connection repeats the current input and state
    assert "new input: file://" in first and "colors.mp4" in first and "play state" in first
    assert vlc(clip, "pause")["state"] == "paused"
    assert "pause to continue" in rc(clip, "atrack")  # why the track calls need playback
    assert vlc(clip, "play")["state"] == "playing"
    assert strip_events(rc(clip, "is_playing"))[-1] == "1"
    assert vlc(clip, "stop")["state"] == "stopped"
    assert "stop state" in rc(clip, "status")
    with pytest.raises(GuestError, match="nothing is playing"):
        vlc(clip, "pause")


def test_seek_volume_rate_and_modes_as_vlc_reports_them(clip):
    assert abs(vlc(clip, "seek", seconds=12)["time"] - 12) <= 1
    assert abs(raw_status(clip)["time"] - 12) <= 1
    assert vlc(clip, "set_volume", percent=40)["volume"] == 40
    assert raw_status(clip)["volume"] == round(40 * 256 / 100)
    assert vlc(clip, "set_rate", rate=1.5)["rate"] == pytest.approx(1.5, abs=0.01)
    assert raw_status(clip)["rate"] == pytest.approx(1.5, abs=0.01)
    vlc(clip, "set_rate", rate=1.0)
    vlc(clip, "set_playback_mode", loop=True, random=True)
    raw = raw_status(clip)
    assert (raw["loop"], raw["repeat"], raw["random"]) == (True, False, True)
    with pytest.raises(GuestError, match="percent must be"):
        vlc(clip, "set_volume", percent=201)
    with pytest.raises(GuestError, match="at most the length"):
        vlc(clip, "seek", seconds=500)
    with pytest.raises(GuestError, match="rate must be"):
        vlc(clip, "set_rate", rate=float("nan"))


def test_playlist_add_remove_play_and_clear_match_the_rc_listing(clip):
    for path in TONES:
        vlc(clip, "playlist_add", path=path)
    items = vlc(clip, "list_playlist")
    assert [item["name"] for item in items] == ["colors.mp4", "low.wav", "mid.wav", "high.wav"]
    listing = rc(clip, "playlist")
    assert listing.index("colors.mp4") < listing.index("low.wav") < listing.index("high.wav")
    after = vlc(clip, "playlist_remove", position=3)
    assert [item["name"] for item in after] == ["colors.mp4", "low.wav", "high.wav"]
    assert "mid.wav" not in rc(clip, "playlist")
    status = vlc(clip, "play", position=3)
    assert status["current_id"] == after[2]["id"] and "high.wav" in rc(clip, "status")
    assert vlc(clip, "clear_playlist") == 3
    assert ".wav" not in rc(clip, "playlist") and vlc(clip, "list_playlist") == []
    with pytest.raises(GuestError, match="outside the home"):
        vlc(clip, "playlist_add", path="/etc/hostname.wav")
    with pytest.raises(GuestError, match="does not exist"):
        vlc(clip, "open_media", path="~/Music/none.wav")


def test_tracks_listed_and_selected_as_the_rc_interface_shows(player):
    vlc(player, "clear_playlist")
    vlc(player, "open_media", path=TRACKS)
    audio = vlc(player, "list_tracks", kind="audio")
    assert [t["id"] for t in audio] == [-1, 1, 2] and "[German]" in audio[2]["name"]
    vlc(player, "select_track", kind="audio", track_id=2)
    assert "2 - Track 2 - [German] *" in rc(player, "atrack")
    vlc(player, "select_track", kind="subtitle", track_id=-1)
    assert "-1 - Disable *" in rc(player, "strack")
    with pytest.raises(GuestError, match="no subtitle track 9"):
        vlc(player, "select_track", kind="subtitle", track_id=9)
    with pytest.raises(GuestError, match="kind must be"):
        vlc(player, "list_tracks", kind="chapters")
    vlc(player, "pause")
    with pytest.raises(GuestError, match="only while playing"):
        vlc(player, "list_tracks", kind="audio")


def test_snapshot_holds_the_frame_of_the_moment(clip):
    vlc(clip, "pause")
    vlc(clip, "seek", seconds=7)  # the green segment
    shown = vlc(clip, "take_snapshot", path="~/Pictures/frame.png")
    assert shown == "~/Pictures/frame.png"
    with Image.open(io.BytesIO(clip.get_file("~/Pictures/frame.png"))) as image:
        assert image.size == media.SIZE
        r, g, b = image.convert("RGB").getpixel((80, 60))
    assert g > 90 and r < 60 and b < 60, (r, g, b, vlc(clip, "get_status"))
    with pytest.raises(GuestError, match="must end with .png"):
        vlc(clip, "take_snapshot", path="~/Pictures/frame.jpg")


def test_fullscreen_fills_the_screen(clip):
    assert vlc(clip, "set_fullscreen", on=False)["fullscreen"] is False
    assert vlc(clip, "set_fullscreen", on=True)["fullscreen"] is True
    assert raw_status(clip)["fullscreen"] in (True, 1)

    def full() -> bool:
        return any("vlc" in w.app.lower() and w.x == 0 and w.y == 0 and w.width >= 1000 for w in clip.windows())

    poll_until(full, 10.0, "a VLC window covering the screen", interval=0.1)
    assert vlc(clip, "set_fullscreen", on=False)["fullscreen"] is False


@pytest.mark.timeout(240)
def test_fullscreen_right_after_opening_a_clip_under_load(player):
    """VLC drops a fullscreen toggle that comes before the clip's video output exists (a loaded node
    starting a clip): the call sends it again until the state shows it."""
    with cpu_load(seconds=120) as load:
        for _ in range(4):
            vlc(player, "clear_playlist")
            vlc(player, "open_media", path=CLIP)
            assert vlc(player, "set_fullscreen", on=True)["fullscreen"] is True, f"load {load.load_average:.1f}"
            assert vlc(player, "set_fullscreen", on=False)["fullscreen"] is False
            load.sample()


def test_preferences_survive_vlc_quitting_and_a_relaunch(player):
    player.exec("mkdir -p ~/Pictures/snaps", shell=True)
    saved = vlc(
        player,
        "set_preferences",
        values={"snapshot-format": "jpg", "qt-max-volume": 200, "volume-step": 10, "snapshot-path": "~/Pictures/snaps"},
    )
    assert saved["snapshot-format"] == "jpg" and saved["qt-max-volume"] == "200"
    assert not [w for w in player.windows() if "vlc" in w.app.lower()]  # VLC quit to keep them
    assert player.launch_app("vlc", timeout=60.0).alive
    vlc(player, "quit")  # VLC rewrites vlcrc as it exits: the values must survive that
    text = player.get_file("~/.config/vlc/vlcrc").decode()
    assert "\nsnapshot-format=jpg" in text and "\nqt-max-volume=200" in text and "\nvolume-step=10.000000" in text
    assert vlc(player, "get_preferences", keys=["snapshot-path"]) == {"snapshot-path": f"{home(player)}/Pictures/snaps"}
    with pytest.raises(GuestError, match="not a preference you can set"):
        vlc(player, "set_preferences", values={"http-password": "x"})
    with pytest.raises(GuestError, match="outside the home"):
        vlc(player, "set_preferences", values={"snapshot-path": "/tmp"})
    assert player.launch_app("vlc", timeout=60.0).alive
