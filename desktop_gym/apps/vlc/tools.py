"""``VlcTools``: VLC's API, over its own control interfaces, acting on the running VLC.

Each call finds the HTTP port and password the launch wrote into the session's vlcrc (and the RC
socket beside it), sends VLC one request and returns what VLC reports. Media paths stay inside the
session home and must exist; every number has a range; preferences are a fixed table of keys with
checked values. A mistake the agent can make is an :class:`ApiArgumentError`; VLC not running or
refusing is an :class:`ApiCallError`.
"""

from __future__ import annotations

import math
import re
import threading
from pathlib import Path
from typing import Any, ClassVar

from ...polling import poll_until
from ..tools_base import ApiArgumentError, ApiCallError, AppTools
from . import preferences
from .control import VOLUME_FULL, VlcControlError, http_get, parse_playlist, parse_status, parse_tracks, rc_call
from .launch import control_address, rc_socket
from .vlcrc import parse_vlcrc, read_vlcrc, update_vlcrc

#: Files VLC opens here (by suffix).
MEDIA_TYPES = (".mp4", ".mkv", ".webm", ".ogg", ".ogv", ".mp3", ".wav", ".avi", ".m3u", ".flac", ".srt")
#: Seconds one request may take.
CALL_TIMEOUT_S = 10.0
#: Seconds a change may take to show in VLC's state (after its request; ``VlcTools.call_timeout_s``
#: covers both, so a change that never shows is this call's own error, not a hung-app report).
SETTLE_S = 8.0
#: How far past a seek target a paused seek plays, so the frame shown is from the target on.
FRAME_ADVANCE_S = 0.2
#: Snapshot requests sent at most, and the seconds each waits for its file.
SNAPSHOT_TRIES = 4
SNAPSHOT_WAIT_S = 2.0
#: The most seconds a seek may name (VLC clamps to the length anyway).
MAX_SEEK_S = 24 * 3600
MAX_VOLUME_PERCENT = 200
RATES = (0.25, 4.0)
TRACK_KINDS = {"audio": "atrack", "subtitle": "strack", "video": "vtrack"}
SNAPSHOT_FORMATS = {"png": ".png", "jpg": ".jpg", "tiff": ".tiff"}
_PATH_TEXT = re.compile(r"[^\x00-\x1f]{1,1024}")
_OPTION = re.compile(r"[a-z0-9][a-z0-9-]{0,63}")


def _flag(value: Any, name: str) -> bool:
    if not isinstance(value, bool):
        raise ApiArgumentError(f"{name} must be true or false, got {value!r}")
    return value


def _number(value: Any, low: float, high: float, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ApiArgumentError(f"{name} must be a number from {low:g} to {high:g}, got {value!r}")
    if not low <= value <= high:
        raise ApiArgumentError(f"{name} must be from {low:g} to {high:g}, got {value!r}")
    return float(value)


def _integer(value: Any, low: int, high: int, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ApiArgumentError(f"{name} must be a whole number from {low} to {high}, got {value!r}")
    return value


def _number_of(data: Any, key: str) -> float:
    """A number field of VLC's raw status (0 when missing or not a number)."""
    value = data.get(key) if isinstance(data, dict) else None
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0.0


class VlcTools(AppTools):
    """The running VLC media player: open media, control playback, the playlist, tracks, snapshots
    and preferences."""

    uses_uno: ClassVar[bool] = False
    call_timeout_s: ClassVar[float] = CALL_TIMEOUT_S + SETTLE_S + 2  # a request, then its change showing

    # ------------------------------------------------------------------ plumbing
    def _request(self, path: str = "status.json", **query: Any) -> Any:
        try:
            port, password = control_address(self.home)
            return http_get(port, password, path, query or None, timeout=CALL_TIMEOUT_S)
        except VlcControlError as error:
            raise ApiCallError(f"VLC does not answer (launch vlc first): {error}") from None

    def _command(self, command: str, **values: Any) -> dict[str, Any]:
        return parse_status(self._request("status.json", command=command, **values))

    def _status(self) -> dict[str, Any]:
        try:
            return parse_status(self._request())
        except VlcControlError as error:
            raise ApiCallError(str(error)) from None

    def _rc(self, command: str) -> str:
        try:
            return rc_call(rc_socket(self.home), command, timeout=CALL_TIMEOUT_S)
        except VlcControlError as error:
            raise ApiCallError(f"VLC's RC interface does not answer (launch vlc first): {error}") from None

    def _settle(self, check: Any, what: str) -> Any:
        """Wait until ``check(status)`` holds; returns that status."""
        seen: dict[str, Any] = {}

        def done() -> bool:
            seen["status"] = self._status()
            return bool(check(seen["status"]))

        try:
            poll_until(done, SETTLE_S, what, interval=0.05, error=TimeoutError)
        except TimeoutError as error:
            raise ApiCallError(f"VLC did not change as asked: {error}") from None
        return seen["status"]

    def _media(self, path: str, types: tuple[str, ...] = MEDIA_TYPES) -> Path:
        if not isinstance(path, str) or not _PATH_TEXT.fullmatch(path):
            raise ApiArgumentError(f"a path is a non-empty line of text, got {path!r}")
        target = self._in_home(path)
        if target.suffix.lower() not in types:
            raise ApiArgumentError(f"{path} is not a media file VLC opens here ({', '.join(types)})")
        if not target.is_file():
            raise ApiArgumentError(f"{path} does not exist")
        return target

    def _in_home(self, path: str) -> Path:
        text = path.strip()
        target = Path(text.replace("~", str(self.home), 1) if text.startswith("~") else text)
        if not target.is_absolute():
            target = self.home / target
        resolved, home = target.resolve(), self.home.resolve()
        if resolved != home and home not in resolved.parents:
            raise ApiArgumentError(f"{path} is outside the home folder")
        return resolved

    def _item(self, position: Any) -> dict[str, Any]:
        items = self.list_playlist()
        if not items:
            raise ApiCallError("the playlist is empty")
        _integer(position, 1, len(items), "position")
        return items[position - 1]

    # ------------------------------------------------------------------ media and playback
    def open_media(self, path: str) -> dict[str, Any]:
        """Open a media file (or an .m3u playlist) in VLC and start playing it; it is added to the playlist.

        Args:
            path: The file, like '~/Videos/clip.mp4'.

        Returns:
            The playback status (see get_status).
        """
        target = self._media(path)
        before = self._status()["current_id"]
        self._request(command="in_play", input=target.as_uri())
        # a new playlist item plays (the previous item's state must not count)
        return self._settle(
            lambda s: s["state"] == "playing" and s["current_id"] not in (before, -1), f"{path} to play"
        )

    def play(self, position: int | None = None) -> dict[str, Any]:
        """Play: resume when paused, or start the playlist item at ``position``.

        Args:
            position: 1 for the first item of list_playlist, 2 for the second...; None plays the current item.

        Returns:
            The playback status.
        """
        if position is not None:
            item_id = self._item(position)["id"]
            self._command("pl_play", id=item_id)
            return self._settle(lambda s: s["state"] == "playing" and s["current_id"] == item_id, "the item to play")
        if not self.list_playlist():
            raise ApiCallError("the playlist is empty (open_media first)")
        state = self._status()["state"]
        if state == "playing":
            return self._status()  # pl_play would start the item again from its beginning
        self._command("pl_forceresume" if state == "paused" else "pl_play")
        return self._settle(lambda s: s["state"] == "playing", "playback to start")

    def pause(self) -> dict[str, Any]:
        """Pause playback (a paused player stays paused).

        Returns:
            The playback status.
        """
        if self._status()["state"] == "stopped":
            raise ApiCallError("nothing is playing")
        self._command("pl_forcepause")
        return self._settle(lambda s: s["state"] == "paused", "playback to pause")

    def stop(self) -> dict[str, Any]:
        """Stop playback.

        Returns:
            The playback status.
        """
        self._command("pl_stop")
        return self._settle(lambda s: s["state"] == "stopped", "playback to stop")

    def get_status(self) -> dict[str, Any]:
        """The player's state.

        Returns:
            state ('playing', 'paused', 'stopped'), time and length in seconds, volume in percent,
            loop, repeat, random, rate, fullscreen, current_id (playlist item), title and the current
            media's streams (id, type, language).
        """
        return self._status()

    def seek(self, seconds: int) -> dict[str, Any]:
        """Jump to a position in the current media.

        Args:
            seconds: The position from the start, in whole seconds.

        Returns:
            The playback status.
        """
        _integer(seconds, 0, MAX_SEEK_S, "seconds")
        status = self._status()
        if status["state"] == "stopped":
            raise ApiCallError("nothing is playing to seek in")
        if status["length"] > 0 and seconds > status["length"]:
            raise ApiArgumentError(f"seconds must be at most the length, {status['length']} s")
        self._command("seek", val=seconds)
        settled = self._settle(
            lambda s: abs(s["time"] - seconds) <= 1 or s["state"] == "stopped", f"the seek to {seconds} s"
        )
        video = any(stream["type"].lower() == "video" for stream in status["streams"])
        if status["state"] == "paused" and settled["state"] == "paused" and video:
            settled = self._show_frame_after(seconds, status["length"])
        return settled

    def _show_frame_after(self, seconds: int, length: int) -> dict[str, Any]:
        """After a seek while paused: play on until the clock passes the target, then pause again.

        A paused VLC reports the new time at once but shows the new frame only once it is decoded,
        so a screenshot or snapshot taken right after the seek could hold the old frame. The frames
        before the seek are flushed, so any frame shown once the clock has passed the target is from
        the target on (at most ``FRAME_ADVANCE_S`` later). Not done near the end (it would stop).
        """
        if length and seconds + FRAME_ADVANCE_S >= length - 1:
            return self._status()
        self._command("pl_forceresume")

        def passed() -> bool:
            raw = self._request()
            return _number_of(raw, "position") * _number_of(raw, "length") >= seconds + FRAME_ADVANCE_S

        try:
            poll_until(passed, SETTLE_S, f"playback past {seconds} s", interval=0.02, error=TimeoutError)
        except TimeoutError as error:
            raise ApiCallError(f"VLC did not show the frame at {seconds} s: {error}") from None
        finally:
            self._command("pl_forcepause")
        return self._settle(lambda s: s["state"] == "paused", "playback to pause again")

    def set_volume(self, percent: int) -> dict[str, Any]:
        """Set the volume.

        Args:
            percent: 0 to 200 (100 is normal).

        Returns:
            The playback status.
        """
        _integer(percent, 0, MAX_VOLUME_PERCENT, "percent")
        self._command("volume", val=round(percent * VOLUME_FULL / 100))
        return self._settle(lambda s: s["volume"] == percent, f"the volume to be {percent} %")

    def set_rate(self, rate: float) -> dict[str, Any]:
        """Set the playback speed.

        Args:
            rate: 0.25 to 4.0 (1.0 is normal).

        Returns:
            The playback status.
        """
        value = _number(rate, *RATES, "rate")
        self._command("rate", val=value)
        return self._settle(lambda s: abs(s["rate"] - value) < 0.01, f"the rate to be {value}")

    def set_fullscreen(self, on: bool) -> dict[str, Any]:
        """Turn fullscreen on or off.

        Args:
            on: True for fullscreen.

        Returns:
            The playback status.
        """
        _flag(on, "on")
        seen: dict[str, Any] = {}

        def switched() -> bool:
            # VLC's HTTP ``fullscreen`` toggles the video output's flag at once, and drops the
            # toggle while there is no video output yet (a loaded node starting a clip): a status
            # still showing the old value means the toggle was dropped, so it is sent again.
            seen["status"] = self._status()
            if seen["status"]["fullscreen"] != on:
                seen["status"] = self._command("fullscreen")
            return seen["status"]["fullscreen"] == on

        try:
            poll_until(switched, SETTLE_S, "fullscreen to change", interval=0.1, error=TimeoutError)
        except TimeoutError as error:
            raise ApiCallError(f"VLC did not change as asked (is a video playing?): {error}") from None
        return seen["status"]

    def set_playback_mode(
        self, loop: bool | None = None, repeat: bool | None = None, random: bool | None = None
    ) -> dict[str, Any]:
        """Set the playlist modes; a mode left None is kept. VLC loops the playlist or repeats one item, not
        both: turning one on turns the other off.

        Args:
            loop: Loop the whole playlist.
            repeat: Repeat the current item.
            random: Play the items in random order.

        Returns:
            The playback status.
        """
        modes = (("loop", loop), ("repeat", repeat), ("random", random))
        wanted = {name: _flag(value, name) for name, value in modes if value is not None}
        if not wanted:
            raise ApiArgumentError("name at least one of loop, repeat, random")
        if wanted.get("loop") and wanted.get("repeat"):
            raise ApiArgumentError("VLC loops the playlist or repeats the current item, not both")
        for name in sorted(wanted, key=lambda n: wanted[n]):  # offs first, so an on is not undone
            if self._status()[name] != wanted[name]:
                self._command(f"pl_{name}")
        return self._settle(lambda s: all(s[k] == v for k, v in wanted.items()), "the playlist modes to change")

    # ------------------------------------------------------------------ playlist
    def list_playlist(self) -> list[dict[str, Any]]:
        """The playlist's items in order.

        Returns:
            One dict per item: id, name, uri, duration (s, -1 unknown), current (the one playing).
        """
        try:
            return parse_playlist(self._request("playlist.json"))
        except VlcControlError as error:
            raise ApiCallError(str(error)) from None

    def playlist_add(self, path: str) -> list[dict[str, Any]]:
        """Add a media file to the end of the playlist without playing it.

        Args:
            path: The file, like '~/Music/tone.wav'.

        Returns:
            The playlist after the change.
        """
        target = self._media(path)
        before = len(self.list_playlist())
        if before >= 500:
            raise ApiCallError("the playlist already holds 500 items")
        self._request(command="in_enqueue", input=target.as_uri())
        poll = {"items": []}

        def added() -> bool:
            poll["items"] = self.list_playlist()
            return len(poll["items"]) > before

        try:
            poll_until(added, SETTLE_S, f"{path} in the playlist", interval=0.05, error=TimeoutError)
        except TimeoutError as error:
            raise ApiCallError(str(error)) from None
        return poll["items"]

    def playlist_remove(self, position: int) -> list[dict[str, Any]]:
        """Remove one item from the playlist.

        Args:
            position: 1 for the first item of list_playlist, 2 for the second...

        Returns:
            The playlist after the change.
        """
        item_id = self._item(position)["id"]
        self._request(command="pl_delete", id=item_id)
        try:
            poll_until(
                lambda: all(item["id"] != item_id for item in self.list_playlist()),
                SETTLE_S,
                f"item {item_id} to leave the playlist",
                interval=0.05,
                error=TimeoutError,
            )
        except TimeoutError as error:
            raise ApiCallError(str(error)) from None
        return self.list_playlist()

    def clear_playlist(self) -> int:
        """Stop and empty the playlist.

        Returns:
            How many items were removed.
        """
        count = len(self.list_playlist())
        self._command("pl_stop")
        self._command("pl_empty")
        try:
            poll_until(
                lambda: not self.list_playlist(), SETTLE_S, "an empty playlist", interval=0.05, error=TimeoutError
            )
        except TimeoutError as error:
            raise ApiCallError(str(error)) from None
        return count

    # ------------------------------------------------------------------ tracks
    def list_tracks(self, kind: str) -> list[dict[str, Any]]:
        """The current media's tracks of one kind; id -1 is "off".

        Args:
            kind: 'audio', 'subtitle' or 'video'.

        Returns:
            One dict per track: id, name (with its language), selected.
        """
        if kind not in TRACK_KINDS:
            raise ApiArgumentError(f"kind must be one of {', '.join(TRACK_KINDS)}, got {kind!r}")
        state = self._status()["state"]
        if state == "stopped":
            raise ApiCallError("nothing is playing (tracks belong to the media that plays)")
        if state == "paused":
            raise ApiCallError("VLC lists and switches tracks here only while playing: call play first")
        try:
            return parse_tracks(self._rc(TRACK_KINDS[kind]))
        except VlcControlError as error:
            raise ApiCallError(str(error)) from None

    def select_track(self, kind: str, track_id: int) -> list[dict[str, Any]]:
        """Select a track of the current media (-1 turns that kind off, e.g. no subtitles).

        Args:
            kind: 'audio', 'subtitle' or 'video'.
            track_id: A track id from list_tracks.

        Returns:
            The tracks of that kind after the change.
        """
        tracks = self.list_tracks(kind)
        _integer(track_id, -1, 2**31 - 1, "track_id")
        if track_id not in [track["id"] for track in tracks]:
            raise ApiArgumentError(f"no {kind} track {track_id} (ids: {[track['id'] for track in tracks]})")
        self._rc(f"{TRACK_KINDS[kind]} {track_id}")
        seen: dict[str, Any] = {}

        def selected() -> bool:
            seen["tracks"] = parse_tracks(self._rc(TRACK_KINDS[kind]))
            return any(t["id"] == track_id and t["selected"] for t in seen["tracks"])

        try:
            poll_until(selected, SETTLE_S, f"{kind} track {track_id} selected", interval=0.05, error=TimeoutError)
        except TimeoutError as error:
            raise ApiCallError(str(error)) from None
        return seen["tracks"]

    # ------------------------------------------------------------------ snapshots
    def _snapshot_request(self) -> None:
        try:
            self._request(command="snapshot")  # VLC answers once it grabbed a picture or gave up (0.5 s)
        except ApiCallError:
            pass  # no file follows, which the caller sees

    def take_snapshot(self, path: str | None = None) -> str:
        """Save the video's current frame as an image (VLC's Video > Take Snapshot).

        Args:
            path: Where to save it, in the home, with the suffix of the snapshot format (png by default);
                None keeps VLC's own name in its snapshot folder (the 'snapshot-path' preference).

        Returns:
            The image's path.
        """
        keys = parse_vlcrc(read_vlcrc(self.home))
        suffix = SNAPSHOT_FORMATS.get(keys.get("snapshot-format", "png"), ".png")
        target = None
        if path is not None:
            if not isinstance(path, str) or not _PATH_TEXT.fullmatch(path):
                raise ApiArgumentError(f"a path is a non-empty line of text, got {path!r}")
            target = self._in_home(path)
            if target.suffix.lower() != suffix:
                raise ApiArgumentError(f"the snapshot format is {suffix}; the path must end with {suffix}")
            if not target.parent.is_dir():
                raise ApiArgumentError(f"the folder of {path} does not exist")
        if self._status()["state"] == "stopped":
            raise ApiCallError("no video is showing (play one first)")
        folders = preferences.snapshot_folders(self.home, keys)
        prefix = keys.get("snapshot-prefix", "vlcsnap-") or "vlcsnap-"
        before = preferences.snapshot_files(folders, prefix)
        found: dict[str, Any] = {}

        def written() -> bool:  # the newest file, its size the same two polls running (VLC wrote it all)
            new = sorted(preferences.snapshot_files(folders, prefix) - before)
            if not new:
                return False
            size = new[0].stat().st_size
            steady = size > 0 and found.get("file") == new[0] and found.get("size") == size
            found.update(file=new[0], size=size)
            return steady

        # VLC grabs the next picture it displays, and a paused video displays none: then the request runs
        # beside a one-frame step (RC "frame", the E key), and is sent again if the step came first.
        paused = self._status()["state"] == "paused"
        for _ in range(SNAPSHOT_TRIES):
            request = threading.Thread(target=self._snapshot_request, daemon=True)
            request.start()
            if paused:
                self._rc("frame")
            request.join(CALL_TIMEOUT_S)
            try:
                poll_until(written, SNAPSHOT_WAIT_S, "VLC's snapshot file", interval=0.05, error=TimeoutError)
                break
            except TimeoutError:
                continue
        else:
            raise ApiCallError("VLC wrote no snapshot (is a video, not only audio, playing?)")
        if target is None:
            return self.shown_path(found["file"])
        found["file"].replace(target)
        return self.shown_path(target)

    # ------------------------------------------------------------------ preferences
    def get_preferences(self, keys: list[str]) -> dict[str, str | None]:
        """Read VLC's saved preferences (vlcrc), like 'snapshot-path', 'volume-step', 'qt-max-volume'.

        Args:
            keys: Option names (at most 50); a key not set in vlcrc reads None (VLC's default).

        Returns:
            Each key's saved value.
        """
        if not isinstance(keys, list) or not 0 < len(keys) <= 50:
            raise ApiArgumentError("keys is a list of 1 to 50 option names")
        for key in keys:
            if not isinstance(key, str) or not _OPTION.fullmatch(key):
                raise ApiArgumentError(f"{key!r} is not a VLC option name (like 'snapshot-path')")
        try:
            saved = parse_vlcrc(read_vlcrc(self.home))
        except (OSError, ValueError) as error:
            raise ApiCallError(f"vlcrc is unreadable: {error}") from None
        return {key: saved.get(key) for key in keys}

    def quit(self) -> bool:
        """Quit VLC (as File > Quit: it saves its preferences on the way out).

        Returns:
            Whether a running VLC was quit.
        """
        return preferences.quit_running_vlc(self.home, rc_socket(self.home))

    def set_preferences(self, values: dict[str, str | int | float | bool]) -> dict[str, str]:
        """Change VLC's saved preferences (Tools > Preferences, saved to vlcrc). VLC rewrites vlcrc when it
        quits, so a running VLC is closed first (its state saved); open it again with open_app('vlc').

        Args:
            values: Option name to value; the options you may set are listed in the error for an unknown one
                (e.g. {'snapshot-format': 'jpg', 'volume-step': 10, 'qt-max-volume': 200}).

        Returns:
            The changed options as saved.
        """
        checked = preferences.check_values(values, self.home)
        preferences.quit_running_vlc(self.home, rc_socket(self.home))
        try:
            saved = update_vlcrc(self.home, checked)
        except (OSError, ValueError) as error:
            raise ApiCallError(f"could not write vlcrc: {error}") from None
        return {key: saved[key] for key in checked}
