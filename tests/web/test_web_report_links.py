"""The eval report's "view" links work wherever ``desktop-gym view`` is started (issue 32): the report
links ``view/<trajectory>`` relative to its own folder, which is ``/runs/eval/x/view/...`` when the
viewer serves a folder above it."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
from starlette.testclient import TestClient

from desktop_gym.episode.trajectory import Step, Trajectory, TrajectoryWriter
from desktop_gym.evaluation.records import viewer_url
from desktop_gym.web import create_app


def _eval_folder(root: Path) -> tuple[Path, str]:
    out = root / "eval" / "gui"
    trajectory = "trajectories/calc.one/seed0-run0"
    writer = TrajectoryWriter(out / trajectory, Trajectory(task_id="calc.one", seed=0, instruction="do it"))
    writer.begin(np.zeros((8, 8, 3), dtype=np.uint8))
    writer.add_step(Step(index=1, action="wait()"), np.zeros((8, 8, 3), dtype=np.uint8))
    writer.end()
    (out / "report.html").write_text(f"<a href='{viewer_url(trajectory)}'>view</a>")
    return out, trajectory


def test_a_reports_view_link_opens_the_episode_from_a_folder_above_it(tmp_path: Path) -> None:
    out, trajectory = _eval_folder(tmp_path)
    client = TestClient(create_app(root=tmp_path))
    report = client.get("/eval/gui/report.html")
    assert report.status_code == 200
    href = re.search(r"href='([^']+)'", report.text).group(1)
    page = client.get(f"/eval/gui/{href}")  # what a browser opens from /eval/gui/report.html
    assert page.status_code == 200 and "<html" in page.text, page.text[:200]
    assert page.url.path == f"/view/eval/gui/{trajectory}"  # the episode page reads its path from the URL
    assert client.get(f"/api/episode/eval/gui/{trajectory}").json()["task_id"] == "calc.one"


def test_the_link_still_works_when_the_viewer_serves_the_eval_folder_itself(tmp_path: Path) -> None:
    out, trajectory = _eval_folder(tmp_path)
    client = TestClient(create_app(root=out))
    page = client.get(f"/{viewer_url(trajectory)}")
    assert page.status_code == 200 and page.url.path == f"/view/{trajectory}"


def test_a_view_link_cannot_leave_the_folder(tmp_path: Path) -> None:
    _eval_folder(tmp_path)
    client = TestClient(create_app(root=tmp_path / "eval"))
    assert client.get("/missing/view/x", follow_redirects=False).status_code == 404
