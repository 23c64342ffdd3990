"""VLC's own control interfaces, as the launch starts them: the Lua HTTP interface on a loopback port
with a per-launch password (state, playlist, commands) and the RC interface on a unix socket in the
session's VLC folder (track lists, which name the selected track).

Both are read with caps on bytes and time. The parsers (:func:`parse_status`, :func:`parse_playlist`,
:func:`parse_tracks`) take VLC's text and never raise on odd input other than :class:`VlcControlError`.
Standard library only (the guest imports it).
"""

from __future__ import annotations

import base64
import json
import logging
import re
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping
from pathlib import Path
from typing import Any

#: The most bytes read from one answer.
log = logging.getLogger(__name__)
MAX_ANSWER_BYTES = 4 * 1024 * 1024
JSON_TRIES = 3  # answers asked for at the most when VLC's JSON is unfinished
#: VLC's volume scale: 256 is 100 %.
VOLUME_FULL = 256
_TRACK_LINE = re.compile(r"^\|\s*(-?\d+)\s+-\s+(.*?)(\s+\*)?\s*$")


class VlcControlError(RuntimeError):
    """VLC's control interface did not answer, or answered something unreadable."""


def http_get(port: int, password: str, path: str, query: Mapping[str, Any] | None = None, timeout: float = 10.0) -> Any:
    """GET ``/requests/<path>`` of VLC's HTTP interface and decode its JSON.

    VLC sometimes answers with JSON it has not finished writing (seen once under load, right after
    ``in_play``): such an answer is asked for again, at most :data:`JSON_TRIES` times in all, without
    the query's ``command`` (it was carried out; its status is what is wanted).

    Raises:
        VlcControlError: no answer, a refused password, or not JSON.
    """
    for attempt in range(JSON_TRIES):
        body = _get(port, password, path, query, timeout)
        try:
            return json.loads(body.decode("utf-8", errors="replace"))
        except ValueError:
            if query and "command" in query:
                query = None  # the command and its arguments: done once is enough
            if attempt + 1 < JSON_TRIES:
                log.info("VLC's answer to %s is not JSON; asking again", path)
    raise VlcControlError(f"VLC's answer to {path} is not JSON ({JSON_TRIES} answers)")


def _get(port: int, password: str, path: str, query: Mapping[str, Any] | None, timeout: float) -> bytes:
    url = f"http://127.0.0.1:{int(port)}/requests/{path}"
    if query:
        url += "?" + urllib.parse.urlencode({k: str(v) for k, v in query.items()}, quote_via=urllib.parse.quote)
    token = base64.b64encode(f":{password}".encode()).decode()
    request = urllib.request.Request(url, headers={"Authorization": f"Basic {token}"})
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(request, timeout=timeout) as answer:
            body = answer.read(MAX_ANSWER_BYTES + 1)
    except urllib.error.HTTPError as error:
        raise VlcControlError(f"VLC's HTTP interface answered {error.code} for {path}") from None
    except (OSError, ValueError) as error:
        raise VlcControlError(f"VLC's HTTP interface on port {port} does not answer: {error}") from None
    if len(body) > MAX_ANSWER_BYTES:
        raise VlcControlError(f"VLC's answer to {path} is over {MAX_ANSWER_BYTES} bytes")
    return body


def rc_call(socket_path: Path, command: str, timeout: float = 5.0) -> str:
    """Send one command to VLC's RC interface and return its answer (events included).

    One connection per command, closed by ``logout``, so the answer is everything before EOF.

    Raises:
        VlcControlError: no socket, no answer by ``timeout`` or an over-long answer.
    """
    if "\n" in command or "\r" in command:
        raise VlcControlError("an RC command is one line")
    deadline = time.monotonic() + timeout
    chunks: list[bytes] = []
    size = 0
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(timeout)
            sock.connect(str(socket_path))
            sock.sendall(f"{command}\nlogout\n".encode())
            while True:
                sock.settimeout(max(0.01, deadline - time.monotonic()))
                data = sock.recv(65536)
                if not data:
                    break
                chunks.append(data)
                size += len(data)
                if size > MAX_ANSWER_BYTES:
                    raise VlcControlError(f"VLC's RC answer to {command.split()[0]!r} is over {MAX_ANSWER_BYTES} bytes")
    except OSError as error:
        raise VlcControlError(f"VLC's RC interface at {socket_path} does not answer: {error}") from None
    return b"".join(chunks).decode("utf-8", errors="replace")


def strip_events(text: str) -> list[str]:
    """The lines of an RC answer without VLC's asynchronous ``status change:`` events."""
    return [line for line in text.replace("\r", "").split("\n") if line and not line.startswith("status change:")]


def parse_tracks(text: str) -> list[dict[str, Any]]:
    """The tracks an RC ``atrack``/``strack`` answer lists: ``{"id", "name", "selected"}`` (id -1: off).

    Raises:
        VlcControlError: a line inside the list is not ``| <id> - <name>``.
    """
    tracks: list[dict[str, Any]] = []
    inside = False
    for line in strip_events(text):
        if line.startswith("+----["):
            inside = not line.startswith("+----[ end")
            continue
        if not inside:
            continue
        match = _TRACK_LINE.match(line)
        if match is None:
            raise VlcControlError(f"unreadable track line from VLC: {line[:80]!r}")
        tracks.append({"id": int(match.group(1)), "name": match.group(2), "selected": bool(match.group(3))})
    return tracks


def _number(value: Any, default: float = 0.0) -> float:
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, int | float):
        return float(value)
    try:
        return float(str(value))
    except ValueError:
        return default


def parse_status(data: Any) -> dict[str, Any]:
    """The playback state from ``status.json``: state, time, length (s), volume (%), loop, repeat,
    random, rate, fullscreen, the current item's id and the streams (``{"id", "type", "language"}``).

    Raises:
        VlcControlError: ``data`` is not a status object.
    """
    if not isinstance(data, dict) or "state" not in data:
        raise VlcControlError("VLC's status is not an object with a state")
    info = data.get("information") if isinstance(data.get("information"), dict) else {}
    category = info.get("category") if isinstance(info.get("category"), dict) else {}
    streams = []
    for name, fields in category.items():
        match = re.fullmatch(r"Stream (\d+)", str(name))
        if match and isinstance(fields, dict):
            streams.append(
                {
                    "id": int(match.group(1)),
                    "type": str(fields.get("Type", "")),
                    "language": str(fields.get("Language", "")),
                }
            )
    meta = category.get("meta") if isinstance(category.get("meta"), dict) else {}
    return {
        "state": str(data.get("state")),
        "time": int(_number(data.get("time"))),
        "length": int(_number(data.get("length"))),
        "volume": round(_number(data.get("volume")) * 100 / VOLUME_FULL),
        "loop": bool(data.get("loop")),
        "repeat": bool(data.get("repeat")),
        "random": bool(data.get("random")),
        "rate": round(_number(data.get("rate"), 1.0), 3),
        "fullscreen": bool(data.get("fullscreen")),
        "current_id": int(_number(data.get("currentplid"), -1)),
        "title": str(meta.get("title") or meta.get("filename") or ""),
        "streams": sorted(streams, key=lambda s: s["id"]),
    }


def parse_playlist(data: Any) -> list[dict[str, Any]]:
    """The items of the playlist node of ``playlist.json``, in order: ``{"id", "name", "uri",
    "duration", "current"}`` (the media library is left out).

    Raises:
        VlcControlError: ``data`` has no playlist node.
    """
    if not isinstance(data, dict) or not isinstance(data.get("children"), list):
        raise VlcControlError("VLC's playlist is not a tree of nodes")
    nodes = [n for n in data["children"] if isinstance(n, dict)]
    playlist = next((n for n in nodes if str(n.get("id")) == "1" or n.get("name") == "Playlist"), None)
    if playlist is None:
        raise VlcControlError("VLC's playlist tree has no Playlist node")
    items: list[dict[str, Any]] = []

    def walk(node: Mapping[str, Any]) -> None:
        for child in node.get("children") or []:
            if not isinstance(child, dict):
                continue
            if child.get("type") == "leaf":
                items.append(
                    {
                        "id": int(_number(child.get("id"), -1)),
                        "name": str(child.get("name", "")),
                        "uri": str(child.get("uri", "")),
                        "duration": int(_number(child.get("duration"), -1)),
                        "current": child.get("current") == "current",
                    }
                )
            elif len(items) < 10000:
                walk(child)

    walk(playlist)
    return items
