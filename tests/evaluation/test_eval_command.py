"""``desktop-gym eval`` on real desktops: oracle, null agent, resume, report, compare."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from desktop_gym.cli import main
from desktop_gym.evaluation import read_records

pytestmark = pytest.mark.slow

TASKS = ["starter.terminal_write_file", "os.count_lines", "os.install_offline"]  # the last is infeasible


@pytest.fixture(scope="module")
def oracle_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("eval") / "oracle"
    assert main(["eval", "--task", *TASKS, "--agent", "oracle", "--envs", "2", "--out", str(out), "--quiet"]) == 0
    return out


def test_oracle_solves_every_task_over_two_envs(oracle_run: Path) -> None:
    records = read_records(oracle_run)
    assert sorted(r.task_id for r in records) == sorted(TASKS)
    assert all(r.success and r.error is None for r in records), [(r.task_id, r.error, r.reason) for r in records]
    summary = json.loads((oracle_run / "summary.json").read_text(encoding="utf-8"))
    assert summary["overall"]["success_rate"] == 1.0
    assert set(summary["domains"]) == {"starter", "os"}
    for record in records:
        steps = (oracle_run / str(record.trajectory) / "steps.jsonl").read_text(encoding="utf-8").splitlines()
        assert json.loads(steps[0])["kind"] == "header" and json.loads(steps[-1])["kind"] == "end"
        assert len(steps) == record.steps + 2
    page = (oracle_run / "report.html").read_text(encoding="utf-8")
    assert "view/trajectories/os.count_lines/seed0-run0" in page and "<svg" in page


def test_a_rerun_resumes_and_plays_nothing_twice(oracle_run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = (oracle_run / "results.jsonl").read_text(encoding="utf-8")
    assert (
        main(["eval", "--task", *TASKS, "--agent", "oracle", "--envs", "2", "--out", str(oracle_run), "--quiet"]) == 0
    )
    assert (oracle_run / "results.jsonl").read_text(encoding="utf-8") == before
    assert "| oracle | hybrid | 3 | 100.0 ± 0.0% |" in capsys.readouterr().out


def test_another_agent_cannot_resume_the_folder(oracle_run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", "--task", TASKS[0], "--agent", "null", "--out", str(oracle_run), "--quiet"]) == 2
    assert "holds an evaluation of" in capsys.readouterr().err


def test_null_agent_fails_every_task_and_compares_against_the_oracle(oracle_run: Path, tmp_path: Path) -> None:
    null_out = tmp_path / "null"
    assert main(["eval", "--task", *TASKS, "--agent", "null", "--envs", "2", "--out", str(null_out), "--quiet"]) == 0
    records = read_records(null_out)
    # done() on an infeasible task claims success, which its verdict rejects: the null agent wins nothing.
    assert [r.success for r in records] == [False, False, False]
    assert all(r.steps == 1 for r in records)
    compare = tmp_path / "compare"
    assert main(["eval", "--compare", str(null_out), str(oracle_run), "--out", str(compare)]) == 0
    table = (compare / "compare.md").read_text(encoding="utf-8")
    assert "| overall | 3 | 0.0 ± 0.0% | 100.0 ± 0.0% | +100.0 pts |" in table


def test_report_shows_reference_steps_per_task(oracle_run: Path) -> None:
    assert main(["eval", "--report", str(oracle_run), "--oracle-steps", str(oracle_run)]) == 0
    report = (oracle_run / "report.md").read_text(encoding="utf-8")
    assert "| oracle (hybrid) steps | steps / oracle (hybrid) |" in report
    assert "| 1.00x |" in report
