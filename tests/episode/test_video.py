"""Episode videos with the real ffmpeg: one frame a step in order, the page and the viewer API point
at it, and a recorder without ``video=True`` writes none."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from starlette.testclient import TestClient

from desktop_gym.episode.recording import TrajectoryRecorder
from desktop_gym.episode.video import VIDEO_FILE, write_video
from desktop_gym.errors import VideoError
from desktop_gym.web import create_app

COLOURS = [(200, 30, 30), (30, 200, 30), (30, 30, 200), (220, 220, 40)]


def _observation(colour: tuple[int, int, int]) -> dict[str, object]:
    return {"instruction": "paint", "screenshot": np.full((72, 128, 3), colour, dtype=np.uint8)}


def _record(folder: Path, video: bool) -> Path:
    recorder = TrajectoryRecorder(folder, video=video)
    recorder.start(_observation(COLOURS[0]), {"task_id": "paint.demo", "seed": 1})
    for index, colour in enumerate(COLOURS[1:], start=1):
        last = index == len(COLOURS) - 1
        info = {"step": index, "success": True, "verifier": {"success": True}} if last else {"step": index}
        recorder.record(f"wait(seconds={index})", _observation(colour), float(last), last, False, info)
    return recorder.finish()


def _frames(video: Path) -> list[tuple[int, int, int]]:
    """The mean colour of each decoded frame, in order (ffmpeg writes them as PNGs)."""
    out = video.parent / "decoded"
    out.mkdir()
    subprocess.run(
        ["ffmpeg", "-loglevel", "error", "-i", str(video), "-vf", "fps=1", str(out / "%03d.png")], check=True
    )
    return [tuple(int(v) for v in np.asarray(Image.open(p)).reshape(-1, 3).mean(0)) for p in sorted(out.iterdir())]


def test_a_recorded_episode_becomes_one_frame_a_step_and_the_page_plays_it(tmp_path: Path) -> None:
    page = _record(tmp_path / "run", video=True)
    video = page.parent / VIDEO_FILE
    assert video.is_file() and video.read_bytes()[:4] == b"\x1a\x45\xdf\xa3"  # WebM (EBML) magic
    frames = _frames(video)
    assert len(frames) == len(COLOURS)
    for got, want in zip(frames, COLOURS, strict=True):
        assert max(abs(g - w) for g, w in zip(got, want, strict=True)) < 25, (got, want)
    assert f"<video src='{VIDEO_FILE}'" in page.read_text()
    assert not list(page.parent.glob("*.part.webm")) and not list(page.parent.glob("*.ffconcat"))
    detail = TestClient(create_app(root=tmp_path)).get("/api/episode/run").json()
    assert detail["video"] == f"/files/run/{VIDEO_FILE}"


def test_without_video_no_video_is_written(tmp_path: Path) -> None:
    page = _record(tmp_path / "run", video=False)
    assert not (page.parent / VIDEO_FILE).exists() and "<video" not in page.read_text()
    assert TestClient(create_app(root=tmp_path)).get("/api/episode/run").json()["video"] is None
    assert json.loads((page.parent / "steps.jsonl").read_text().splitlines()[0])["kind"] == "header"


def test_bad_video_requests_are_video_errors(tmp_path: Path) -> None:
    with pytest.raises(VideoError, match="no screenshot"):
        write_video(tmp_path, ["step_000.png", "../etc/passwd"])
    with pytest.raises(VideoError, match="seconds_per_frame"):
        write_video(tmp_path, ["step_000.png"], seconds_per_frame=0)
