"""Trajectories: ``Step`` and ``Trajectory``, the crash-safe writer, and the one reader.

On-disk layout (every tool reads it through :func:`load_trajectories`)::

    <root>/                       any folder; trajectories may sit at any depth below it
      <name>/                     one trajectory; never overwritten (a taken name gets -1, -2, ...)
        steps.jsonl               one JSON object per line, in this order:
                                    {"kind": "header", "format": 1, "task_id", "seed", "instruction",
                                     "params", "started" (unix s), "meta": {...}}
                                    {"kind": "step", "index" (1-based), "action", "completion",
                                     "observation" (text parts as the prompt saw them),
                                     "screenshot" (file name or null), "messages" (text-only chat),
                                     "reward", "terminated", "truncated", "well_formed",
                                     "logprobs" (list or null), "policy_version", "info", "seconds"}
                                    ... one row per step ...
                                    {"kind": "end", "success", "verifier" ({success, score, reason}
                                     or null), "crash", "seconds", "rewards" (final per-step rewards)}
        step_000.png              the reset observation's screenshot; step_NNN.png after step NNN
        index.html                a replay page, rewritten after every row

Crash safety: each file (PNG, page) is written to ``.<name>.tmp`` and renamed into place; a
step's row is appended only after its screenshot is in place, as one ``write`` of a complete
line, flushed. A kill mid-write can leave only an incomplete last line, which the reader skips;
a trajectory without an ``end`` row loads with ``complete=False``.

Training metrics (``metrics.jsonl`` beside a run's checkpoints, one JSON object per line):
``{"kind": "iteration", "iteration", "phase" ("rl" | "sft"), "success", "reward", "entropy",
"kl", "loss", "clip_fraction", "ratio_mean", "ratio_min", "ratio_max", "importance_weight",
"grad_norm", "grad_norm_max", "optimizer_steps", "response_tokens", "steps_per_s",
"tokens_per_s", "time" (s since the run started), "policy_lag", "episodes", "samples",
"well_formed", "groups", "groups_with_signal"}`` per iteration. ``entropy`` is the policy's mean
per-token entropy at the sampling temperature over the response tokens of every step of the
iteration, before its update (after an SFT phase: over the last RL iteration's first 16 steps,
under the SFT result); the ratio and clip fields cover every response token of every pass;
``kl``, ``loss`` and the update fields are null when no sample carried signal (no update),
``success`` is null for SFT iterations; and
``{"kind": "phase", "iteration", "phase" (the new one), "reason", "time"}`` at each phase change;
``{"kind": "eval", "label", "success", "ci_low", "ci_high", "episodes", "successes", "time"}`` for
held-out evaluations.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

FORMAT_VERSION = 1
STEPS_FILE = "steps.jsonl"
MAX_TRAJECTORIES = 100_000  # the reader stops after this many (a cap on a runaway folder)
MAX_NAME_SUFFIX = 10_000


def jsonable(value: Any) -> Any:
    """``value`` with numpy scalars as Python numbers and arrays as a short description."""
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return f"<array {value.shape} {value.dtype}>"
    if isinstance(value, Path):
        return str(value)
    return value


@dataclass
class Step:
    """One agent step as the trainer and the viewers see it."""

    index: int
    action: str
    observation: dict[str, Any] = field(default_factory=dict)
    messages: list[dict[str, Any]] = field(default_factory=list)
    completion: str = ""
    reward: float = 0.0
    terminated: bool = False
    truncated: bool = False
    well_formed: bool = True
    logprobs: list[float] | None = None
    policy_version: int = 0
    info: dict[str, Any] = field(default_factory=dict)
    screenshot: str | None = None
    seconds: float = 0.0

    def to_row(self) -> dict[str, Any]:
        """The step's ``steps.jsonl`` row."""
        return jsonable({"kind": "step", **asdict(self)})

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> Step:
        """A step from its row (unknown keys are ignored, so newer files still load)."""
        known = {name: row[name] for name in cls.__dataclass_fields__ if name in row}
        return cls(**known)


@dataclass
class Trajectory:
    """One episode: its task, seed, steps and the verifier's verdict."""

    task_id: str
    seed: int | None = None
    instruction: str = ""
    params: dict[str, Any] = field(default_factory=dict)
    steps: list[Step] = field(default_factory=list)
    success: bool = False
    verifier: dict[str, Any] | None = None
    crash: str | None = None
    started: float = 0.0
    seconds: float = 0.0
    meta: dict[str, Any] = field(default_factory=dict)
    complete: bool = True
    folder: Path | None = None

    @property
    def well_formed_steps(self) -> int:
        """How many steps had a well-formed action."""
        return sum(step.well_formed for step in self.steps)

    def header_row(self) -> dict[str, Any]:
        """The ``header`` row of ``steps.jsonl``."""
        return jsonable(
            {
                "kind": "header",
                "format": FORMAT_VERSION,
                "task_id": self.task_id,
                "seed": self.seed,
                "instruction": self.instruction,
                "params": self.params,
                "started": self.started,
                "meta": self.meta,
            }
        )

    def end_row(self) -> dict[str, Any]:
        """The ``end`` row of ``steps.jsonl``."""
        return jsonable(
            {
                "kind": "end",
                "success": self.success,
                "verifier": self.verifier,
                "crash": self.crash,
                "seconds": self.seconds,
                "rewards": [step.reward for step in self.steps],
            }
        )


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary name and a rename (readers never see a torn file)."""
    temporary = path.with_name(f".{path.name}.tmp")
    with open(temporary, "wb") as handle:
        handle.write(data)
    os.replace(temporary, path)


def free_folder(folder: Path) -> Path:
    """``folder`` if no trajectory is there yet, else the first free ``folder-1``, ``folder-2``, ..."""
    if not (folder / STEPS_FILE).exists() and not (folder.exists() and any(folder.iterdir())):
        return folder
    for suffix in range(1, MAX_NAME_SUFFIX):
        candidate = folder.with_name(f"{folder.name}-{suffix}")
        if not candidate.exists():
            return candidate
    raise FileExistsError(f"no free trajectory folder next to {folder} after {MAX_NAME_SUFFIX} tries")


class TrajectoryWriter:
    """Writes one trajectory folder incrementally: ``begin``, ``add_step`` per step, ``end``.

    Args:
        folder: where to write; a folder that already holds something is never touched, the
            writer picks ``<folder>-1`` etc. instead (see ``self.folder``).
        trajectory: the header data (task, seed, instruction, params); steps are appended to it.
        page: also keep ``index.html`` current.
    """

    def __init__(self, folder: Path | str, trajectory: Trajectory, page: bool = True) -> None:
        self.folder = free_folder(Path(folder))
        self.folder.mkdir(parents=True, exist_ok=True)
        self.trajectory = trajectory
        self.trajectory.folder = self.folder
        self.trajectory.complete = False
        self.page = page
        self._file = open(self.folder / STEPS_FILE, "a", encoding="utf-8")
        self._reset_screenshot: str | None = None
        self._append(trajectory.header_row())

    def _append(self, row: dict[str, Any]) -> None:
        self._file.write(json.dumps(row, ensure_ascii=False) + "\n")
        self._file.flush()

    def save_screenshot(self, index: int, screenshot: np.ndarray | None) -> str | None:
        """Write ``step_NNN.png`` atomically and return its name (None when there is no screenshot)."""
        if screenshot is None:
            return None
        import io

        from PIL import Image

        name = f"step_{index:03d}.png"
        buffer = io.BytesIO()
        Image.fromarray(np.asarray(screenshot, dtype=np.uint8)).save(buffer, format="PNG", compress_level=1)
        atomic_write_bytes(self.folder / name, buffer.getvalue())
        return name

    def begin(self, screenshot: np.ndarray | None = None) -> None:
        """Record the reset observation's screenshot (optional)."""
        self._reset_screenshot = self.save_screenshot(0, screenshot)
        self.trajectory.meta["reset_screenshot"] = self._reset_screenshot
        self._write_page()

    def add_step(self, step: Step, screenshot: np.ndarray | None = None) -> None:
        """Append one step: its screenshot file first, then its row, then the page."""
        step.screenshot = self.save_screenshot(step.index, screenshot) or step.screenshot
        self.trajectory.steps.append(step)
        self._append(step.to_row())
        self._write_page()

    def end(self) -> Path:
        """Write the ``end`` row and the final page; returns the trajectory folder."""
        self._append(self.trajectory.end_row())
        self._file.close()
        self.trajectory.complete = True
        self._write_page()
        return self.folder

    def close(self) -> None:
        """Close without an ``end`` row (the trajectory loads as incomplete)."""
        if not self._file.closed:
            self._file.close()

    def _write_page(self) -> None:
        if self.page:
            from desktop_gym.episode.replay_page import replay_page

            atomic_write_bytes(
                self.folder / "index.html", replay_page(self.trajectory, self._reset_screenshot).encode("utf-8")
            )


def write_trajectory(folder: Path | str, trajectory: Trajectory, page: bool = False) -> Path:
    """Write a finished in-memory trajectory (no screenshots) as one folder; returns the folder."""
    steps, trajectory.steps = trajectory.steps, []
    writer = TrajectoryWriter(folder, trajectory, page=page)
    for step in steps:
        writer.add_step(step)
    return writer.end()


def read_trajectory(folder: Path | str) -> Trajectory:
    """Read one trajectory folder; a torn last line is skipped, a missing ``end`` gives ``complete=False``.

    Raises:
        ValueError: the file has no header row (names the file).
    """
    path = Path(folder) / STEPS_FILE
    trajectory: Trajectory | None = None
    complete = False
    for row in _rows(path):
        kind = row.get("kind")
        if kind == "header":
            trajectory = Trajectory(
                task_id=str(row.get("task_id")),
                seed=row.get("seed"),
                instruction=str(row.get("instruction", "")),
                params=dict(row.get("params") or {}),
                started=float(row.get("started") or 0.0),
                meta=dict(row.get("meta") or {}),
                folder=Path(folder),
            )
        elif trajectory is None:
            raise ValueError(f"{path}: the first row must be the header, got kind={kind!r}")
        elif kind == "step":
            trajectory.steps.append(Step.from_row(row))
        elif kind == "end":
            complete = True
            trajectory.success = bool(row.get("success"))
            trajectory.verifier = row.get("verifier")
            trajectory.crash = row.get("crash")
            trajectory.seconds = float(row.get("seconds") or 0.0)
            for step, reward in zip(trajectory.steps, row.get("rewards") or [], strict=False):
                step.reward = float(reward)
    if trajectory is None:
        raise ValueError(f"{path}: no header row (empty or not a trajectory file)")
    trajectory.complete = complete
    return trajectory


def _rows(path: Path) -> Iterator[dict[str, Any]]:
    with open(path, encoding="utf-8", errors="replace") as handle:
        for line in handle:
            if not line.endswith("\n"):
                return  # a torn last line from a killed writer
            try:
                row = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(row, dict):
                yield row


def load_trajectories(root: Path | str, complete_only: bool = True, limit: int = MAX_TRAJECTORIES) -> list[Trajectory]:
    """Every trajectory at or below ``root``, sorted by folder path.

    Args:
        root: a trajectory folder or any folder above trajectory folders.
        complete_only: skip trajectories that have no ``end`` row (still being written, or killed).
        limit: read at most this many.
    """
    root = Path(root)
    if not root.exists():
        raise FileNotFoundError(f"no trajectory folder {root}")
    found: list[Trajectory] = []
    for path in sorted(root.rglob(STEPS_FILE)):
        if len(found) >= limit:
            break
        try:
            trajectory = read_trajectory(path.parent)
        except ValueError:
            continue
        if trajectory.complete or not complete_only:
            found.append(trajectory)
    return found
