"""Tiny media files for VLC tasks, made offline from a seed: WAV tones (pure Python), SubRip subtitles,
M3U playlists (text), and the ffmpeg command lines that make short video clips in the desktop (lavfi
color and test sources: a few seconds, 160x120, 10 fps, a few tens of KB). Standard library only.
"""

from __future__ import annotations

import math
import shlex
import struct
from collections.abc import Sequence

#: The most seconds a generated file may last.
MAX_SECONDS = 900
#: Named colors a color clip may use, as ffmpeg spells them, with their RGB.
COLORS = {
    "red": (255, 0, 0),
    "green": (0, 128, 0),
    "blue": (0, 0, 255),
    "yellow": (255, 255, 0),
    "white": (255, 255, 255),
    "magenta": (255, 0, 255),
    "cyan": (0, 255, 255),
}
#: Clip size and frame rate.
SIZE = (160, 120)
FPS = 10


def _seconds(value: float) -> float:
    if not 0 < value <= MAX_SECONDS:
        raise ValueError(f"a clip lasts 0 to {MAX_SECONDS} s, got {value}")
    return float(value)


def wav_tone(frequency: float, seconds: float, rate: int = 8000) -> bytes:
    """A mono 16-bit WAV of a sine tone."""
    seconds = _seconds(seconds)
    if not 20 <= frequency <= rate / 2:
        raise ValueError(f"a tone is 20 Hz to {rate // 2} Hz, got {frequency}")
    count = int(seconds * rate)
    samples = b"".join(
        struct.pack("<h", int(12000 * math.sin(2 * math.pi * frequency * i / rate))) for i in range(count)
    )
    header = struct.pack(
        "<4sI4s4sIHHIIHH4sI", b"RIFF", 36 + len(samples), b"WAVE", b"fmt ", 16, 1, 1, rate, rate * 2, 2, 16,
        b"data", len(samples),
    )  # fmt: skip
    return header + samples


def srt(cues: Sequence[tuple[float, float, str]]) -> str:
    """SubRip text of ``(start, end, text)`` cues in seconds."""

    def stamp(value: float) -> str:
        millis = round(value * 1000)
        return f"{millis // 3600000:02d}:{millis // 60000 % 60:02d}:{millis // 1000 % 60:02d},{millis % 1000:03d}"

    return "".join(
        f"{number}\n{stamp(start)} --> {stamp(end)}\n{text}\n\n" for number, (start, end, text) in enumerate(cues, 1)
    )


def m3u(paths: Sequence[str]) -> str:
    """An extended M3U playlist of absolute paths."""
    return "#EXTM3U\n" + "".join(f"{path}\n" for path in paths)


def color_clip_command(colors: Sequence[str], seconds_each: float, output: str) -> str:
    """A shell command making a silent-free clip: each color for ``seconds_each`` s, then the next, with a
    440 Hz tone (H.264 + AAC in MP4 or Matroska by ``output``'s suffix)."""
    unknown = [c for c in colors if c not in COLORS]
    if unknown or not colors:
        raise ValueError(f"colors must come from {sorted(COLORS)}, got {list(colors)}")
    each = _seconds(seconds_each)
    total = _seconds(each * len(colors))
    inputs = " ".join(f"-f lavfi -i color=c={c}:s={SIZE[0]}x{SIZE[1]}:r={FPS}:d={each:g}" for c in colors)
    chain = "".join(f"[{i}:v]" for i in range(len(colors))) + f"concat=n={len(colors)}:v=1:a=0[v]"
    return (
        f"ffmpeg -y -loglevel error {inputs} -f lavfi -i sine=frequency=440:duration={total:g} "
        f"-filter_complex {shlex.quote(chain)} -map '[v]' -map {len(colors)}:a "
        f"-c:v libx264 -preset ultrafast -g 10 -pix_fmt yuv420p -c:a aac -b:a 32k {shlex.quote(output)}"
    )


def tracks_clip_command(seconds: float, audio_languages: Sequence[str], subtitle_files: Sequence[tuple[str, str]],
                        output: str) -> str:  # fmt: skip
    """A shell command making a Matroska test-pattern clip with one audio track per language (tones of
    different pitch) and the given ``(srt path, language)`` subtitle tracks."""
    total = _seconds(seconds)
    if not audio_languages or len(audio_languages) > 4 or len(subtitle_files) > 4:
        raise ValueError("1 to 4 audio tracks and at most 4 subtitle tracks")
    # 2 frames a second and 8 kHz tones: a clip of minutes stays small and quick to make.
    parts = [f"-f lavfi -i testsrc=size={SIZE[0]}x{SIZE[1]}:rate=2:duration={total:g}"]
    parts += [
        f"-f lavfi -i sine=frequency={330 + 110 * i}:sample_rate=8000:duration={total:g}"
        for i in range(len(audio_languages))
    ]
    parts += [f"-i {shlex.quote(path)}" for path, _ in subtitle_files]
    maps = " ".join(f"-map {i}" for i in range(1 + len(audio_languages) + len(subtitle_files)))
    meta = [f"-metadata:s:a:{i} language={lang}" for i, lang in enumerate(audio_languages)]
    meta += [f"-metadata:s:s:{i} language={lang}" for i, (_, lang) in enumerate(subtitle_files)]
    return (
        f"ffmpeg -y -loglevel error {' '.join(parts)} {maps} -c:v libx264 -preset ultrafast -pix_fmt yuv420p "
        f"-c:a libvorbis -c:s srt {' '.join(meta)} {shlex.quote(output)}"
    )
