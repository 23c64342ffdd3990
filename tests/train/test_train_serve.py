"""The trainer over a real ``desktop-gym serve`` process: ``env.server`` rollouts through ``RemoteEnv``s."""

from __future__ import annotations

import dataclasses
import uuid
from pathlib import Path

import pytest

from desktop_gym.cli_serve import TOKEN_ENV
from desktop_gym.serve.cluster import marked_processes
from desktop_gym.train.config import EnvSection
from desktop_gym.train.demo import demo_config
from desktop_gym.train.entropulse import EntropulseConfig
from desktop_gym.train.metrics import read_metrics

from ..support.serve_process import start_serve

pytestmark = pytest.mark.stage_train


def test_one_rl_iteration_over_an_env_server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, wait_until) -> None:
    from desktop_gym.train.trainer import Trainer

    key = f"train-{uuid.uuid4().hex[:8]}"
    server, info = start_serve(key)
    try:
        monkeypatch.setenv(TOKEN_ENV, info["token"])
        base = demo_config(str(tmp_path / "remote"))
        config = dataclasses.replace(
            base,
            env=EnvSection(task_ids=("demo.enter_number",), envs=2, max_steps=1, server=info["address"]),
            rl=dataclasses.replace(base.rl, iterations=1, tasks_per_iteration=1, group_size=2),
            entropulse=EntropulseConfig(enabled=False, window=1, min_rl_iterations=2),
            record_trajectories=True,
        )
        trainer = Trainer(config, progress=False)
        try:
            assert all(type(env).__name__ == "RemoteEnv" for env in trainer.envs)
            trainer.run(evaluate=False)
        finally:
            trainer.close()
        rows = [row for row in read_metrics(tmp_path / "remote" / "metrics.jsonl") if row["kind"] == "iteration"]
        assert len(rows) == 1 and rows[0]["episodes"] == 2 and rows[0]["set_aside"] <= 1
        assert rows[0]["tokens_per_s"] > 0
    finally:
        server.terminate()
        server.wait(timeout=60)
    wait_until(lambda: not marked_processes(key), timeout=30, what="every desktop process of the server to exit")
