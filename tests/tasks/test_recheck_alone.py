"""``tasks check --jobs N``: what failed beside other desktops is checked again alone, and named."""

from __future__ import annotations

import argparse

import pytest

from desktop_gym import cli_tasks, task_check
from desktop_gym.task_check import EpisodeCheck, TaskProof


def _proof(task_id: str, proven: bool) -> TaskProof:
    episode = EpisodeCheck("api", 0, expected_success=True, success=True if proven else None, reason="")
    proof = TaskProof(task_id, (0,))
    proof.episodes = [episode]
    return proof


class StandInCheckTasks:
    """Stands in for the desktop-backed ``check_tasks`` (the recheck's control flow is under test)."""

    def __init__(self, proven_alone: set[str]) -> None:
        self.proven_alone = proven_alone
        self.calls: list[list[str]] = []

    def __call__(self, task_ids, **kwargs) -> list[TaskProof]:
        self.calls.append(list(task_ids))
        assert "jobs" not in kwargs  # alone: one desktop
        return [_proof(task, task in self.proven_alone) for task in task_ids]


def test_only_failed_tasks_are_rechecked_and_load_sensitive_ones_are_named(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    stand_in = StandInCheckTasks(proven_alone={"b"})
    monkeypatch.setattr(task_check, "check_tasks", stand_in)
    args = argparse.Namespace(jobs=2, seeds=1, backend="local", attacks="files")
    first = [_proof("a", True), _proof("b", False), _proof("c", False)]
    result = cli_tasks._recheck_alone(first, args, episode_attacked=["c"])
    assert stand_in.calls == [["b", "c"]]
    assert [(p.task_id, p.proven) for p in result] == [("a", True), ("b", True), ("c", False)]
    out = capsys.readouterr().out
    assert "rechecking alone what failed beside 1 other desktop(s): b, c" in out
    assert "proven only when checked alone (load-sensitive): b" in out


def test_nothing_is_rechecked_when_everything_was_proven(monkeypatch: pytest.MonkeyPatch) -> None:
    stand_in = StandInCheckTasks(proven_alone=set())
    monkeypatch.setattr(task_check, "check_tasks", stand_in)
    args = argparse.Namespace(jobs=2, seeds=1, backend="local", attacks="files")
    proofs = [_proof("a", True)]
    assert cli_tasks._recheck_alone(proofs, args, episode_attacked=[]) == proofs
    assert stand_in.calls == []
