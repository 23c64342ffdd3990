"""Episode videos: a trajectory's step screenshots as one WebM, one frame a step.

``ffmpeg`` (from Debian; the install script brings it) reads the frames through its concat demuxer,
each shown for ``seconds_per_frame``, and writes VP8 in WebM, which the replay page and the trajectory
viewer play in any browser. Written once at the end of an episode, beside the screenshots.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

from desktop_gym.errors import VideoError

VIDEO_FILE = "episode.webm"
#: The most frames one video holds (an episode's steps are capped far below this).
MAX_FRAMES = 2000
#: How long ffmpeg may take for one video.
ENCODE_TIMEOUT_S = 300.0


def write_video(
    folder: Path | str, frames: Sequence[str], seconds_per_frame: float = 1.0, timeout: float = ENCODE_TIMEOUT_S
) -> Path:
    """Encode ``frames`` (file names inside ``folder``, in order) as ``folder/episode.webm``.

    Args:
        folder: The trajectory folder.
        frames: Screenshot file names in ``folder`` (``step_000.png`` ...); missing ones are skipped.
        seconds_per_frame: How long each step shows (0.1 to 10 s).
        timeout: Seconds ffmpeg may take.

    Returns:
        The video's path.

    Raises:
        VideoError: no ffmpeg on PATH, no frame found, too many frames, or ffmpeg failed.
    """
    folder = Path(folder)
    if not 0.1 <= seconds_per_frame <= 10:
        raise VideoError(f"seconds_per_frame must be 0.1 to 10, got {seconds_per_frame}")
    ffmpeg = shutil.which("ffmpeg")
    if ffmpeg is None:
        raise VideoError("ffmpeg is not installed (apt-get install ffmpeg; scripts/install.sh brings it)")
    present = [name for name in frames if "/" not in name and (folder / name).is_file()]
    if not present:
        raise VideoError(f"no screenshot to make a video of in {folder}")
    if len(present) > MAX_FRAMES:
        raise VideoError(f"{len(present)} frames is over the {MAX_FRAMES} a video may hold")
    listing = folder / "episode.ffconcat"
    lines = ["ffconcat version 1.0"]
    for name in present:
        lines += [f"file '{name}'", f"duration {seconds_per_frame:g}"]
    listing.write_text("\n".join(lines) + "\n", encoding="utf-8")
    target = folder / VIDEO_FILE
    partial = folder / (VIDEO_FILE + ".part.webm")
    command = [
        ffmpeg, "-nostdin", "-loglevel", "error", "-y", "-f", "concat", "-safe", "0", "-i", listing.name,
        "-vf", "scale=trunc(iw/2)*2:trunc(ih/2)*2,format=yuv420p", "-r", str(max(1, round(1 / seconds_per_frame))),
        "-c:v", "libvpx", "-deadline", "realtime", "-cpu-used", "8", "-b:v", "1M", partial.name,
    ]  # fmt: skip
    try:
        done = subprocess.run(command, cwd=folder, capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        partial.unlink(missing_ok=True)
        raise VideoError(f"ffmpeg took over {timeout:g} s for {len(present)} frames") from None
    finally:
        listing.unlink(missing_ok=True)
    if done.returncode != 0 or not partial.is_file():
        partial.unlink(missing_ok=True)
        raise VideoError(f"ffmpeg failed (exit {done.returncode}): {done.stderr.strip()[-400:]}")
    partial.replace(target)
    return target
