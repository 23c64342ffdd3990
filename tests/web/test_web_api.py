"""The web app's JSON API: listing and reading trajectories, confinement, the token rule, metrics.

The dashboard part runs against an env server on the load-test backend (its stand-in desktops
answer instantly); the browser tests in ``test_web_browser.py`` use real desktops.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from starlette.testclient import TestClient

from desktop_gym.episode.trajectory import Step, Trajectory, TrajectoryWriter
from desktop_gym.serve.server import EnvServer
from desktop_gym.web import LocalServerSource, create_app


def _write_episode(folder: Path, task_id: str, success: bool, steps: int = 2) -> Path:
    writer = TrajectoryWriter(folder, Trajectory(task_id=task_id, seed=3, instruction=f"do {task_id}"))
    writer.begin(np.zeros((72, 128, 3), dtype=np.uint8))
    for index in range(1, steps + 1):
        shot = np.full((72, 128, 3), 40 * index, dtype=np.uint8)
        writer.add_step(Step(index=index, action=f"click(coordinates=[{10 * index}, 20])"), shot)
    writer.trajectory.success = success
    writer.trajectory.verifier = {"success": success, "score": float(success), "reason": "checked B2"}
    return writer.end()


@pytest.fixture
def runs(tmp_path: Path) -> Path:
    _write_episode(tmp_path / "eval-a" / "calc.one-seed3", "calc.one", True)
    _write_episode(tmp_path / "eval-a" / "writer.two-seed3", "writer.two", False, steps=1)
    (tmp_path / "train-1").mkdir()
    rows = [{"kind": "iteration", "iteration": 1, "phase": "rl", "success": 0.2, "entropy": 1.0}]
    (tmp_path / "train-1" / "metrics.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
    (tmp_path / "secret.txt").write_text("not metrics")
    return tmp_path


def test_episodes_are_listed_and_filtered(runs: Path) -> None:
    client = TestClient(create_app(root=runs))
    everything = client.get("/api/episodes").json()
    assert {row["task_id"] for row in everything} == {"calc.one", "writer.two"}
    assert {row["run"] for row in everything} == {"eval-a"}
    assert [row["task_id"] for row in client.get("/api/episodes?task=writer").json()] == ["writer.two"]
    assert [row["task_id"] for row in client.get("/api/episodes?success=1").json()] == ["calc.one"]


def test_episode_detail_has_steps_screenshots_and_verdict(runs: Path) -> None:
    client = TestClient(create_app(root=runs))
    episode = client.get("/api/episode/eval-a/calc.one-seed3").json()
    assert [step["action"] for step in episode["steps"]] == [
        "click(coordinates=[10, 20])",
        "click(coordinates=[20, 20])",
    ]
    assert episode["verifier"]["reason"] == "checked B2" and episode["success"] is True
    picture = client.get(episode["steps"][1]["screenshot"])
    assert picture.status_code == 200 and picture.content[:4] == b"\x89PNG"
    assert client.get(episode["reset_screenshot"]).status_code == 200


@pytest.mark.parametrize("path", ["../etc/passwd", "eval-a/../../x", "%2e%2e/%2e%2e/etc/hostname"])
def test_paths_outside_the_folder_are_refused(runs: Path, path: str) -> None:
    client = TestClient(create_app(root=runs))
    for url in (f"/files/{path}", f"/api/episode/{path}", f"/api/metrics/{path}"):
        reply = client.get(url)
        assert reply.status_code in (403, 404), url
        assert "root:" not in reply.text


def test_a_symlink_out_of_the_folder_is_refused(runs: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    outside = tmp_path_factory.mktemp("outside") / "hostname"
    outside.write_text("host secret")
    (runs / "link.txt").symlink_to(outside)
    reply = TestClient(create_app(root=runs)).get("/files/link.txt")
    assert reply.status_code == 403 and "host secret" not in reply.text


def test_metrics_only_from_metrics_files(runs: Path) -> None:
    client = TestClient(create_app(root=runs))
    assert client.get("/api/runs").json() == ["train-1/metrics.jsonl"]
    assert client.get("/api/metrics/train-1/metrics.jsonl").json()[0]["success"] == 0.2
    assert client.get("/api/metrics/secret.txt").status_code == 404


def test_pages_are_served_without_a_cdn(runs: Path) -> None:
    client = TestClient(create_app(root=runs))
    for page in ("/", "/view", "/view/eval-a/calc.one-seed3", "/train", "/dashboard"):
        html = client.get(page).text
        assert "<html" in html and not re.search(r"(src|href)\s*=\s*[\"']?(https?:)?//", html), page
    for asset in ("charts.js", "dashboard.js", "episode.js", "app.css"):
        assert not re.search(r"(import|fetch|src|url)\W+[\"'`]?https?://", client.get(f"/static/{asset}").text), asset


@pytest.fixture
def loadtest_server() -> Iterator[EnvServer]:
    server = EnvServer(backend="loadtest", max_envs=2, warm=1, lease_ttl=30.0).start()
    yield server
    server.drain(grace=5)


def test_dashboard_status_and_the_token_rule(loadtest_server: EnvServer) -> None:
    env_id = loadtest_server.create_env("starter.calc_fill_totals", {}).env_id
    read_only = TestClient(create_app(source=LocalServerSource(loadtest_server)))
    status = read_only.get("/api/status").json()
    assert [env["env_id"] for env in status[0]["envs"]] == [env_id]
    assert read_only.post(f"/api/envs/0/{env_id}/close").status_code == 403

    app = create_app(source=LocalServerSource(loadtest_server), token="s3cret")
    client = TestClient(app)
    assert client.post(f"/api/envs/0/{env_id}/close", headers={"Authorization": "Bearer wrong"}).status_code == 401
    assert [env["env_id"] for env in client.get("/api/status").json()[0]["envs"]] == [env_id]
    closed = client.post(f"/api/envs/0/{env_id}/close", headers={"Authorization": "Bearer s3cret"})
    assert closed.status_code == 200
    assert client.get("/api/status").json()[0]["envs"] == []
    assert client.get("/api/thumb/0/nope").status_code == 404
    assert client.get("/api/thumb/0/x?w=100000").status_code == 400


def test_cluster_view_reads_several_servers_over_grpc() -> None:
    """The cluster dashboard's source talks to each server over gRPC; a dead one shows as an error row."""
    from desktop_gym.web import RemoteServersSource

    servers = [EnvServer(backend="loadtest", max_envs=1, warm=1, lease_ttl=30.0, token="t0k").start() for _ in range(2)]
    try:
        env_id = servers[1].create_env("starter.calc_fill_totals", {}).env_id
        source = RemoteServersSource([s.address for s in servers] + ["127.0.0.1:1"], "t0k")
        client = TestClient(create_app(source=source, token="t0k"))
        status = client.get("/api/status").json()
        assert [len(row["envs"]) for row in status] == [0, 1, 0]
        assert status[1]["envs"][0]["env_id"] == env_id and "error" in status[2]
        assert client.get(f"/api/thumb/1/{env_id}").status_code in (200, 204)
        closed = client.post(f"/api/envs/1/{env_id}/close", headers={"Authorization": "Bearer t0k"})
        assert closed.status_code == 200 and servers[1].list_envs() == []
    finally:
        for server in servers:
            server.drain(grace=5)
