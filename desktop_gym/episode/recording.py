"""Recording ``desktop-gym run`` episodes in the one trajectory format (``desktop_gym.episode.trajectory``).

Every screenshot is written under a temporary name and renamed, each step's row is appended after
its screenshot, the replay page is rewritten after every step, and a folder that already holds a
trajectory is never touched (the recorder takes ``<folder>-1``, ``-2``, ... instead).
"""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import Any

from desktop_gym.episode.trajectory import Step, Trajectory, TrajectoryWriter

log = logging.getLogger(__name__)
PROMPT_PARTS = ("instruction", "focused_app", "app_info", "a11y_tree", "last_action_result", "last_action_error")


def _text_parts(observation: dict[str, Any]) -> dict[str, Any]:
    return {key: observation[key] for key in PROMPT_PARTS if key in observation}


class TrajectoryRecorder:
    """Writes one episode below ``folder``: call ``start`` after ``reset``, ``record`` after each ``step``,
    ``finish`` at the end. ``self.folder`` is where it went (a taken name gets a suffix).

    With ``video=True``, ``finish`` also writes ``episode.webm`` from the screenshots, one step a second
    (:mod:`desktop_gym.episode.video`); the replay page and the trajectory viewer play it. A video that
    cannot be written is logged and left out: the trajectory itself is complete either way."""

    def __init__(self, folder: Path | str, video: bool = False) -> None:
        self._requested = Path(folder)
        self.video = video
        self._writer: TrajectoryWriter | None = None
        self._started = 0.0

    @property
    def folder(self) -> Path:
        """The trajectory folder (known after ``start``)."""
        return self._writer.folder if self._writer is not None else self._requested

    def start(self, observation: dict[str, Any], info: dict[str, Any], describe: str = "") -> None:
        """Record the reset: the header row and the first screenshot."""
        trajectory = Trajectory(
            task_id=str(info.get("task_id")),
            seed=info.get("seed"),
            instruction=str(observation.get("instruction", info.get("instruction", ""))),
            params=dict(info.get("params") or {}),
            started=time.time(),
            meta={"reset_observation": _text_parts(observation), "describe": describe},
        )
        self._started = time.perf_counter()
        self._writer = TrajectoryWriter(self._requested, trajectory)
        self._writer.begin(observation.get("screenshot"))

    def record(
        self,
        action: str,
        observation: dict[str, Any],
        reward: float,
        terminated: bool,
        truncated: bool,
        info: dict[str, Any],
        well_formed: bool = True,
    ) -> None:
        """Record one step: the action taken and what came back."""
        if self._writer is None:
            raise RuntimeError("TrajectoryRecorder.record called before start")
        trajectory = self._writer.trajectory
        step = Step(
            index=len(trajectory.steps) + 1,
            action=action,
            completion=action,
            observation=_text_parts(observation),
            reward=float(reward),
            terminated=bool(terminated),
            truncated=bool(truncated),
            well_formed=well_formed,
            info={k: v for k, v in info.items() if k != "params"},
        )
        if terminated or truncated:
            trajectory.success = bool(info.get("success"))
            trajectory.verifier = info.get("verifier")
            trajectory.crash = info.get("crash")
        self._writer.add_step(step, observation.get("screenshot"))

    def finish(self) -> Path:
        """Write the end row and the final page; returns the page's path."""
        if self._writer is None:
            raise RuntimeError("TrajectoryRecorder.finish called before start")
        self._writer.trajectory.seconds = time.perf_counter() - self._started
        if self.video:
            self._write_video()
        folder = self._writer.end()
        return folder / "index.html"

    def _write_video(self) -> None:
        from desktop_gym.episode.video import write_video
        from desktop_gym.errors import VideoError

        assert self._writer is not None
        trajectory = self._writer.trajectory
        frames = [trajectory.meta.get("reset_screenshot"), *(step.screenshot for step in trajectory.steps)]
        try:
            video = write_video(self._writer.folder, [name for name in frames if name])
        except VideoError as error:
            log.warning("no episode video for %s: %s", self._writer.folder, error)
            return
        trajectory.meta["video"] = video.name
