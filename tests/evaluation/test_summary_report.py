"""Summary statistics, the results file, the report and the comparison (no desktop needed)."""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from desktop_gym.evaluation import EpisodeRecord, ResultsError, read_records, summarize, write_comparison, write_report
from desktop_gym.evaluation.summary import pass_at_k


def _brute_pass_at_k(n: int, c: int, k: int) -> float:
    """The fraction of k-subsets of n attempts (c of them successes) holding a success."""
    attempts = [True] * c + [False] * (n - c)
    subsets = list(itertools.combinations(range(n), k))
    return sum(any(attempts[i] for i in subset) for subset in subsets) / len(subsets)


@given(st.integers(1, 8).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n), st.integers(1, n))))
def test_pass_at_k_is_the_probability_that_k_drawn_attempts_hold_a_success(nck: tuple[int, int, int]) -> None:
    n, c, k = nck
    assert math.isclose(pass_at_k(n, c, k), _brute_pass_at_k(n, c, k), abs_tol=1e-12)


@given(st.integers(1, 20).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n))))
def test_pass_at_k_grows_with_k(nc: tuple[int, int]) -> None:
    n, c = nc
    values = [pass_at_k(n, c, k) for k in range(1, n + 1)]
    assert values == sorted(values)
    assert values[0] == pytest.approx(c / n)


def test_pass_at_k_rejects_impossible_counts() -> None:
    with pytest.raises(ValueError, match="c <= n"):
        pass_at_k(2, 3, 1)


def _record(task: str, seed: int, run: int, success: bool, steps: int = 3, **extra: object) -> EpisodeRecord:
    return EpisodeRecord(
        task_id=task, seed=seed, run=run, agent="x", action_mode="gui", success=success, steps=steps, **extra
    )  # type: ignore[arg-type]


RECORDS = [
    _record("calc.a", 0, 0, True, 4),
    _record("calc.a", 0, 1, False, 10),
    _record("calc.b", 0, 0, True, 2),
    _record("calc.b", 0, 1, True, 6),
    _record("os.c", 0, 0, False, 5, error="TaskSetupError: no"),
    _record("os.c", 0, 1, False, 5),
]


def test_summary_groups_by_task_domain_and_run() -> None:
    summary = summarize(RECORDS)
    assert summary["runs"] == 2 and summary["k"] == 2
    overall = summary["overall"]
    assert overall["per_run"] == pytest.approx([2 / 3, 1 / 3])
    assert overall["mean"] == pytest.approx(0.5)
    assert overall["std"] == pytest.approx(math.sqrt(2) / 6)
    assert overall["pass_at_k"] == pytest.approx(2 / 3)  # calc.a and calc.b pass@2, os.c never
    assert overall["avg_steps_success"] == pytest.approx(4.0)
    assert overall["errors"] == 1
    assert summary["domains"]["calc"]["success_rate"] == pytest.approx(0.75)
    assert summary["tasks"]["calc.a"]["pass_at_k"] == 1.0
    assert summary["tasks"]["os.c"]["avg_steps_success"] is None


def test_results_file_skips_a_torn_last_line_and_keeps_the_latest_record(tmp_path: Path) -> None:
    lines = [json.dumps(r.to_dict()) for r in RECORDS[:2]] + [json.dumps(_record("calc.a", 0, 0, False).to_dict())]
    (tmp_path / "results.jsonl").write_text("\n".join(lines) + '\n{"task_id": "calc', encoding="utf-8")
    records = read_records(tmp_path)
    assert [r.key for r in records] == ["calc.a|seed=0|run=0", "calc.a|seed=0|run=1"]
    assert records[0].success is False  # the later line wins


def test_results_file_errors_name_the_file_and_line(tmp_path: Path) -> None:
    with pytest.raises(ResultsError, match="no results file"):
        read_records(tmp_path)
    (tmp_path / "results.jsonl").write_text('not json\n{"task_id": "a"}\n', encoding="utf-8")
    with pytest.raises(ResultsError, match=r"results.jsonl:1: not JSON"):
        read_records(tmp_path)
    (tmp_path / "results.jsonl").write_text('{"task_id": "a"}\n\n', encoding="utf-8")
    with pytest.raises(ResultsError, match="lacks seed, run, agent, action_mode"):
        read_records(tmp_path)


def test_report_has_tables_charts_reference_steps_and_viewer_links(tmp_path: Path) -> None:
    records = [*RECORDS]
    records[0].trajectory = "trajectories/calc.a/seed0-run0"
    oracle = [EpisodeRecord("calc.a", 0, 0, "oracle-api", "api", success=True, steps=2)]
    paths = write_report(tmp_path, records, {"oracle-api (api)": oracle})
    page = paths["html"].read_text(encoding="utf-8")
    markdown = paths["markdown"].read_text(encoding="utf-8")
    assert "<svg" in page and "Success by domain" in page
    assert "href='view/trajectories/calc.a/seed0-run0'" in page
    assert "[raw](trajectories/calc.a/seed0-run0/)" in markdown
    assert "| calc.a | 2 | 50.0 ± 70.7% | 100.0% | 4.0 | 2.0 | 2.00x |" in markdown
    assert (tmp_path / "report_calc.svg").is_file() and (tmp_path / "report_os.svg").is_file()
    summary = json.loads(paths["summary"].read_text(encoding="utf-8"))
    assert summary["reference_steps"] == {"oracle-api (api)": {"calc.a": 2.0}}


def test_comparison_puts_both_runs_side_by_side_per_domain(tmp_path: Path) -> None:
    hybrid = [EpisodeRecord(r.task_id, r.seed, r.run, "x", "hybrid", success=True, steps=1) for r in RECORDS]
    paths = write_comparison(tmp_path, RECORDS, hybrid)
    markdown = paths["markdown"].read_text(encoding="utf-8")
    assert "| calc | 4 | 75.0 ± 35.4% | 100.0 ± 0.0% | +25.0 pts | 100.0% | 100.0% | 4.0 | 1.0 | 1 |" in markdown
    assert "| overall | 6 | 50.0 ± 23.6% | 100.0 ± 0.0% | +50.0 pts |" in markdown
    assert "x (gui) vs x (hybrid)" in paths["html"].read_text(encoding="utf-8")
