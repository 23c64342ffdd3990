"""``desktop-gym eval --servers``: episodes on a real env server (real desktops) over gRPC."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop_gym.cli import main
from desktop_gym.evaluation import read_records

pytestmark = pytest.mark.stage_serve


def test_eval_runs_the_oracle_on_an_env_server(tmp_path: Path) -> None:
    from desktop_gym.serve.server import EnvServer

    server = EnvServer(backend="local", max_envs=2, warm=1, lease_ttl=60).start()
    try:
        tasks = ["starter.terminal_write_file", "os.install_offline"]
        argv = ["eval", "--task", *tasks, "--agent", "oracle", "--envs", "2", "--out", str(tmp_path), "--quiet"]
        assert main([*argv, "--servers", server.address, "--server-token", server.token]) == 0
    finally:
        server.drain(grace=10)
    records = read_records(tmp_path)
    assert sorted(r.task_id for r in records) == sorted(tasks)
    assert all(r.success for r in records), [(r.task_id, r.error, r.reason) for r in records]
    assert all((tmp_path / str(r.trajectory) / "steps.jsonl").is_file() for r in records)
