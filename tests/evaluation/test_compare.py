"""``eval --compare`` compares like with like (issue 32): the same (task, seed, run) episodes, per-task
rows, pass@k, episode counts and McNemar's exact test on the paired episodes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from desktop_gym.cli import main
from desktop_gym.errors import ResultsError
from desktop_gym.evaluation import write_comparison
from desktop_gym.evaluation.compare import mcnemar_p
from desktop_gym.evaluation.records import EpisodeRecord


def _records(mode: str, wins: dict[tuple[str, int, int], bool]) -> list[EpisodeRecord]:
    return [EpisodeRecord(t, s, r, "x", mode, success=won, steps=2) for (t, s, r), won in wins.items()]


EPISODES = [(task, seed, run) for task in ("calc.a", "calc.b", "os.c") for seed in (0, 1) for run in (0, 1)]


def test_mcnemar_exact_p_values() -> None:
    a = _records("gui", dict.fromkeys(EPISODES, False))
    b = _records("api", dict.fromkeys(EPISODES, True))
    assert mcnemar_p(a, b) == pytest.approx(2 / 2**12)  # 12 discordant pairs, all one way
    assert mcnemar_p(a, a) == 1.0  # no discordant pair
    mixed = _records("api", {e: i % 2 == 0 for i, e in enumerate(EPISODES)})
    assert mcnemar_p(_records("gui", {e: i % 2 == 1 for i, e in enumerate(EPISODES)}), mixed) == 1.0


def test_the_table_has_task_rows_episode_counts_pass_at_k_and_p(tmp_path: Path) -> None:
    a = _records("gui", {e: e[0] == "calc.a" for e in EPISODES})
    b = _records("api", {e: e[0] != "os.c" for e in EPISODES})
    markdown = write_comparison(tmp_path, a, b)["markdown"].read_text(encoding="utf-8")
    assert "| domain / task | episodes | x (gui) success | x (api) success | difference | x (gui) pass@2 |" in markdown
    assert "|   calc.b | 4 | 0.0 ± 0.0% | 100.0 ± 0.0% | +100.0 pts | 0.0% | 100.0% |" in markdown
    assert "| overall | 12 | 33.3 ± 0.0% | 66.7 ± 0.0% | +33.3 pts |" in markdown
    assert markdown.rstrip().splitlines()[-3].endswith(f"| {2 / 2**4:.3g} |")  # overall: 4 discordant, one way


def test_different_episode_sets_are_refused_or_compared_on_the_common_ones(tmp_path: Path) -> None:
    a = _records("gui", dict.fromkeys(EPISODES, True))
    b = _records("api", dict.fromkeys(EPISODES[:-2], True))  # B lacks os.c seed 1
    with pytest.raises(ResultsError, match=r"2 episodes only in A \(e\.g\. os\.c\|seed=1\|run=0"):
        write_comparison(tmp_path, a, b)
    markdown = write_comparison(tmp_path, a, b, allow_mismatch=True)["markdown"].read_text(encoding="utf-8")
    assert "**Compared only the episodes both evaluations hold: 2 episodes only in A" in markdown
    assert "| overall | 10 |" in markdown


def test_the_command_refuses_a_mismatch_with_a_message(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    for name, episodes in (("a", EPISODES), ("b", EPISODES[:6])):
        folder = tmp_path / name
        folder.mkdir()
        rows = [json.dumps(r.to_dict()) + "\n" for r in _records(name, dict.fromkeys(episodes, True))]
        (folder / "results.jsonl").write_text("".join(rows))
    out = tmp_path / "cmp"
    assert main(["eval", "--compare", str(tmp_path / "a"), str(tmp_path / "b"), "--out", str(out)]) == 2
    assert "6 episodes only in A" in capsys.readouterr().out and not out.exists()
    assert (
        main(["eval", "--compare", str(tmp_path / "a"), str(tmp_path / "b"), "--out", str(out), "--allow-mismatch"])
        == 0
    )
