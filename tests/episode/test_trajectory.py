"""Trajectory writer and reader: round trip, crash safety, never destroying a folder."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from desktop_gym.episode.trajectory import (
    STEPS_FILE,
    Step,
    Trajectory,
    TrajectoryWriter,
    load_trajectories,
    read_trajectory,
    write_trajectory,
)
from desktop_gym.train.rewards import assign_rewards, get_reward_rule


def _trajectory(success: bool = True) -> Trajectory:
    return Trajectory(task_id="demo.t", seed=3, instruction="do it", params={"n": np.int64(4)}, success=success)


def test_round_trip_with_screenshots_and_page(tmp_path: Path) -> None:
    writer = TrajectoryWriter(tmp_path / "t", _trajectory())
    writer.begin(np.zeros((4, 4, 3), np.uint8))
    writer.add_step(Step(index=1, action="a()", reward=0.0, logprobs=[-0.5]), np.ones((4, 4, 3), np.uint8))
    assert "(in progress)" in (tmp_path / "t" / "index.html").read_text()
    writer.trajectory.success = True
    writer.trajectory.steps[0].reward = 1.0
    writer.end()
    loaded = read_trajectory(tmp_path / "t")
    assert loaded.complete and loaded.success and loaded.params == {"n": 4}
    assert loaded.steps[0].action == "a()" and loaded.steps[0].reward == 1.0 and loaded.steps[0].logprobs == [-0.5]
    assert loaded.steps[0].screenshot == "step_001.png" and (tmp_path / "t" / "step_001.png").stat().st_size > 0
    assert "SUCCESS" in (tmp_path / "t" / "index.html").read_text()
    assert not list((tmp_path / "t").glob(".*tmp"))


def test_existing_folder_is_never_overwritten(tmp_path: Path) -> None:
    first = write_trajectory(tmp_path / "run", _trajectory())
    second = write_trajectory(tmp_path / "run", _trajectory(success=False))
    assert first != second and second.name == "run-1"
    assert [t.success for t in load_trajectories(tmp_path)] == [True, False]


def test_torn_last_line_and_missing_end_are_tolerated(tmp_path: Path) -> None:
    folder = write_trajectory(tmp_path / "t", _trajectory())
    with open(folder / STEPS_FILE, "a") as handle:
        handle.write('{"kind": "step", "index": 9, "act')
    assert read_trajectory(folder).complete
    writer = TrajectoryWriter(tmp_path / "open", _trajectory())
    writer.add_step(Step(index=1, action="x()"))
    writer.close()
    assert [t.folder.name for t in load_trajectories(tmp_path)] == ["t"]
    assert len(load_trajectories(tmp_path, complete_only=False)) == 2


_KILLED_WRITER = """
import sys, numpy as np
from desktop_gym.episode.trajectory import Step, Trajectory, TrajectoryWriter
writer = TrajectoryWriter(sys.argv[1], Trajectory(task_id="k"))
big = np.random.default_rng(0).integers(0, 255, (720, 1280, 3), dtype=np.uint8)
for i in range(1, 100000):
    writer.add_step(Step(index=i, action="x" * 5000), big)
    print(i, flush=True)
"""


def test_writer_killed_mid_write_leaves_readable_rows_and_whole_pngs(tmp_path: Path) -> None:
    folder = tmp_path / "killed"
    process = subprocess.Popen([sys.executable, "-c", _KILLED_WRITER, str(folder)], stdout=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    assert process.stdout is not None
    while int(process.stdout.readline() or 0) < 3:
        assert time.monotonic() < deadline, "timed out waiting for the writer to write 3 steps"
    os.kill(process.pid, signal.SIGKILL)
    process.wait(timeout=30)
    trajectory = read_trajectory(folder)
    assert not trajectory.complete and len(trajectory.steps) >= 3
    from PIL import Image

    for step in trajectory.steps:  # every row's screenshot is a whole PNG
        assert step.screenshot is not None
        with Image.open(folder / step.screenshot) as image:
            image.load()
    for line in (folder / STEPS_FILE).read_text().splitlines()[:-1]:
        json.loads(line)


@settings(max_examples=60, deadline=None)
@given(st.binary(max_size=400))
def test_reader_on_arbitrary_tail_never_raises_unexpected(tail: bytes) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as name:
        folder = write_trajectory(Path(name) / "t", _trajectory())
        with open(folder / STEPS_FILE, "ab") as handle:
            handle.write(tail)
        trajectory = read_trajectory(folder)
        assert trajectory.task_id == "demo.t"


def test_reader_names_a_file_without_header(tmp_path: Path) -> None:
    (tmp_path / STEPS_FILE).write_text('{"kind": "step", "index": 1, "action": "a"}\n')
    with pytest.raises(ValueError, match="header"):
        read_trajectory(tmp_path)


def test_computerrl_rewards_and_abnormal_penalty() -> None:
    trajectory = _trajectory(success=True)
    trajectory.steps = [Step(index=1, action="a"), Step(index=2, action="b(", well_formed=False)]
    assert [s.reward for s in assign_rewards(trajectory).steps] == [1.0, 0.0]
    trajectory.success = False
    assert get_reward_rule("computerrl")(trajectory) == [0.0, 0.0]
    trajectory.crash = "the desktop died"
    assert get_reward_rule("computerrl_abnormal")(trajectory) == [-0.2, -0.2]
    with pytest.raises(KeyError, match="known"):
        get_reward_rule("nope")
