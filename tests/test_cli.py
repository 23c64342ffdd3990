"""The desktop-gym command: the README's main job end to end, and its helpers."""

from __future__ import annotations

import json

import pytest

from desktop_gym.cli import main


def test_tasks_lists_registered_gym_ids(capsys):
    assert main(["tasks"]) == 0
    assert "desktop_gym/starter.calc_fill_totals-v0" in capsys.readouterr().out


def test_doctor_finds_the_desktop_stack(capsys):
    assert main(["doctor"]) == 0
    assert "MISSING" not in capsys.readouterr().out


@pytest.mark.slow
def test_run_records_a_replayable_trajectory(tmp_path, capsys):
    assert main(["run", "--task", "starter.terminal_write_file", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "[verdict] SUCCESS" in out
    folder = tmp_path / "starter.terminal_write_file-seed0"
    rows = [json.loads(line) for line in (folder / "steps.jsonl").read_text().splitlines()]
    assert rows[0]["kind"] == "header" and "terminal" in rows[0]["instruction"]
    assert rows[-1]["kind"] == "end" and rows[-1]["success"]
    steps = [row for row in rows if row["kind"] == "step"]
    assert steps[-1]["terminated"] and steps[-1]["info"]["verifier"]["success"]
    assert all((folder / row["screenshot"]).stat().st_size > 1000 for row in steps)
    assert (folder / "step_000.png").stat().st_size > 1000
    page = (folder / "index.html").read_text()
    assert page.count("<section>") == len(steps) + 1 and "verifier:" in page
    # a second run never overwrites the first trajectory
    assert main(["run", "--task", "starter.terminal_write_file", "--out", str(tmp_path)]) == 0
    assert (tmp_path / "starter.terminal_write_file-seed0-1" / "steps.jsonl").exists()
    assert len((folder / "steps.jsonl").read_text().splitlines()) == len(rows)


def test_run_null_agent_reports_failure(tmp_path, capsys):
    assert main(["run", "--task", "starter.terminal_write_file", "--agent", "null", "--out", str(tmp_path)]) == 0
    assert "[verdict] FAILURE" in capsys.readouterr().out
