"""Evaluation records: one JSON object per episode in ``results.jsonl``, and the run's ``config.json``.

An output folder of ``desktop-gym eval`` holds::

    config.json             what was evaluated (agent, action mode, tasks, seeds, runs)
    results.jsonl           one EpisodeRecord per line, appended as episodes finish
    summary.json            the summary (see ``summary.summarize``)
    report.html, report.md  the report; report_*.png its charts
    trajectories/<task>/seed<S>-run<R>/   each episode's trajectory (``desktop_gym.episode.trajectory``)

Viewer links: the trajectory viewer serves an output folder and shows a trajectory at
``view/<path relative to the folder>`` (e.g. ``view/trajectories/starter.calc_fill_totals/seed0-run0``);
the report links there and to the raw folder.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from desktop_gym.errors import ResultsError

RESULTS_FILE = "results.jsonl"
CONFIG_FILE = "config.json"
SUMMARY_FILE = "summary.json"
MAX_RECORDS = 1_000_000


def episode_key(task_id: str, seed: int, run: int) -> str:
    """The identity of one episode in a results file."""
    return f"{task_id}|seed={seed}|run={run}"


def domain_of(task_id: str) -> str:
    """The domain of a task: its suite (the id's part before the first dot)."""
    return task_id.split(".", 1)[0]


def viewer_url(trajectory: str) -> str:
    """The trajectory viewer's URL of a trajectory path relative to the output folder."""
    return f"view/{trajectory}"


@dataclass
class EpisodeRecord:
    """The outcome of one evaluated episode.

    Attributes:
        task_id, seed, run: which episode (a run is one pass over the suite).
        agent: the agent string; action_mode: gui | api | hybrid.
        success: the verifier's verdict; reward: the final reward.
        steps: steps taken; action_errors: steps whose action was refused or malformed.
        wall_seconds: the whole episode (reset included); reset_seconds: the reset alone.
        prompt_tokens, completion_tokens, generation_seconds: the agent's model usage.
        error: why the episode could not be played (setup failure, crash, agent exception).
        reason: the verifier's reason.
        trajectory: the trajectory folder, relative to the output folder.
    """

    task_id: str
    seed: int
    run: int
    agent: str
    action_mode: str
    success: bool = False
    reward: float = 0.0
    steps: int = 0
    action_errors: int = 0
    wall_seconds: float = 0.0
    reset_seconds: float = 0.0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    generation_seconds: float = 0.0
    error: str | None = None
    reason: str = ""
    trajectory: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def key(self) -> str:
        return episode_key(self.task_id, self.seed, self.run)

    @property
    def domain(self) -> str:
        return domain_of(self.task_id)

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "domain": self.domain}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> EpisodeRecord:
        known = {name: data[name] for name in cls.__dataclass_fields__ if name in data}
        missing = [name for name in ("task_id", "seed", "run", "agent", "action_mode") if name not in known]
        if missing:
            raise ResultsError(f"episode record lacks {', '.join(missing)}: {str(data)[:200]}")
        return cls(**known)


def results_path(folder: Path | str) -> Path:
    """``results.jsonl`` in ``folder``, or ``folder`` itself when it names a file."""
    path = Path(folder)
    return path if path.suffix == ".jsonl" else path / RESULTS_FILE


def read_records(folder: Path | str) -> list[EpisodeRecord]:
    """The records of a results file (a torn last line from a killed run is skipped).

    Raises:
        ResultsError: the file does not exist, or a complete line is not a record.
    """
    path = results_path(folder)
    if not path.is_file():
        raise ResultsError(f"{path}: no results file (run desktop-gym eval with --out first)")
    records: list[EpisodeRecord] = []
    lines = path.read_text(encoding="utf-8").splitlines()
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as error:
            if number == len(lines):
                break  # torn last line: the episode is rerun
            raise ResultsError(f"{path}:{number}: not JSON ({error})") from None
        if not isinstance(data, dict):
            raise ResultsError(f"{path}:{number}: not a JSON object")
        records.append(EpisodeRecord.from_dict(data))
        if len(records) >= MAX_RECORDS:
            raise ResultsError(f"{path}: more than {MAX_RECORDS} records")
    return latest_records(records)


def latest_records(records: Iterable[EpisodeRecord]) -> list[EpisodeRecord]:
    """One record per episode key (the last one written wins), in first-seen order."""
    by_key: dict[str, EpisodeRecord] = {}
    for record in records:
        by_key[record.key] = record
    return list(by_key.values())


def read_config(folder: Path | str) -> dict[str, Any]:
    """The ``config.json`` of an output folder ({} when there is none)."""
    path = Path(folder) / CONFIG_FILE
    if not path.is_file():
        return {}
    return json.loads(path.read_text(encoding="utf-8"))
